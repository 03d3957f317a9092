// Restricted Mode in a real VS Code (issue 26): with Workspace Trust on and the folder not trusted,
// FFN Lens still runs (package.json: untrustedWorkspaces "limited"): a checkpoint inside the
// workspace computes; one outside it is refused at its `checkpoint` key with the Restricted Mode
// message, nothing read; once the workspace is trusted, the same file reads and computes.
// Run it with Workspace Trust on from the server's start (the runner starts code-server without
// --disable-workspace-trust when the settings turn trust on):
//   node scripts/run-e2e.mjs --files 'out/test/e2e-restricted/**/*.test.js' --settings test/e2e-restricted/settings.json
// (its own folder: the e2e step runs test/e2e/ with Workspace Trust off; scripts/test-all.mjs runs this one apart)
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { safetensorsBytes, tinyGpt2 } from '../../src/checkpoint/testing';
import { until } from '../e2e/lib/until';
import { e2eEnv, Workbench } from '../e2e/lib/workbench';

describe('Restricted Mode (an untrusted workspace)', function () {
  this.timeout(300_000);
  let wb: Workbench;
  const env = e2eEnv();
  const ck = tinyGpt2();
  const outside = mkdtempSync(join(env.tmpDir, 'outside-ckpt-'));
  const model = (name: string, checkpoint: string): string => `{\n  "version": 1,\n  "name": "${name}",\n  "checkpoint": ${JSON.stringify(checkpoint)},\n  "token_ids": [1, 2, 3]\n}\n`;

  before(async () => {
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'config.json'), JSON.stringify(ck.config));
    writeFileSync(join(outside, 'model.safetensors'), safetensorsBytes(ck.tensors));
    wb = await Workbench.open({
      name: 'restricted',
      files: {
        'inside/config.json': JSON.stringify(ck.config),
        'inside/model.safetensors': safetensorsBytes(ck.tensors),
        'inside.ffn.json': model('inside', './inside'),
        'outside.ffn.json': model('outside', outside),
      },
      waitForFile: 'inside.ffn.json', viewport: { width: 1500, height: 950 },
    });
  });
  after(async () => {
    await wb?.close();
    rmSync(outside, { recursive: true, force: true });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`restricted-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function problems(ok: (rows: string[]) => boolean, what: string): Promise<string[]> {
    let rows: string[] = [];
    return until(what, async () => {
      rows = (await wb.page.locator('.markers-panel .monaco-list-row').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
      return ok(rows) && rows;
    }, { timeoutMs: 90_000, describe: () => `the Problems view lists: ${JSON.stringify(rows)}` });
  }

  async function predicts(title: string): Promise<string> {
    const view = await wb.visualize(`${title}.ffn.json`, `FFN Lens: ${title}`);
    const caption = view.locator('.probs-chart .chart-caption');
    return until(`${title}: a prediction`, async () => {
      const t = await caption.innerText().catch(() => '');
      return /%/.test(t) && t;
    }, { timeoutMs: 90_000 });
  }

  it('the window is in Restricted Mode, and a checkpoint inside the workspace computes', async () => {
    // (not there: the server runs with Workspace Trust off: give the runner --settings test/e2e-restricted/settings.json)
    await until('the Restricted Mode indicator (run with --settings test/e2e-restricted/settings.json)', async () => (await wb.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).count()) > 0, { timeoutMs: 60_000 });
    const caption = await predicts('inside');
    console.log(`      inside: ${caption.replace(/\s+/g, ' ')}  ${await wb.screenshot('restricted-inside-computes')}`);
  });

  it('a checkpoint outside the workspace is refused at its checkpoint key with the Restricted Mode message', async () => {
    await wb.closeAllEditors();
    await wb.openFile('outside.ffn.json', { timeoutMs: 60_000 });
    await wb.page.keyboard.press('Control+Shift+M');
    const rows = await problems((r) => r.some((x) => /Restricted Mode/.test(x)), 'the Restricted Mode refusal');
    const row = rows.find((x) => /Restricted Mode/.test(x))!;
    assert.match(row, /the checkpoint folder .*outside-ckpt-.* (is outside|lies outside|is not inside).*: in Restricted Mode FFN Lens reads only files inside the workspace \(trust the workspace to open it\)/);
    assert.ok(row.includes('[Ln 4, Col 17]'), row);
    console.log(`      refused: ${row}  ${await wb.screenshot('restricted-outside-refused')}`);
  });

  it('once the workspace is trusted, the same file reads the checkpoint and computes', async () => {
    await wb.runCommand('Workspaces: Manage Workspace Trust');
    const trust = wb.page.locator('.workspace-trust-editor').getByRole('button', { name: /^Trust$/ }).first();
    await trust.click({ timeout: 60_000 });
    await wb.screenshot('restricted-trust-granted');
    await until('Restricted Mode gone', async () => (await wb.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).count()) === 0, { timeoutMs: 60_000 });
    await wb.closeAllEditors();
    const caption = await predicts('outside');
    await problems((r) => !r.some((x) => /Restricted Mode/.test(x)), 'the refusal gone');
    console.log(`      outside, trusted: ${caption.replace(/\s+/g, ' ')}  ${await wb.screenshot('restricted-trusted-computes')}`);
  });
});
