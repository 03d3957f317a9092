// Steering in a real VS Code: a model file with a "steer" (a contrast of two prompts, ActAdd) on a
// small Llama checkpoint; the panel's Compare with offers "this file without its steer", which
// shows the stages after the steered one as differences (none before it) and the prediction's bars
// steered and unsteered side by side; an edit of alpha to 0 makes every difference zero.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { barsSideBySide, chooseCompare, folderWithStories, stageCanvas, uniformCanvas } from './lib/compare';
import { edit } from './lib/editor';
import { until as waitUntil } from './lib/until';
import { Workbench } from './lib/workbench';

const ROOT = join(__dirname, '..', '..', '..');
const FILE = 'steer.ffn.json';
const TITLE = 'FFN Lens: steered';
const TEXT = `{
  "version": 1,
  "name": "steered",
  "checkpoint": "./stories260K",
  "tokenizer": "./tokenizer.json",
  "prompt": "the cat sat on the mat",
  "steer": {
    "layers.2.out": { "contrast": ["love", "hate"], "alpha": 40 }
  }
}
`;

describe('steer: compare the steered prediction with the unsteered one', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    // (a WordPiece of whole words with a BOS, ids inside stories260K's 512: test/fixtures/steer-cases)
    const folder = folderWithStories('steer', { [FILE]: TEXT, 'tokenizer.json': { copy: join(ROOT, 'test', 'fixtures', 'steer-cases', 'tokenizer-llama.json') } });
    wb = await Workbench.open({ name: 'steer', folder, waitForFile: FILE, viewport: { width: 1600, height: 1000 } });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`steer-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  const until = <T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> => waitUntil(what, f, { timeoutMs: ms, everyMs: 150 });

  const uniform = async (sel: string): Promise<boolean> => uniformCanvas(wb, await wb.webviewFrame(TITLE), sel);

  it('offers "without its steer"; the logits differ, layer 1 does not; the bars show both', async () => {
    const panel = await wb.visualize(FILE, TITLE);
    const view = await wb.webview(TITLE);
    // (offered once the panel has the plan, which has the steered stage)
    const options = await until('"without its steer" offered', async () => {
      const o = await view.locator('.compare-select vscode-option').evaluateAll((els: any[]) => els.map((e) => e.getAttribute('value') as string));
      return o.includes('unsteered') && o;
    });
    assert.deepEqual(options.filter((o) => o !== 'head'), ['none', 'plain', 'unsteered', 'file']);
    await chooseCompare(view, 'unsteered');
    await until('the note says without its steer', async () => /without its steer/.test(await view.locator('.compare-note').innerText()));
    await until('the logits differ from the unsteered ones', async () => !(await uniform(stageCanvas('head.logits'))));
    assert.ok(await uniform(stageCanvas('layers.1.out')), 'layer 1 (before the steer) as unsteered');
    await wb.screenshot('steer-compare');
    await barsSideBySide(view);
    await wb.screenshot('steer-compare-prediction');
    // alpha 0: x + 0·v is x, every difference zero
    const line = TEXT.split('\n').findIndex((l) => l.includes('"alpha"')) + 1;
    const col = TEXT.split('\n')[line - 1].indexOf('40 }') + 1;
    await edit(wb, { file: FILE, line, col, select: 2, text: '0', panel });
    await until('the logits as unsteered', async () => uniform(stageCanvas('head.logits')));
    await wb.screenshot('steer-alpha-0');
  });
});
