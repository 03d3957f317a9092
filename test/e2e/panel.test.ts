// The panel as a person uses it, in a real VS Code (code-server) in Chromium: open the identity
// example, run the command from the palette, read the pixels of the "FFN - Projection Down"
// heatmap against the colormap, edit b2[0] and see that cell change, hover a cell and read its
// value, and take screenshots in the light and the dark theme.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { colorAt, lut, valueToIndex } from '../../webview/heatmap/colormaps';
import { edit } from './lib/editor';
import { until } from './lib/until';
import { pixelAt, Workbench, type Pixels } from './lib/workbench';

const FILE = 'identity-weights.ffn.json';
const TITLE = 'FFN Lens: Identity weights';
const DOWN = 'section.card[data-stage-id="layers.0.ffn.down"] canvas.hm-canvas';

/** The color coolwarm gives value v in the symmetric range [-m, m] (independent of the panel's code path). */
function expected(v: number, m: number): [number, number, number] {
  const i = valueToIndex(v, -m, m);
  const t = lut('coolwarm');
  return [t[i * 4], t[i * 4 + 1], t[i * 4 + 2]];
}

function near(got: readonly number[], want: readonly number[], what: string): void {
  for (let c = 0; c < 3; c++) assert.ok(Math.abs(got[c] - want[c]) <= 1, `${what}: got rgb(${got.slice(0, 3)}), want rgb(${want})`);
}

