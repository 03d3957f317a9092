// The research lenses in a real VS Code, on stories260K (a real trained model): the logit lens
// grid names in each cell the word the worker's lens computes (checked here against the same
// lens run in this process on the same files), the attribution's parts add up to the logit
// difference it shows, the head scores draw and the induction test adds its grid, patching runs
// with its progress and draws the share recovered (read from the canvas' pixels), and the lenses
// follow an edit of the model file.
import * as assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';
import { forward } from '../../src/core/forward';
import { tsKernel } from '../../src/core/kernel';
import { readModel } from '../../src/model/read';
import { runOf } from '../../src/lenses/cache';
import { directLogitAttribution } from '../../src/lenses/dla';
import { logitLensGrid } from '../../src/lenses/logitLens';
import { acceptFileDialog, chooseMenuItem, npyComplete, pngComplete, writtenFile } from './lib/dialogs';
import { chooseCompare, uniformCanvas } from './lib/compare';
import { edit, renderedVersion, savedText } from './lib/editor';
import { until as waitUntil } from './lib/until';
import { Workbench } from './lib/workbench';

const SAMPLES = join(__dirname, '..', '..', '..', 'samples');
const FILE = 'lenses.ffn.json';
const TITLE = 'FFN Lens: stories260K lenses';
const TEXT = `{
  "version": 1,
  "name": "stories260K lenses",
  "checkpoint": "./stories260K",
  "token_ids": [1, 403, 407, 261, 378, 432, 285],
  "corrupted_token_ids": [1, 403, 407, 261, 300, 432, 285],
  "lens": true
}
`;
const folder = (f: string): Uint8Array => readFileSync(join(SAMPLES, 'stories260K', f));

async function expected(text: string) {
  const path = join(SAMPLES, 'x.ffn.json');
  const r = await resolveReadNow(readModel(text, path), path, new CheckpointStore(nodeFiles), new CheckpointResolver());
  const model = r.file!.model;
  const run = runOf(model, forward(model, tsKernel));
  return { lens: logitLensGrid(run, 5), dla: directLogitAttribution(run, { alt: 'second' }), T: model.spec.T, L: model.spec.layers.length };
}

