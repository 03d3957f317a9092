// A GPT-2-small-shaped checkpoint in a real VS Code, as a user opens one: the random-weight preset
// (124M parameters, 498 MB of float32 in model.safetensors, Hugging Face's layout) with GPT-2's
// tokenizer.json, and a model file with a prompt. The panel computes it (12 layers, the
// residual-stream map), follows an edit of the prompt (one token more), and an "ablate" entry
// typed by hand changes the prediction.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { acceptFileDialog, chooseMenuItem, npyComplete, writtenFile } from './lib/dialogs';
import { edit, renderedVersion } from './lib/editor';
import { writeGpt2SmallCheckpoint } from './lib/gpt2Checkpoint';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

const FILE = 'gpt2-small.ffn.json';
const TEXT = `{
  // a GPT-2-small-shaped checkpoint with random weights
  "version": 1,
  "name": "GPT-2 small (random weights)",
  "checkpoint": "./gpt2-small-random",
  "prompt": "Michael Jordan plays the sport of"
}
`;
const TITLE = 'FFN Lens: GPT-2 small (random weights)';

describe('a GPT-2-small-shaped checkpoint in a real VS Code', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'gpt2-checkpoint', files: { [FILE]: TEXT }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 120_000 });
    // the checkpoint folder beside the file, written as "New Model File…" writes it
    writeGpt2SmallCheckpoint(wb.folder);
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`gpt2-checkpoint-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function caption(match: RegExp, ms = 120_000): Promise<string> {
    const c = (await wb.webview(TITLE, { timeoutMs: ms })).locator('.probs-chart .chart-caption');
    let text = '';
    return until(`the prediction to match ${match}`, async () => {
      text = await c.innerText().catch(() => '');
      return match.test(text) && text;
    }, { timeoutMs: ms, everyMs: 200, describe: () => `it reads: ${text}` });
  }

  /** The document's text at its latest edit (each test's edit appends to it). */
  let doc = TEXT;

  let first = '';

  it('opens: the prompt tokenized with GPT-2\'s tokenizer, 12 layers in the stream map, a prediction over 50,257 words', async () => {
    await wb.visualize(FILE, TITLE, { timeoutMs: 120_000 });
    first = await caption(/After "·of", the model predicts/);
    assert.match(first, /of 50257 words|50,257/);
    const frame = await wb.webviewFrame(TITLE);
    const px = await wb.readCanvas(frame, '.stream-map .hm-canvas');
    assert.deepEqual([px.width, px.height], [6, 12], '6 tokens × 12 layers');
    // (a render that takes a while says how far it is in the header; once complete, nothing)
    await (await wb.webview(TITLE)).locator('.render-progress').waitFor({ state: 'hidden', timeout: 30_000 });
    await wb.screenshot('gpt2-checkpoint-open');
  });

  it('follows an edit of the prompt: one word more, the prediction is after it', async () => {
    const lines = TEXT.split('\n');
    const line = lines.findIndex((l) => l.includes('"prompt"')) + 1;
    const col = lines[line - 1].indexOf(' of"') + 4;
    await edit(wb, { file: FILE, line, col, text: ' basketball', panel: await wb.webview(TITLE), timeoutMs: 120_000 });
    doc = doc.replace(' of"', ' of basketball"');
    await caption(/After "·basketball"/);
  });

  it('an "ablate" entry typed by hand changes the prediction (the top words\' probabilities)', async () => {
    await caption(/After "·basketball"/);
    const frame = await wb.webviewFrame(TITLE);
    // (random weights: every word near 1/50,257; the chart's label lists the top 12 with two digits each)
    const logits = async (): Promise<string> => (await frame.locator('.probs-chart canvas').first().getAttribute('aria-label')) ?? '';
    const before = await logits();
    const lines = doc.split('\n');
    const line = lines.findIndex((l) => l.includes('"checkpoint"')) + 1;
    // (typed at the end of the "checkpoint" line, inserted as a paste is: the editor's auto-closing
    // of brackets, which depends on the typing's timing, does not come into it)
    const ablate = ' "ablate": ["layers.11.attn.head.0", "layers.11.attn.head.1", "layers.11.attn.head.2", "layers.11.attn.head.3"],';
    const { version } = await edit(wb, { file: FILE, line, text: ablate, insert: true, panel: await wb.webview(TITLE), timeoutMs: 120_000 });
    lines[line - 1] += ablate;
    doc = lines.join('\n');
    const after = await until(`the prediction of version ${version} drawn`, async () => {
      const a = await logits();
      return a !== before && (await renderedVersion(frame)) >= version && a;
    }, { timeoutMs: 120_000, everyMs: 300 });
    assert.notEqual(after, before, 'the top words\' probabilities changed');
    await wb.screenshot('gpt2-checkpoint-ablate');
  });

  it('the lenses at GPT-2-small scale: the logit lens grid (12 layers × 7 tokens) ends in the prediction, the attribution adds up, patching a corrupted prompt recovers at the changed token', async () => {
    const view = await wb.webview(TITLE);
    const frame = await wb.webviewFrame(TITLE);
    // a corrupted prompt of as many tokens, typed in as a user would (at the end of the "checkpoint" line)
    const lines = doc.split('\n');
    const line = lines.findIndex((l) => l.includes('"checkpoint"')) + 1;
    const corrupted = ' "corrupted_prompt": "Michael Jordan plays the sport of football",';
    await edit(wb, { file: FILE, line, text: corrupted, insert: true, panel: view, timeoutMs: 120_000 });
    lines[line - 1] += corrupted;
    doc = lines.join('\n');
    const section = view.locator('vscode-collapsible[data-section="lenses"]');
    await section.evaluate((el: any) => { el.open = true; el.dispatchEvent(new CustomEvent('vsc-collapsible-toggle', { detail: { open: true } })); });
    await view.locator('vscode-tab-header[data-lens="logitLens"]').click();
    const cells = view.locator('.lens-cell');
    await until('12 layers × 7 tokens in the lens grid', async () => (await cells.count()) === 84, { timeoutMs: 120_000, everyMs: 300 });
    const top = await view.locator('.lens-cell[data-layer="11"][data-token="6"]').innerText();
    const cap = await caption(/After "·basketball"/);
    assert.ok(cap.includes(`predicts "${top}"`), `the last layer's lens (${top}) is the prediction: ${cap}`);
    await section.scrollIntoViewIfNeeded();
    await wb.screenshot('gpt2-checkpoint-logit-lens');

    await view.locator('vscode-tab-header[data-lens="dla"]').click();
    const head = view.locator('.lens-dla .lens-headline');
    await head.waitFor({ timeout: 60_000 });
    const diff = Number(await head.getAttribute('data-logit-diff'));
    const sum = Number(await head.getAttribute('data-sum'));
    assert.ok(Math.abs(sum - diff) <= 1e-3 * Math.max(1, Math.abs(diff)), `Σ parts ${sum} vs ${diff}`);
    await wb.screenshot('gpt2-checkpoint-attribution');

    await view.locator('vscode-tab-header[data-lens="patch"]').click();
    await view.locator('.lens-patch .patch-resid').click();
    await until('the patching result', async () => (await view.locator('.lens-patch .lens-headline').count()) > 0, { timeoutMs: 180_000, everyMs: 300 });
    const px = await wb.readCanvas(frame, '.lens-patch .hm canvas');
    assert.deepEqual([px.width, px.height], [7, 12]);
    const at = (l: number, t: number): string => px.data.slice((l * 7 + t) * 4, (l * 7 + t) * 4 + 3).join();
    for (let t = 0; t < 6; t++) assert.equal(at(0, t), at(0, 0), `layer 0, token ${t}: the same in both prompts, 0 %`);
    assert.notEqual(at(0, 6), at(0, 0), 'layer 0, "·basketball": recovered');
    await wb.screenshot('gpt2-checkpoint-patching');
  });

  it('the head across 50,257 words comes pooled to the heatmap\'s width: a cell names its block of words and the word of its value; its .npy export holds every number (from the worker)', async () => {
    const view = await wb.webview(TITLE);
    const frame = await wb.webviewFrame(TITLE);
    const card = view.locator('section.card[data-stage-id="head.logits"]');
    await card.locator('.hm-canvas').scrollIntoViewIfNeeded();
    const px = await wb.readCanvas(frame, 'section.card[data-stage-id="head.logits"] .hm-canvas');
    assert.ok(px.width > 100 && px.width <= 1024 && px.height === 7, `${px.width} × ${px.height}`);
    const box = (await card.locator('.hm-canvas').boundingBox())!;
    await card.locator('.hm-canvas').hover({ position: { x: box.width * 0.5, y: box.height * (6.5 / 7) } });
    const tip = view.locator('.tooltip');
    await tip.waitFor({ state: 'visible' });
    const said = await tip.innerText();
    assert.match(said, /token "·basketball" \(row 6\) · word ".*" \(\d+\)/);
    assert.match(said, /pooled cell: words \d+–\d+; the largest \|value\| is shown/);
    const w = Number(/ · word ".*" \((\d+)\)/.exec(said)![1]);
    const [a, b] = /words (\d+)–(\d+)/.exec(said)!.slice(1).map(Number);
    assert.ok(a <= w && w <= b && b - a < 400, `word ${w} in ${a}–${b}`);
    await wb.screenshot('gpt2-checkpoint-head-pooled-tooltip');
    // the export: the whole stage, [7, 50257]; its last row's softmax is the prediction's caption
    const path = join(wb.folder, 'gpt2-small.head.logits.npy');
    await card.click({ button: 'right', position: { x: 40, y: 10 } });
    await chooseMenuItem(wb, 'Export Stage as .npy');
    await acceptFileDialog(wb, (v) => v.endsWith('.npy'), { fill: path });
    const npy = await writtenFile(path, npyComplete, 120_000);
    const hl = npy[8] + 256 * npy[9];
    assert.match(npy.subarray(10, 10 + hl).toString('latin1'), /'shape': \(7, 50257\)/);
    const logits = new Float32Array(npy.buffer.slice(npy.byteOffset + 10 + hl, npy.byteOffset + npy.length));
    assert.equal(logits.length, 7 * 50257);
    const last = logits.subarray(6 * 50257);
    const max = last.reduce((m, v) => Math.max(m, v), -Infinity);
    const p = 1 / last.reduce((s, v) => s + Math.exp(v - max), 0);
    const cap = await caption(/After "·basketball"/);
    const shown = Number(/predicts "[^"]*" \(([\d.]+)%\)/.exec(cap)![1]);
    assert.ok(Math.abs(shown - p * 100) < 0.06 * Math.max(1, shown), `the caption's ${shown} % against the exported logits' ${p * 100} %`);
  });
});