describe('Visualize FFN in a real VS Code (identity example)', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'panel', waitForFile: FILE, viewport: { width: 1600, height: 1000 } });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`panel-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function downPixels(): Promise<Pixels> {
    const view = await wb.webview(TITLE);
    return wb.readCanvas(view, DOWN);
  }

  it('opens the file, runs "FFN Lens: Visualize FFN" from the palette, and the panel draws every stage', async () => {
    await wb.setColorTheme('light');
    const view = await wb.visualize(FILE, TITLE);
    assert.equal(await view.locator('section.card[data-stage-id]').count(), 6, 'input, up, act, down, layer out, output');
    assert.match(await view.locator('.model-name').innerText(), /Identity weights/);
  });

  it('"FFN - Projection Down": each cell has its value\'s coolwarm color; 1.6 is the hottest', async () => {
    const view = await wb.webview(TITLE);
    assert.match(await view.locator('section.card[data-stage-id="layers.0.ffn.down"] .card-title').innerText(), /FFN - Projection Down \[2 tokens × 3\]/);
    const px = await downPixels();
    assert.deepEqual([px.width, px.height], [3, 2], 'one pixel per cell');
    // The worked example: [[0.9, 0.1, 1.6], [-0.1, 1.1, 0.3]] (float32), range symmetric at ±1.6
    const want = [[0.90000004, 0.1, 1.5999999], [-0.1, 1.1, 0.3]];
    const m = 1.5999999;
    for (let r = 0; r < 2; r++) for (let c = 0; c < 3; c++) near(pixelAt(px, c, r), expected(want[r][c], m), `cell (${r}, ${c}) = ${want[r][c]}`);
    near(pixelAt(px, 2, 0), colorAt('coolwarm', 1), 'the hottest cell is the top of the map');
    near(pixelAt(px, 2, 0), [180, 4, 38], '1.6 is coolwarm\'s hottest red');
  });

  it('editing b2[0] in the editor changes that cell\'s color, live', async () => {
    const before = pixelAt(await downPixels(), 0, 0);
    // Select the 0.2 of b2 = [-0.2, 0.1, 0.3] and type 0.5: b2[0] becomes -0.5
    // (the window's folder holds the sample of that name: its line of b2)
    const lines = readFileSync(join(__dirname, '..', '..', '..', 'samples', FILE), 'utf8').split('\n');
    const line = lines.findIndex((l) => /^\s*"b2": \[-0\.2, 0\.1, 0\.3\]/.test(l)) + 1;
    assert.ok(line > 0, 'the sample has b2 = [-0.2, 0.1, 0.3]');
    const edited = await edit(wb, { file: FILE, line, col: lines[line - 1].indexOf('0.2') + 1, select: 3, text: '0.5', panel: await wb.webview(TITLE) });
    assert.equal(edited.line, lines[line - 1].replace('-0.2', '-0.5'));
    // down[:, 0] = act[:, 0] + b2[0] = [1.1, 0.1] - 0.5 = [0.6, -0.4]; the range stays ±1.6. The
    // panel may first draw a text typed part way ("-0": 1.1), so the check waits for the color of
    // the text as typed, which no other state of the line gives.
    const want = expected(0.6, 1.5999999);
    let seen: number[] = [];
    const after = await until('cell (0, 0) drawn as 0.6', async () => {
      seen = pixelAt(await downPixels(), 0, 0);
      return seen.every((x, c) => c > 2 || Math.abs(x - want[c]) <= 1) && seen;
    }, { describe: () => `it reads rgb(${seen.slice(0, 3)}), want rgb(${want}) (before the edit: rgb(${before.slice(0, 3)}))` });
    assert.notDeepEqual(after, before, 'the cell changed color');
    near(after, want, 'cell (0, 0) = 0.6 now');
    near(pixelAt(await downPixels(), 0, 1), expected(-0.4, 1.5999999), 'cell (1, 0) = -0.4 now');
    await wb.screenshot('panel-after-edit-light');
  });

  it('hovering a cell shows a tooltip with the stage, the token and the exact value', async () => {
    const view = await wb.webview(TITLE);
    const canvas = view.locator(DOWN);
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    await canvas.hover({ position: { x: box.width * (2.5 / 3), y: box.height * 0.25 } }); // cell (0, 2)
    const tip = view.locator('.tooltip');
    await tip.waitFor({ state: 'visible' });
    const text = await tip.innerText();
    assert.match(text, /FFN - Projection Down/);
    assert.match(text, /token "A" \(row 0\) · dimension 2/);
    assert.match(text, /value = 1\.5999999/);
    await wb.screenshot('panel-tooltip-light');

    // the activation's tooltip quotes what went in: token B, neuron 2: up = 0 + 0 + 0 - 0.2, ReLU → 0
    const act = view.locator('section.card[data-stage-id="layers.0.ffn.act"] canvas.hm-canvas');
    await act.scrollIntoViewIfNeeded();
    const abox = (await act.boundingBox())!;
    await act.hover({ position: { x: abox.width * (2.5 / 3), y: abox.height * 0.75 } }); // cell (1, 2)
    await view.locator('.tooltip', { hasText: 'FFN - Activation' }).waitFor({ state: 'visible' });
    const actText = await view.locator('.tooltip').innerText();
    assert.match(actText, /token "B" \(row 1\) · neuron 2/);
    assert.match(actText, /up \(pre-activation\) = -0\.2\b/);
    assert.match(actText, /activation = 0\b/);
  });

  it('the keyboard reads a heatmap: arrows move a cursor that tells the cell, Enter reveals it in the editor', async () => {
    const view = await wb.webview(TITLE);
    const canvas = view.locator(DOWN);
    await canvas.scrollIntoViewIfNeeded();
    await canvas.focus();
    await canvas.press('Home'); // the first cell of the row: (0, 0), wherever the focus put the cursor
    const tip = view.locator('.tooltip');
    await tip.waitFor({ state: 'visible' });
    assert.match(await tip.innerText(), /token "A" \(row 0\) · dimension 0/);
    for (const k of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowDown']) await canvas.press(k); // (the edge holds it at column 2)
    const text = await tip.innerText();
    assert.match(text, /token "B" \(row 1\) · dimension 2/);
    assert.match(text, /value = 0\.3\b/, 'B\'s third output: relu(-0.2) = 0, + b2[2] = 0.3');
    // what the tooltip shows is said to screen readers too
    assert.match(await view.locator('.sr-only[aria-live]').innerText(), /token "B" \(row 1\) · dimension 2/);
    // the outline sits on the cell: the lower right one of 2 × 3
    const cbox = (await canvas.boundingBox())!;
    const cur = (await view.locator('section.card[data-stage-id="layers.0.ffn.down"] .hm-cursor').boundingBox())!;
    assert.ok(Math.abs(cur.x - (cbox.x + (cbox.width * 2) / 3)) <= 2 && Math.abs(cur.y - (cbox.y + cbox.height / 2)) <= 2, `cursor at ${JSON.stringify(cur)} in ${JSON.stringify(cbox)}`);
    await wb.screenshot('panel-keyboard-cursor');
    await wb.screenshot('panel-keyboard-cursor-card', { locator: view.locator('section.card[data-stage-id="layers.0.ffn.down"]') });
    // Enter: output dimension 2's weights, W2's row 2 (line 41 of the sample), are selected
    await canvas.press('Enter');
    const status = wb.page.locator('[id="status.editor.selection"]');
    let where = '';
    await until('the cursor on line 41', async () => /Ln 41,/.test(where = await status.innerText().catch(() => '')), { describe: () => `the status bar: ${where}` });
    assert.match(where, /Ln 41, Col \d+ \(\d+ selected\)/, 'W2[2] is selected in the editor');
  });

  it('follows the theme: screenshots in light and dark', async () => {
    const view = await wb.webview(TITLE);
    const bg = (b: unknown): string => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(b).backgroundColor;
    const bgLight = await view.locator('body').evaluate(bg);
    await wb.setColorTheme('dark');
    const bgDark = await until('the panel\'s background to change', async () => {
      const b = await view.locator('body').evaluate(bg);
      return b !== bgLight && b;
    });
    assert.notEqual(bgDark, bgLight, 'the panel background follows the theme');
    const lum = (css: string): number => css.match(/\d+/g)!.slice(0, 3).map(Number).reduce((a, b) => a + b, 0);
    assert.ok(lum(bgDark) < lum(bgLight), `dark ${bgDark} is darker than light ${bgLight}`);
    console.log(`      screenshots: ${await wb.screenshot('panel-dark')}`);
    // a diverging map's centre follows the theme, dark on dark, and its ends grow lighter there
    // keeping their hues (issue 8; test/e2e/issue8.test.ts reads the zero): the dark table's top
    const want = colorAt('coolwarm', 1, 'dark');
    const hot = await until('the hottest cell redrawn in the dark table', async () => {
      const px = pixelAt(await downPixels(), 2, 0);
      return px.slice(0, 3).every((v, c) => Math.abs(v - want[c]) <= 1) && px;
    }, { describe: async () => `it is rgb(${pixelAt(await downPixels(), 2, 0).slice(0, 3)})` });
    near(hot, want, 'the hottest cell in the dark theme');
    assert.ok(hot[0] > hot[1] + 100 && hot[0] > hot[2] + 100, `still red: rgb(${hot.slice(0, 3)})`);
  });
});
