// Generation in the web worker extension host (vscode.dev's), in code-server forced there
// ("remote.extensionKind": web): stories260K (read through workspace.fs) with "generate" for 200
// tokens generates as its panel opens; the Generation section's text grows chip by chip, the
// tokens those `ffn-lens generate` chooses (in Node, from the same files); Cancel stops it; a
// generated token picked, the heatmaps show the input and the tokens generated, its row highlighted.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { until } from '../e2e/lib/until';
import { Workbench } from '../e2e/lib/workbench';

const ROOT = join(__dirname, '..', '..', '..');
const SAMPLES = join(ROOT, 'samples');
const CLI = join(ROOT, 'dist', 'cli.js');
const FILE = 'web-generating.ffn.json';
const TITLE = 'FFN Lens: stories260K generating on the web';
const INPUT = [1, 403, 407, 261, 378];
const TOKENS = 200;
const TEXT = `{
  "version": 1,
  "name": "stories260K generating on the web",
  "checkpoint": "./stories260K",
  "token_ids": [${INPUT.join(', ')}],
  "generate": { "tokens": ${TOKENS}, "temperature": 0.8, "top_k": 8, "seed": 7 }
}
`;
const folder = (f: string): Uint8Array => readFileSync(join(SAMPLES, 'stories260K', f));

interface Shown { state: string; done: number; total: number; ids: number[]; chips: number }

describe('generation in the web worker extension host', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'web-generation',
      files: { [FILE]: TEXT, 'stories260K/config.json': folder('config.json'), 'stories260K/model.safetensors': folder('model.safetensors') },
      waitForFile: FILE, viewport: { width: 1600, height: 1000 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`web-generation-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function shown(view: FrameLocator): Promise<Shown> {
    const g = view.locator('.generation-view');
    const [state, done, total, ids] = await Promise.all(['data-state', 'data-done', 'data-total', 'data-ids'].map((a) => g.getAttribute(a)));
    return { state: state ?? '', done: Number(done ?? 0), total: Number(total ?? 0), ids: ids ? ids.split(',').map(Number) : [], chips: await view.locator('.gen-token').count() };
  }

  it('generates as the panel opens: the text grows chip by chip, as ffn-lens generate chooses; Cancel stops it; a token picked, the heatmaps follow', async () => {
    const view = await wb.visualize(FILE, TITLE);
    // the text as it grows: the chips seen at several counts on the way, while it runs
    const seen = new Set<number>();
    let last: Shown | null = null;
    await until('the generation under way, seen growing', async () => {
      last = await shown(view);
      if (last.state === 'running') seen.add(last.chips);
      return last.state === 'running' && seen.size >= 3 && last;
    }, { timeoutMs: 180_000, everyMs: 50, describe: () => `it shows ${JSON.stringify(last)}; chip counts seen while running: ${[...seen].join(', ')}` });
    assert.equal(last!.total, TOKENS);
    await wb.screenshot('web-generation-running');
    await view.locator('.gen-cancel').click();
    const cancelled = await until('the generation cancelled', async () => {
      const s = await shown(view);
      return s.state === 'cancelled' && s;
    }, { timeoutMs: 60_000 });
    assert.ok(cancelled.done < TOKENS && cancelled.done >= Math.max(...seen), `stopped at ${cancelled.done} / ${TOKENS}`);
    assert.equal(cancelled.chips, cancelled.done);
    assert.match(await view.locator('.gen-progress').innerText(), new RegExp(`cancelled at ${cancelled.done} / ${TOKENS}`));
    // the same tokens as the CLI's sampled generation (the seed's draws), as far as it went
    const path = join(wb.folder, 'cli-web-copy.ffn.json');
    writeFileSync(path, TEXT);
    const cli = JSON.parse(execFileSync(process.execPath, [CLI, 'generate', path], { encoding: 'utf8', maxBuffer: 1 << 26 })) as { generate: { steps: Array<{ id: number }> } };
    assert.deepEqual(cancelled.ids, cli.generate.steps.slice(0, cancelled.done).map((s) => s.id));
    await wb.screenshot('web-generation-cancelled');
    // a generated token picked: the run of the input and the tokens generated, its row highlighted
    const step = Math.min(2, cancelled.done - 1);
    await view.locator(`.gen-token[data-step="${step}"]`).click();
    const g = view.locator('.generation-view');
    await until('the heatmaps show the input and the generated tokens', async () => (await g.getAttribute('data-stages')) === 'generated'
      && (await g.getAttribute('data-stages-row')) === String(INPUT.length + step)
      && new RegExp(`(^|\\s)${INPUT.length + cancelled.done} tokens`).test(await view.locator('.panel-header').innerText()), { timeoutMs: 60_000 });
    assert.equal(await view.locator('.card[data-stage-id="head.logits"] .hm-band').isVisible(), true, 'the picked row\'s band on the logits');
    await view.locator('.card[data-stage-id="head.logits"]').scrollIntoViewIfNeeded();
    await wb.screenshot('web-generation-token-stages');
  });
});
