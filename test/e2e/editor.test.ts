// The editor and the panel linked, as a person uses them in a real VS Code (code-server) in
// Chromium: hover a number of W1 and read the neuron's values in the hover widget; put the
// cursor in a row of W1 and see that neuron's column highlighted in the panel.
import * as assert from 'node:assert/strict';
import { Workbench } from './lib/workbench';

const FILE = 'identity-weights.ffn.json';
const TITLE = 'FFN Lens: Identity weights';

describe('In the editor, linked to the panel (identity example)', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'editor', waitForFile: FILE, viewport: { width: 1600, height: 1000 } });
    await wb.setColorTheme('light');
    await wb.visualize(FILE, TITLE);
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`editor-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  /** The view-line of the editor holding `re`. */
  const line = (re: RegExp) => wb.page.locator('.editor-group-container .view-line', { hasText: re }).first();

  it('hovering a number of W1 shows its role and the neuron\'s values for every token', async () => {
    // W1's second row is [0, 1, 0]: its "1" is W1[1][1], the weight from input dimension 1 into neuron 1
    const row = line(/^\s*\[0,\s*1,\s*0\],\s*$/);
    await row.scrollIntoViewIfNeeded();
    const one = row.locator('span > span', { hasText: /^1$/ }).first();
    const hover = wb.page.locator('.monaco-hover:not(.hidden) .monaco-hover-content', { hasText: 'W1[1][1]' }).first();
    for (let i = 0; i < 10 && !(await hover.isVisible()); i++) {
      await wb.page.mouse.move(0, 0);
      await one.hover();
      await hover.waitFor({ state: 'visible', timeout: 3000 }).catch(() => undefined);
    }
    const text = (await hover.innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /ffn\.W1\[1\]\[1\] = 1/);
    assert.match(text, /weight from input dimension 1 into neuron 1 \(of 3\)/);
    // neuron 1: up = x·W1[1] + b1[1] = x[1] + 0: token A → 0, token B → 1; ReLU keeps them
    assert.match(text, /A\s+0\s+0\s+0/, text);
    assert.match(text, /B\s+1\s+1\s+1/, text);
    assert.match(text, /Neuron 1 fires for 1 of 2 tokens/);
    console.log(`      hover: ${text.split('\n').join(' ⏎ ')}  ${await wb.screenshot('editor-hover')}`);
  });

  it('the cursor in a row of W1 highlights that neuron\'s column in the panel, scrolled into view', async () => {
    await wb.page.mouse.move(0, 0);
    await wb.page.keyboard.press('Escape');
    // the third row of W1, [0, 0, 1], is neuron 2
    const row = line(/^\s*\[0,\s*0,\s*1\]\s*$/);
    await row.first().scrollIntoViewIfNeeded();
    const rows = wb.page.locator('.editor-group-container .view-line', { hasText: /^\s*\[0,\s*0,\s*1\]/ });
    // the first such line is W1's (W2 has one too, further down)
    await rows.first().click();
    const view = await wb.webview(TITLE);
    for (const id of ['layers.0.ffn.up', 'layers.0.ffn.act']) {
      const band = view.locator(`section.card[data-stage-id="${id}"] .hm-band`);
      await band.waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await band.getAttribute('data-axis'), 'col');
      const canvas = view.locator(`section.card[data-stage-id="${id}"] canvas.hm-canvas`);
      const cb = (await canvas.boundingBox())!;
      const bb = (await band.boundingBox())!;
      // column 2 of 3: the band starts two thirds of the way across
      assert.ok(Math.abs(bb.x - cb.x - (2 / 3) * cb.width) <= 2, `${id}: band at x ${bb.x - cb.x} of ${cb.width}`);
    }
    // the down-projection shows what neuron 2 writes into each token
    const extra = view.locator('section.card[data-stage-id="layers.0.ffn.down"] .card-extra-title');
    await extra.waitFor({ state: 'visible' });
    assert.match(await extra.innerText(), /Neuron 2 writes act\[:, 2\] · W2\[:, 2\]/);
    console.log(`      ${await wb.screenshot('editor-cursor-highlight')}`);
  });
});
