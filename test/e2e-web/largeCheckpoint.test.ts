// The GPT-2-small-shaped checkpoint (the New Model File… preset: 124M parameters, 498 MB of float32
// in model.safetensors) in the web worker extension host, where the compute worker asks the host
// for its files: the read is streamed to the worker with its progress in percent (the notification
// and the panel's notice say it), and the panel computes the model. Then the panel is restored
// across reloads between the hosts (web → Node → web): the saved file's URI is the other host's
// (vscode-remote://… against file://…), and the panel still finds its file.
// Run: node scripts/run-e2e.mjs --settings test/e2e-web/settings.json --files out/test/e2e-web/largeCheckpoint.test.js
import * as assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { GPT2_SMALL_FOLDER, writeGpt2SmallCheckpoint } from '../e2e/lib/gpt2Checkpoint';
import { Workbench } from '../e2e/lib/workbench';

const FILE = 'gpt2-small.ffn.json';
const TEXT = `{\n  "version": 1,\n  "name": "GPT-2 small (random weights)",\n  "checkpoint": "./${GPT2_SMALL_FOLDER}",\n  "prompt": "Michael Jordan plays the sport of"\n}\n`;
const TITLE = 'FFN Lens: GPT-2 small (random weights)';
const WEB = { 'ffn-lens.ffn-lens': ['web'] };

describe('a 498 MB checkpoint in the web worker extension host', function () {
  this.timeout(900_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'web-large-checkpoint', files: { [FILE]: TEXT }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 120_000 });
    writeGpt2SmallCheckpoint(wb.folder);
  });
  after(async () => {
    await wb?.updateUserSettings({ 'remote.extensionKind': WEB }, { reload: false }).catch(() => undefined);
    await wb?.close();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`web-large-checkpoint-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  /** The prediction's caption once it matches; null after `ms`. */
  async function caption(ms: number): Promise<string | null> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const view = await wb.webview(TITLE, { timeoutMs: 60_000 }).catch(() => null);
      const text = view ? await view.locator('.probs-chart .chart-caption').innerText({ timeout: 2_000 }).catch(() => '') : '';
      if (/After "·of", the model predicts/.test(text)) return text;
      if (view && (await view.locator('text=could not restore').count()) > 0) return null;
      await wb.page.waitForTimeout(500);
    }
    return null;
  }

  /** Records every text the panel's notice line shows (a MutationObserver in the webview). */
  async function recordNotices(): Promise<() => Promise<string[]>> {
    // (titled after the file until the model's name comes with its first render)
    const frame = await wb.webviewFrame('FFN Lens', { timeoutMs: 60_000 });
    await frame.evaluate(() => {
      const g = globalThis as any;
      const seen: string[] = g.__ffnNotices = [];
      const take = (): void => {
        for (const el of g.document.querySelectorAll('.notice')) {
          const t = (el.textContent ?? '').trim();
          if (t && seen[seen.length - 1] !== t) seen.push(t);
          if (/ % of/.test(t)) g.__ffnFirstPercentAt ??= Date.now();
        }
      };
      new g.MutationObserver(take).observe(g.document.body, { childList: true, subtree: true, characterData: true });
      take();
    });
    return () => frame.evaluate(() => [...((globalThis as any).__ffnNotices ?? [])] as string[]);
  }

  it('opens: model.safetensors streamed to the worker with its percentage in the notification and the panel, then the 12-layer model computed (timed)', async () => {
    const size = statSync(join(wb.folder, GPT2_SMALL_FOLDER, 'model.safetensors')).size;
    assert.ok(size > 490e6, `${size} bytes`);
    await wb.recordNotifications();
    await wb.openFile(FILE);
    const t0 = Date.now();
    await wb.runCommand('FFN Lens: Visualize FFN');
    const notices = await recordNotices();
    const shot = setTimeout(() => void wb.screenshot('web-large-checkpoint-reading').catch(() => undefined), 15_000);
    const said = await caption(600_000);
    clearTimeout(shot);
    const ms = Date.now() - t0;
    const toasts = await wb.recordedNotifications();
    const inPanel = await notices();
    console.log(`      498 MB checkpoint, web worker host: the prediction after ${(ms / 1000).toFixed(1)} s (${(size / 1e3 / ms).toFixed(1)} MB/s overall)`);
    console.log(`      notifications: ${JSON.stringify(toasts.filter((t) => /reading/.test(t)).slice(0, 3))} … ${JSON.stringify(toasts.filter((t) => /reading/.test(t)).slice(-1))}`);
    console.log(`      the panel said: ${JSON.stringify(inPanel.filter((t) => / % of/.test(t)).slice(-1))} (${inPanel.length} notices)`);
    assert.ok(said, `the panel computed the model (notices: ${JSON.stringify(inPanel.slice(-3))}; notifications: ${JSON.stringify(toasts.slice(-3))})`);
    // (only the web host asks its host for files: the notification says the read, with its percentage)
    const pcts = toasts.map((t) => /FFN Lens: reading model\.safetensors \(498 MB\): (\d+) %/.exec(t)).filter((m) => m !== null).map((m) => Number(m![1]));
    assert.ok(pcts.length >= 2 && Math.max(...pcts) >= 90, `the read's progress in percent; seen: ${JSON.stringify(toasts)}`);
    const inPanelPcts = inPanel.map((t) => /Reading the checkpoint \.\/gpt2-small-random: model\.safetensors, (\d+) % of 498 MB/.exec(t)).filter((m) => m !== null).map((m) => Number(m![1]));
    assert.ok(inPanelPcts.length >= 2, `the panel said how far the read is; it said: ${JSON.stringify(inPanel)}`);
    // the model is GPT-2's: 12 layers in the stream map
    const frame = await wb.webviewFrame(TITLE);
    const px = await wb.readCanvas(frame, '.stream-map .hm-canvas');
    assert.deepEqual([px.width, px.height], [6, 12], '6 tokens × 12 layers');
    await wb.screenshot('web-large-checkpoint-open');
  });

  it('its panel is restored across reloads into the other host and back (web → Node → web): its file found, the model computed', async () => {
    // (the panel's state is saved as the web host names its file: vscode-remote://…)
    await wb.updateUserSettings({ 'remote.extensionKind': {} });
    assert.ok(await caption(300_000), 'restored in the Node host: the model computed');
    await wb.screenshot('web-large-checkpoint-restored-node');
    // and back: the state the Node host saved names file:///…
    await wb.updateUserSettings({ 'remote.extensionKind': WEB });
    const view = await wb.webview(TITLE, { timeoutMs: 120_000 });
    const gone = view.locator('text=could not restore');
    const said = await caption(600_000);
    await wb.screenshot('web-large-checkpoint-restored-web');
    assert.equal(await gone.count(), 0, 'the panel found its model file');
    assert.ok(said, 'restored in the web worker host: the model computed');
  });
});
