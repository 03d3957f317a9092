// The panel in a real VS Code, for gaps found from outside (issue 8):
// - a misspelled key holding weights ("att１ention", a fullwidth digit) is said in the banner at
//   the top, with a link to its line: the model is computed without them;
// - a panel that follows to a file that does not read as a model names that file at once;
// - in the dark theme the zero of coolwarm is dark (it was a glaring light grey), in the light
//   theme light; the ends keep their hues.
import * as assert from 'node:assert/strict';
import { CENTER_INDEX, lut, type Backdrop } from '../../webview/heatmap/colormaps';
import { until } from './lib/until';
import { pixelAt, Workbench } from './lib/workbench';

const MISSPELLED = 'misspelled.ffn.json';
const MISSPELLED_TEXT = `{
  "version": 1,
  "name": "Misspelled attention",
  "tokens": ["a", "b"],
  "input": [[1, 0], [0, -2]],
  "layers": [
    {
      "att１ention": { "heads": 1, "causal": true, "Wq": [[2, 0], [0, 2]] },
      "ffn": { "W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]] }
    }
  ]
}
`;
const BROKEN = 'broken-model.ffn.json';
const BROKEN_TEXT = `{
  "version": 1,
  "input": [[1, 0]],
  "ffn": { "W1": [[1, 0], [0, 1]] "W2": [[1, 0], [0, 1]] }
}
`;
const TITLE = 'FFN Lens: Misspelled attention';
const INPUT = 'section.card[data-stage-id="input"] canvas.hm-canvas';

function near(got: readonly number[], want: readonly number[], what: string): void {
  for (let c = 0; c < 3; c++) assert.ok(Math.abs(got[c] - want[c]) <= 1, `${what}: got rgb(${got.slice(0, 3)}), want rgb(${want.slice(0, 3)})`);
}

const centre = (b: Backdrop): number[] => [...lut('coolwarm', b).subarray(CENTER_INDEX * 4, CENTER_INDEX * 4 + 3)];

describe('issue 8 in a real VS Code: weights not used, the heading of a followed file, the dark zero', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'issue8', files: { [MISSPELLED]: MISSPELLED_TEXT, [BROKEN]: BROKEN_TEXT }, waitForFile: MISSPELLED, viewport: { width: 1600, height: 1000 } });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`issue8-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  it('a misspelled "att１ention": the model computes without it, and the banner at the top says so, linked to its line', async () => {
    await wb.setColorTheme('light');
    const view = await wb.visualize(MISSPELLED, TITLE);
    const banner = view.locator('.banner .banner-ignored');
    await banner.waitFor();
    const text = await banner.innerText();
    assert.match(text, /Weights not used: the model is computed without the numbers under this key\./);
    assert.match(text, /line 8, column 7 · unknown key "att１ention" in layers\[0\]: did you mean "attention"\? Its weights are not used/);
    // a warning: the view is drawn, not dimmed, and has no attention stage
    assert.equal(await view.locator('body.has-errors').count(), 0);
    assert.equal(await view.locator('section.card[data-stage-id="layers.0.attn.scores"]').count(), 0);
    assert.ok(await view.locator('section.card[data-stage-id="layers.0.ffn.up"]').count() === 1);
    // and the small list in the content does not repeat it
    assert.equal(await view.locator('.content .warnings').count(), 0);
    console.log(`      screenshot: ${await wb.screenshot('issue8-ignored-weights')}`);
    // the link goes to the key in the editor
    await banner.locator('a.problem-link').first().click();
    const status = wb.page.locator('.statusbar-item[id="status.editor.selection"]');
    let where = '';
    await until('the cursor at 8:7', async () => /Ln 8, Col 7\b/.test(where = await status.innerText().catch(() => '')), { describe: () => `the status bar: ${where}` });
    assert.match(where, /Ln 8, Col 7\b/);
  });

  it('the panel follows to a file that does not read as a model: its heading names that file', async () => {
    // back to the editor's group, then another model file there: the panel follows it
    await wb.tab(MISSPELLED).click();
    await wb.openFile(BROKEN);
    const view = await wb.webview(`FFN Lens: ${BROKEN}`);
    const name = view.locator('.model-name');
    let shown = '';
    await until(`the heading to name ${BROKEN}`, async () => (shown = (await name.innerText().catch(() => '')).trim()) === BROKEN, { describe: () => `it names ${shown}` });
    assert.equal(shown, BROKEN, 'the heading names the file now shown, not "Misspelled attention"');
    await view.locator('.banner .banner-error').waitFor();
    assert.match(await view.locator('.banner .banner-error').innerText(), /The file does not read as a model \(1 problem\)\.[\s\S]*line 4, column \d+/);
    assert.equal(await view.locator('.banner .banner-ignored').count(), 0, 'the weights-not-used banner of the other file is gone');
    console.log(`      screenshot: ${await wb.screenshot('issue8-followed-broken')}`);
    // and back: the model's own name again
    await wb.tab(MISSPELLED).click();
    const back = await wb.webview(TITLE);
    await back.locator('.model-name', { hasText: 'Misspelled attention' }).waitFor();
  });

  it('coolwarm\'s zero follows the theme: light on light, dark on dark; the ends keep their colours', async () => {
    // input = [[1, 0], [0, -2]] in the range ±2: the zeros are the map's centre, -2 its low end
    const zero = async (): Promise<number[]> => pixelAt(await wb.readCanvas(await wb.webview(TITLE), INPUT), 1, 0).slice(0, 3);
    const low = async (): Promise<number[]> => pixelAt(await wb.readCanvas(await wb.webview(TITLE), INPUT), 1, 1).slice(0, 3);
    near(await zero(), centre('light'), 'zero in the light theme');
    near(await low(), [...lut('coolwarm', 'light').subarray(0, 3)], '-2 in the light theme');
    await wb.setColorTheme('dark');
    let px = await until('the zero redrawn dark', async () => {
      const p = await zero();
      return Math.abs(p[0] - centre('dark')[0]) <= 1 && p;
    }, { describe: async () => `it is rgb(${await zero()})` });
    near(px, centre('dark'), 'zero in the dark theme');
    assert.ok(px[0] < 60 && px[1] < 60 && px[2] < 60, `a dark zero: rgb(${px})`);
    const lo = await low();
    near(lo, [...lut('coolwarm', 'dark').subarray(0, 3)], '-2 in the dark theme');
    assert.ok(lo[2] > lo[0] + 80 && lo[2] > lo[1] + 60, `-2 is still blue: rgb(${lo})`);
    // the legend's bar is the dark table too: its middle pixel is the dark centre
    const view = await wb.webview(TITLE);
    const bar = await wb.readCanvas(view, 'section.card[data-stage-id="input"] canvas.ffn-legend-bar');
    near(pixelAt(bar, CENTER_INDEX, 0), centre('dark'), 'the legend\'s centre in the dark theme');
    console.log(`      screenshot: ${await wb.screenshot('issue8-dark-zero')}`);
    await wb.setColorTheme('light');
    await (await wb.webview(TITLE)).locator('body.vscode-light').waitFor();
    px = await until('the zero redrawn light', async () => {
      const p = await zero();
      return Math.abs(p[0] - centre('light')[0]) <= 1 && p;
    }, { describe: async () => `it is rgb(${await zero()})` });
    near(px, centre('light'), 'zero in the light theme again');
  });
});