describe('the research lenses (stories260K) in a real VS Code', function () {
  this.timeout(240_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'lenses',
      files: { [FILE]: TEXT, 'stories260K/config.json': folder('config.json'), 'stories260K/model.safetensors': folder('model.safetensors') },
      waitForFile: FILE, viewport: { width: 1600, height: 1100 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`lenses-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  const until = <T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> => waitUntil(what, f, { timeoutMs: ms, everyMs: 150 });

  /** The document's text at its latest edit, and the version the panel drew for it. */
  let doc = { text: TEXT, version: -1 };

  async function tab(name: string): Promise<void> {
    const view = await wb.webview(TITLE);
    await view.locator(`vscode-tab-header[data-lens="${name}"]`).click();
  }

  it('the logit lens: a layer × token grid whose cells name the lens\'s top words, as computed in this process', async () => {
    await wb.visualize(FILE, TITLE);
    const view = await wb.webview(TITLE);
    const want = await expected(TEXT);
    const section = view.locator('vscode-collapsible[data-section="lenses"]');
    await section.waitFor();
    await section.evaluate((el: any) => { el.open = true; el.dispatchEvent(new CustomEvent('vsc-collapsible-toggle', { detail: { open: true } })); });
    await tab('logitLens');
    const cells = view.locator('.lens-cell');
    await until('the lens grid', async () => (await cells.count()) === want.L * want.T);
    for (let l = 0; l < want.L; l++) {
      for (let t = 0; t < want.T; t++) {
        const cell = view.locator(`.lens-cell[data-layer="${l}"][data-token="${t}"]`);
        assert.equal(Number(await cell.getAttribute('data-top')), want.lens.cells[l][t].top[0][0], `layer ${l} token ${t}`);
        assert.ok(Math.abs(Number(await cell.getAttribute('data-p')) - want.lens.cells[l][t].top[0][1]) < 1e-3);
      }
    }
    await section.scrollIntoViewIfNeeded();
    await wb.screenshot('lenses-logit-lens');
  });

  it('attribution: the parts add up to the logit difference shown, which is the one computed here', async () => {
    const view = await wb.webview(TITLE);
    const want = await expected(TEXT);
    await tab('dla');
    const head = view.locator('.lens-dla .lens-headline');
    await head.waitFor();
    const diff = Number(await head.getAttribute('data-logit-diff'));
    const sum = Number(await head.getAttribute('data-sum'));
    assert.ok(Math.abs(diff - want.dla.logitDiff) < 1e-4, `${diff} vs ${want.dla.logitDiff}`);
    assert.ok(Math.abs(sum - diff) < 1e-4, `Σ parts ${sum} vs ${diff}`);
    assert.ok((await view.locator('.lens-dla .dla-bar').count()) >= 12);
    // the heads' grid: one pixel per head, 5 layers × 8 heads, diverging colours
    const frame = await wb.webviewFrame(TITLE);
    const px = await until('the heads grid', async () => {
      const p = await wb.readCanvas(frame, '.lens-dla .dla-grid canvas');
      return p.width === 8 && p.height === 5 && p.data.some((v, i) => i % 4 === 3 && v > 0) ? p : null;
    });
    assert.ok(new Set(Array.from({ length: 40 }, (_, i) => px.data.slice(i * 4, i * 4 + 3).join())).size > 10, 'the heads differ');
    await wb.screenshot('lenses-attribution');
    // a word beyond the pickers' top ones, typed as its id: the attribution of that word
    await view.locator('.dla-any-word[aria-label="any word as Word"]').evaluate((el: any) => { el.value = '#100'; el.dispatchEvent(new Event('change')); });
    await until('the attribution of #100', async () => /^logit\(#100\)/.test(await head.innerText()));
    const r = await resolveReadNow(readModel(TEXT, join(SAMPLES, 'x.ffn.json')), join(SAMPLES, 'x.ffn.json'), new CheckpointStore(nodeFiles), new CheckpointResolver());
    const m = r.file!.model;
    const of100 = directLogitAttribution(runOf(m, forward(m, tsKernel)), { target: 100, alt: 'second' });
    const got = Number(await head.getAttribute('data-logit-diff'));
    assert.ok(Math.abs(got - of100.logitDiff) < 1e-4, `${got} vs ${of100.logitDiff}`);
  });

  it('heads: three score grids, and the induction test adds its own', async () => {
    const view = await wb.webview(TITLE);
    await tab('heads');
    await until('the head grids', async () => (await view.locator('.lens-heads .heads-grid').count()) === 3);
    // each grid names its 8 heads; no token of this input repeats, which the panel says
    await until('the heads named', async () => (await view.locator('.lens-heads .heads-grid[data-kind="prev"] .hm-col-label').allInnerTexts()).join(' ') === '0 1 2 3 4 5 6 7');
    assert.match(await view.locator('.lens-heads .lens-controls').innerText(), /No token occurs twice in this prompt/);
    await view.locator('.lens-heads vscode-button').click();
    await until('the induction test grid', async () => (await view.locator('.lens-heads .heads-grid[data-kind="repeat"]').count()) === 1);
    // (stories260K's config.json names its BOS: the test starts with it)
    assert.equal(await view.locator('.lens-heads .heads-grid[data-kind="repeat"] h4').innerText(), 'Induction test (20 random tokens, twice, after BOS)');
    await view.locator('.lens-heads .heads-grid[data-kind="induction"] canvas').hover();
    await until('the pattern on hover', async () => (await view.locator('.lens-heads .heads-pattern canvas').count()) === 1);
    await wb.screenshot('lenses-heads');
  });

  it('patching: runs with progress, and the residual stream at the changed token recovers 100 % at layer 0 (pixels)', async () => {
    const view = await wb.webview(TITLE);
    await tab('patch');
    await view.locator('.lens-patch .patch-resid').click();
    const frame = await wb.webviewFrame(TITLE);
    const head = view.locator('.lens-patch .lens-headline');
    await until('the patching result', async () => (await head.count()) === 1, 60_000);
    const px = await wb.readCanvas(frame, '.lens-patch .hm canvas');
    assert.deepEqual([px.width, px.height], [7, 5]);
    const at = (l: number, t: number): string => px.data.slice((l * 7 + t) * 4, (l * 7 + t) * 4 + 3).join();
    // layer 0: positions before the changed one (4) are the same in both runs: 0, the centre colour;
    // the changed one recovers everything: the top of the scale (range ±max(1, |share|))
    for (let t = 0; t < 4; t++) assert.equal(at(0, t), at(0, 0), `layer 0, token ${t}: 0 %`);
    assert.notEqual(at(0, 4), at(0, 0), 'layer 0, token 4: recovered');
    // the second view, each head, on its own run: a 5 × 8 grid beside the first
    await view.locator('.lens-patch .patch-heads').click();
    await until('the heads view', async () => (await view.locator('.lens-patch .hm canvas').count()) === 2, 60_000);
    const hp = await until('the heads grid drawn', async () => {
      const p = await wb.readCanvas(frame, '.lens-patch .hm-small canvas');
      return p.width === 8 && p.height === 5 ? p : null;
    });
    assert.ok(new Set(Array.from({ length: 40 }, (_, i) => hp.data.slice(i * 4, i * 4 + 3).join())).size > 5, 'the heads differ');
    await wb.screenshot('lenses-patching');
  });

  it('the lenses follow an edit of the model file (the input changes: the lens grid with it)', async () => {
    const view = await wb.webview(TITLE);
    await tab('logitLens');
    const cell = view.locator('.lens-cell[data-layer="4"][data-token="6"]');
    const before = await cell.getAttribute('data-top');
    const text2 = TEXT.replace('[1, 403, 407, 261, 378, 432, 285]', '[1, 403, 407, 261, 378, 432, 300]');
    const want = await expected(text2);
    const lines = TEXT.split('\n');
    const line = lines.findIndex((l) => l.includes('"token_ids"')) + 1;
    const col = lines[line - 1].indexOf('285') + 1;
    const { version } = await edit(wb, { file: FILE, line, col, select: 3, text: '300', insert: true, panel: view });
    doc = { text: text2, version };
    const got = await until('the lens after the edit', async () => {
      const v = await cell.getAttribute('data-top');
      return v !== null && Number(v) === want.lens.cells[4][6].top[0][0] ? v : null;
    });
    assert.ok(before !== got || want.lens.cells[4][6].top[0][0] === Number(before));
    await wb.screenshot('lenses-after-edit');
  });

  async function exportVia(menuItem: string, file: string, from: () => Promise<void>, complete: (b: Buffer) => boolean): Promise<Buffer> {
    const path = join(wb.folder, file);
    await from();
    if (menuItem) await chooseMenuItem(wb, menuItem);
    // the save dialog (code-server's simple dialog: a path in the quick input), the default accepted
    await acceptFileDialog(wb, (v) => v.endsWith(`/${file}`));
    return writtenFile(path, complete);
  }

  it('export: a stage as .npy (numbers as computed here), its heatmap as PNG, the panel as an HTML report', async () => {
    const view = await wb.webview(TITLE);
    // The export is of the document's latest version, which the panel drew: compared with that
    // version's text, read from the file once the editor has saved it (the web workbench's
    // auto-save, a second after the last key: read before it, the file is one edit behind).
    assert.ok(doc.version >= 0, 'the edit before this test made a version');
    const text = await savedText(wb, FILE, doc.text);
    assert.equal(await renderedVersion(view), doc.version, `the panel shows version ${doc.version}, the edited one`);
    const card = view.locator('section.card[data-stage-id="head.logits"]');
    await card.scrollIntoViewIfNeeded();
    const npy = await exportVia('Export Stage as .npy', 'lenses.head.logits.npy', () => card.click({ button: 'right', position: { x: 40, y: 10 } }), npyComplete);
    assert.deepEqual([...npy.subarray(0, 6)], [0x93, 78, 85, 77, 80, 89]);
    const hl = npy[8] + 256 * npy[9];
    assert.match(npy.subarray(10, 10 + hl).toString('latin1'), /'shape': \(7, 512\)/);
    const path = join(SAMPLES, 'x.ffn.json');
    const r = await resolveReadNow(readModel(text, path), path, new CheckpointStore(nodeFiles), new CheckpointResolver());
    const logits = forward(r.file!.model, tsKernel).find((s) => s.id === 'head.logits')!.data;
    const got = new Float32Array(npy.buffer.slice(npy.byteOffset + 10 + hl, npy.byteOffset + npy.length));
    let maxDiff = 0;
    for (let i = 0; i < logits.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i] - logits[i]));
    assert.ok(maxDiff < 1e-4, `the .npy holds the logits of document version ${doc.version} (max |diff| ${maxDiff})`);
    assert.equal(await renderedVersion(view), doc.version, 'no edit during the export');

    const png = await exportVia('Export Heatmap as PNG', 'lenses.head.logits.png', () => card.click({ button: 'right', position: { x: 40, y: 10 } }), pngComplete);
    assert.deepEqual([...png.subarray(1, 4)], [80, 78, 71]);
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    assert.ok(width >= 420 && height > 130, `${width} × ${height}`);

    await view.locator('.panel-header').first().click();
    const html = (await exportVia('', 'lenses.report.html', () => wb.runCommand('FFN Lens: Export Panel as HTML Report…'), (b) => /<\/html>\s*$/.test(b.toString('utf8')))).toString('utf8');
    assert.match(html, /<!DOCTYPE html>/);
    assert.match(html, /stories260K lenses/);
    assert.ok((html.match(/<img [^>]*src="data:image\/png;base64,/g) ?? []).length >= 10, 'the heatmaps as images');
    assert.doesNotMatch(html, /<script/);
    // it opens on its own, offline, in a browser: the heatmaps are there
    copyFileSync(join(wb.folder, 'lenses.head.logits.png'), join(wb.env.resultsDir, 'lenses-export-head.logits.png'));
    const page = await wb.page.context().newPage();
    try {
      await page.route('**/*', (route) => (route.request().url().startsWith('file:') || route.request().url().startsWith('data:') ? route.continue() : route.abort()));
      await page.goto(`file://${join(wb.folder, 'lenses.report.html')}`);
      const imgs = await page.locator('img').evaluateAll((els) => els.filter((e) => (e as unknown as { naturalWidth: number }).naturalWidth > 0).length);
      assert.ok(imgs >= 10, `${imgs} images drawn`);
      await page.screenshot({ path: join(wb.env.resultsDir, 'lenses-report.png'), fullPage: true });
      copyFileSync(join(wb.folder, 'lenses.report.html'), join(wb.env.resultsDir, 'lenses-report.html'));
    } finally {
      await page.close();
    }
  });

  it('compare: with the file without its overrides, every stage is zero until an "ablate" entry is typed; then the layers before it stay zero, the logits move, and the prediction shows both', async () => {
    const view = await wb.webview(TITLE);
    const frame = await wb.webviewFrame(TITLE);
    await chooseCompare(view, 'plain');
    const note = view.locator('.compare-note');
    await until('the compare note', async () => /without ablate/.test(await note.innerText()));
    const uniform = (sel: string): Promise<boolean> => uniformCanvas(wb, frame, sel);
    await until('zero differences', async () => (await uniform('section.card[data-stage-id="head.logits"] .hm-canvas')) && (await uniform('section.card[data-stage-id="input"] .hm-canvas')));
    // (typed at the end of the "checkpoint" line: one line changes, which the edit checks)
    const lines = doc.text.split('\n');
    const line = lines.findIndex((l) => l.includes('"checkpoint"')) + 1;
    const ablate = ' "ablate": ["layers.3.ffn.neuron.126", "layers.4.ffn.neuron.109"],';
    const { version } = await edit(wb, { file: FILE, line, text: ablate, insert: true, panel: view });
    lines[line - 1] += ablate;
    doc = { text: lines.join('\n'), version };
    await until('the logits differ', async () => !(await uniform('section.card[data-stage-id="head.logits"] .hm-canvas')));
    assert.ok(await uniform('section.card[data-stage-id="input"] .hm-canvas'), 'the input is the same in both');
    const caption = await view.locator('.probs-chart .chart-caption').innerText();
    assert.match(caption, /The baseline \(without ablate, scale and weights\) predicts/);
    await view.locator('.probs-chart').scrollIntoViewIfNeeded();
    await wb.screenshot('lenses-compare');
    await chooseCompare(view, 'none');
    await until('compare off', async () => await note.isHidden());
  });

  it('attention (BertViz): the model view draws every layer × head, token 0 attends only to itself (pixels); the head view draws lines and a hovered token\'s weights', async () => {
    const view = await wb.webview(TITLE);
    const frame = await wb.webviewFrame(TITLE);
    await tab('attention');
    const thumbs = view.locator('.attn-thumb');
    await until('40 thumbnails', async () => (await thumbs.count()) === 40);
    const px = await until('layer 0 head 0 drawn', async () => {
      const p = await wb.readCanvas(frame, '.attn-thumb[data-layer="0"][data-head="0"]');
      return p.data[3] === 255 ? p : null;
    });
    assert.deepEqual([px.width, px.height], [7, 7]);
    const at = (r: number, c: number): number[] => px.data.slice((r * 7 + c) * 4, (r * 7 + c) * 4 + 3);
    // viridis: weight 1 is yellow (high red and green), weight 0 dark purple
    assert.ok(at(0, 0)[1] > 200 && at(0, 0)[0] > 200, `token 0 → itself: ${at(0, 0)}`);
    assert.ok(at(0, 1)[1] < 20, `token 0 → token 1 (masked): ${at(0, 1)}`);
    await view.locator('.attn-left .attn-token[data-token="6"]').hover();
    const lines = await wb.readCanvas(frame, '.attn-lines');
    assert.ok(lines.data.some((v, i) => i % 4 === 3 && v > 0), 'lines drawn');
    await view.locator('.attn-thumb[data-layer="2"][data-head="3"]').click();
    await until('layer 2 head 3 opened', async () => /Layer 2, head 3/.test(await view.locator('.lens-attention h4').first().innerText()));
    await view.locator('.attn-left .attn-token[data-token="6"]').hover();
    await wb.screenshot('lenses-attention');
  });

  it('tokens (CircuitsVis): a neuron\'s activation over the prompt, as computed here', async () => {
    const view = await wb.webview(TITLE);
    await tab('tokens');
    await view.locator('.lens-tokens vscode-single-select[aria-label="layer"]').evaluate((el: any) => { el.value = '2'; el.dispatchEvent(new Event('change')); });
    await view.locator('.lens-tokens .unit-index').evaluate((el: any) => { el.value = '5'; el.dispatchEvent(new Event('change')); });
    const toks = view.locator('.colored-token');
    await until('7 coloured tokens', async () => (await toks.count()) === 7 && /layer 2/.test(await view.locator('.lens-tokens h4').innerText()));
    // (the text of the version the panel shows, as saved: the input of the edit before, with "ablate")
    assert.equal(await renderedVersion(view), doc.version, `the panel shows version ${doc.version}`);
    const path = join(SAMPLES, 'x.ffn.json');
    const r = await resolveReadNow(readModel(await savedText(wb, FILE, doc.text), path), path, new CheckpointStore(nodeFiles), new CheckpointResolver());
    const act = forward(r.file!.model, tsKernel).find((s) => s.id === 'layers.2.ffn.act')!;
    for (let t = 0; t < 7; t++) {
      const v = Number(await toks.nth(t).getAttribute('data-value'));
      assert.ok(Math.abs(v - act.data[t * act.shape[1] + 5]) < 1e-5, `version ${doc.version}, token ${t}: ${v} vs ${act.data[t * act.shape[1] + 5]}`);
    }
    await wb.screenshot('lenses-tokens');
  });
});
