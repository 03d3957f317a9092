// A real trained model in a real VS Code: the stories260K sample (a Llama-architecture checkpoint
// in the Hugging Face layout, beside its model file) opens in the panel, predicts "," (id 432)
// after "<s> Once upon a time" as the command line does, and follows an edit of its input.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { edit, renderedVersion } from './lib/editor';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

const SAMPLES = join(__dirname, '..', '..', '..', 'samples');
const FILE = 'stories260K.ffn.json';
const TITLE = 'FFN Lens: stories260K (TinyStories, Llama architecture)';
const TEXT = readFileSync(join(SAMPLES, FILE), 'utf8');
const folder = (f: string): Uint8Array => readFileSync(join(SAMPLES, 'stories260K', f));

describe('a checkpoint (stories260K) in a real VS Code', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'checkpoint',
      files: { [FILE]: TEXT, 'stories260K/config.json': folder('config.json'), 'stories260K/model.safetensors': folder('model.safetensors') },
      waitForFile: FILE, viewport: { width: 1600, height: 1000 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`checkpoint-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function prediction(match: RegExp): Promise<string> {
    const caption = (await wb.webview(TITLE)).locator('.probs-chart .chart-caption');
    let text = '';
    return until(`the prediction to match ${match}`, async () => {
      text = await caption.innerText().catch(() => '');
      return match.test(text) && text;
    }, { describe: () => `it reads: ${text}` });
  }

  it('opens and predicts "#432" (",") after "Once upon a time", 96.9 %, as ffn-lens stages computes', async () => {
    await wb.visualize(FILE, TITLE);
    const caption = await prediction(/#432/);
    assert.match(caption, /96\.9\s?%/);
    await wb.screenshot('checkpoint-stories260K');
  });

  it('a deep model (5 layers): the residual-stream map draws 5 layers × 5 tokens, the layers start closed, a click on the map opens that layer and its cards are drawn', async () => {
    const view = await wb.webview(TITLE);
    const frame = await wb.webviewFrame(TITLE);
    const map = view.locator('.stream-map .hm-canvas');
    await map.waitFor();
    const px = await until('the stream map painted', async () => {
      const p = await wb.readCanvas(frame, '.stream-map .hm-canvas');
      return p.data.filter((_, i) => i % 4 === 3 && p.data[i] > 0).length >= p.width * p.height * 0.9 && p;
    });
    // one pixel per cell: 5 tokens wide, 5 layers tall (before the CSS scaling), every cell painted
    assert.deepEqual([px.width, px.height], [5, 5]);
    const colors = new Set<string>();
    for (let i = 0; i < px.data.length; i += 4) { assert.equal(px.data[i + 3], 255, 'every cell painted'); colors.add(px.data.slice(i, i + 3).join(',')); }
    assert.ok(colors.size >= 5, `the norms differ: ${colors.size} colours`);
    // layers start closed
    const layer3 = view.locator('vscode-collapsible[data-section="layer3"]');
    assert.equal(await layer3.evaluate((el: any) => el.open), false);
    // click the map's row of layer 3 (the middle of its cell band)
    const box = (await map.boundingBox())!;
    await map.click({ position: { x: box.width / 2, y: (3.5 / 5) * box.height } });
    await until('layer 3 open', () => layer3.evaluate((el: any) => el.open === true));
    assert.equal(await layer3.evaluate((el: any) => el.open), true, 'layer 3 opened');
    // its FFN activation card gets its numbers (sent when the panel asked for them)
    const act = view.locator('[data-stage-id="layers.3.ffn.act"] canvas').first();
    await act.waitFor();
    const a = await until('the layer\'s activation drawn', async () => {
      const p = await wb.readCanvas(frame, '[data-stage-id="layers.3.ffn.act"] canvas');
      return p.data.some((v, i) => i % 4 === 3 && v > 0) && p;
    });
    assert.ok(a.data.some((v, i) => i % 4 === 3 && v > 0), 'the layer\'s activation is drawn');
    // the layer's heading is brought to the top (not its last card, which its stages push down as
    // they arrive), and the layer picker says which layer it is
    let top = Number.NaN;
    await until('layer 3\'s heading at the top', async () => {
      top = await layer3.evaluate((el: any) => el.getBoundingClientRect().top - ((globalThis as any).document.querySelector('.panel-header')?.getBoundingClientRect().bottom ?? 0));
      return Math.abs(top) < 40;
    }, { describe: () => `it is at ${top} px` });
    assert.ok(Math.abs(top) < 40, `layer 3's heading at the top of the view, below the panel's header: ${top} px`);
    assert.equal(await view.locator('.layer-select').evaluate((el: any) => el.value), '3', 'the layer picker follows the map');
    await wb.screenshot('checkpoint-stories260K-stream-map');
  });

  it('follows an edit of token_ids: after appending 432 (",") it predicts 383, as llama2.c continues', async () => {
    const line = TEXT.split('\n').findIndex((l) => l.includes('"token_ids"')) + 1;
    const col = TEXT.split('\n')[line - 1].indexOf('378') + 4;
    await edit(wb, { file: FILE, line, col, text: ', 432', panel: await wb.webview(TITLE) });
    // (greedy decoding from BOS goes on 432 383: llama2.c's continuation)
    const caption = await prediction(/predicts "#383"/);
    assert.match(caption, /After "#432"/);
    // the lens above token_ids follows to the same text (VS Code asks for lenses again once the run is done)
    const lenses = (): Promise<string[]> => wb.page.locator('.codelens-decoration').allInnerTexts();
    await until('the code lens above token_ids counts the 6 tokens', async () => (await lenses()).some((t) => /^6 tokens: #1 #403 #407 #261 #378 #432/.test(t)), { describe: async () => `lenses: ${JSON.stringify(await lenses())}` });
    await wb.screenshot('checkpoint-stories260K-edited');
  });

  it('"lens": true → false: the panel is built anew without the lens stages, and every card it shows is drawn again', async () => {
    const line = TEXT.split('\n').findIndex((l) => /"lens": true/.test(l)) + 1;
    const col = TEXT.split('\n')[line - 1].indexOf('true') + 1;
    const view = await wb.webview(TITLE);
    await edit(wb, { file: FILE, line, col, select: 4, text: 'false', panel: view });
    await view.locator('section.card[data-stage-id="layers.0.lens.logits"]').waitFor({ state: 'detached', timeout: 60_000 });
    // (the stages the edit did not change came as "kept" to cards built anew: they waited forever)
    for (const id of ['input', 'layers.0.out', 'layers.4.out', 'head.probs']) {
      await view.locator(`section.card[data-stage-id="${id}"][data-state="drawn"]`).waitFor({ state: 'attached', timeout: 60_000 });
    }
    await prediction(/predicts "#383"/);
    await wb.screenshot('checkpoint-stories260K-lens-off');
  });

  it('a long input (400 tokens): while the render comes the header says how far it is, then nothing', async () => {
    const line = TEXT.split('\n').findIndex((l) => l.includes('"token_ids"')) + 1;
    // (the line as the edit before left it: ", 432" appended to its ids)
    const old = TEXT.split('\n')[line - 1].replace('378', '378, 432');
    const ids = Array.from({ length: 400 }, (_, i) => [1, 403, 407, 261, 378, 432][i % 6]);
    const view = await wb.webview(TITLE);
    const progress = view.locator('.render-progress');
    const before = await renderedVersion(view);
    await edit(wb, { file: FILE, line, col: 1, select: old.length, text: `  "token_ids": [${ids.join(', ')}],`, insert: true });
    // The header says how far a render is once it has taken 400 ms (webview/renderProgress.ts, its
    // unit test): a render of stories260K's 400 tokens can be done sooner, so it is read if shown.
    const shownOrDone = await until('the progress shown, or the render drawn', async () =>
      (await progress.isVisible()) ? 'shown' : (await renderedVersion(view)) > before ? 'done' : null, { timeoutMs: 60_000 });
    if (shownOrDone === 'shown') {
      assert.match(await progress.innerText(), /^(computing…|\d+ of \d+ stages…)$/);
      await wb.screenshot('checkpoint-stories260K-long-input-progress');
    }
    await progress.waitFor({ state: 'hidden', timeout: 120_000 });
    await view.locator('section.card[data-stage-id="head.probs"][data-state="drawn"]').waitFor({ state: 'attached', timeout: 30_000 });
    // every few rows named, each with its index (the input repeats: "#1 #1 #1…" said nothing)
    const labels = await view.locator('section.card[data-stage-id="input"] .hm-row-label').allInnerTexts();
    assert.ok(labels.length > 4 && labels.length < 400, `${labels.length} row labels`);
    const step = Number(labels[1].split(' ')[0]);
    assert.deepEqual(labels.slice(0, 3), ['0 #1', `${step} ${['#1', '#403', '#407', '#261', '#378', '#432'][step % 6]}`, `${2 * step} ${['#1', '#403', '#407', '#261', '#378', '#432'][(2 * step) % 6]}`]);
    await wb.screenshot('checkpoint-stories260K-long-input');
  });
});
