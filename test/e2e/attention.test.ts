// The attention stages and the lenses as a person uses them, in a real VS Code (code-server) in
// Chromium, on the encoder block (4 heads): one head choice per layer, so scores and weights
// show the same head; the all-heads grid names its tokens; the "Visualize layer 0 FFN" lens
// opens the panel at that FFN.
import * as assert from 'node:assert/strict';
import { focusEditor, goToLine } from './lib/editor';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

const FILE = 'encoder-block.ffn.json';
const TITLE = 'FFN Lens: Transformer encoder block';
const card = (id: string): string => `section.card[data-stage-id="${id}"]`;

describe('Attention heads and lenses in a real VS Code (encoder block, 4 heads)', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'attention', waitForFile: FILE, viewport: { width: 1600, height: 1000 } });
    await wb.visualize(FILE, TITLE);
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`attention-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  it('choosing head 2 on the weights shows head 2 on the scores (and Q, K, V) too', async () => {
    const view = await wb.webview(TITLE);
    const weights = view.locator(card('layers.0.attn.weights'));
    await weights.scrollIntoViewIfNeeded();
    // the control's own way: set its value and say so, as a pick in its list does
    await weights.locator('vscode-single-select.head-select').evaluate((el: { value: string; dispatchEvent(e: unknown): boolean }) => {
      el.value = '2';
      el.dispatchEvent(new (globalThis as unknown as { Event: new (t: string) => unknown }).Event('change'));
    });
    for (const id of ['layers.0.attn.weights', 'layers.0.attn.scores', 'layers.0.attn.q']) {
      const label = await view.locator(`${card(id)} canvas.hm-canvas`).first().getAttribute('aria-label');
      assert.match(label ?? '', /· head 2 /, `${id}: ${label}`);
      assert.equal(await view.locator(`${card(id)} vscode-single-select.head-select`).evaluate((el: { value: string }) => el.value), '2', id);
    }
    // the overview's attention map follows; its FFN maps have no head to name
    const captions = await view.locator('.overview-item figcaption').allInnerTexts();
    assert.match(captions[0], /Self-Attention Scores \(head 2\)/);
    assert.ok(captions.slice(1).every((c) => !/head/.test(c)), captions.join(' | '));
    await wb.screenshot('attention-head-2');
  });

  it('"all heads": four small maps, the first naming the six tokens, each its six keys, and no head to choose', async () => {
    const view = await wb.webview(TITLE);
    const weights = view.locator(card('layers.0.attn.weights'));
    await weights.locator('vscode-checkbox.all-heads').click();
    const grid = weights.locator('.small-multiple');
    await grid.nth(3).waitFor();
    assert.equal(await grid.count(), 4);
    assert.deepEqual(await grid.nth(0).locator('.hm-row-label').allInnerTexts(), ['I', 'love', 'you', 'very', 'much', '.']);
    assert.equal(await grid.nth(1).locator('.hm-row-label').count(), 0);
    // every small map names its keys (columns) under it
    for (let k = 0; k < 4; k++) assert.deepEqual(await grid.nth(k).locator('.hm-col-label').allInnerTexts(), ['I', 'love', 'you', 'very', 'much', '.'], `head ${k}'s keys`);
    assert.equal(await weights.locator('vscode-single-select.head-select').evaluate((el: { hasAttribute(a: string): boolean }) => el.hasAttribute('disabled')), true);
    await wb.screenshot('attention-all-heads');
    // the keyboard on head 1's map: the last key of the first query is masked (causal)
    const head1 = grid.nth(1).locator('canvas.hm-canvas');
    await head1.focus();
    await head1.press('End');
    const tip = view.locator('.tooltip');
    await tip.waitFor({ state: 'visible' });
    assert.match(await tip.innerText(), /head 1[\s\S]*query "I" \(row 0\) → key "\." \(column 5\)[\s\S]*masked/);
    // a redraw (the panel resized) keeps the focus, and the cursor, on that map
    const width = (): Promise<number> => head1.evaluate((c: unknown) => (c as { ownerDocument: { defaultView: { innerWidth: number } } }).ownerDocument.defaultView.innerWidth);
    const before = await width();
    await wb.page.setViewportSize({ width: 1500, height: 1000 });
    await until('the panel narrower', async () => (await width()) < before);
    // (then the redraw the resize asks for: two frames of the panel)
    await head1.evaluate(() => new Promise<void>((r) => (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(() => (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(() => r()))));
    assert.equal(await head1.evaluate((c: unknown) => (c as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement === c), true, 'head 1 keeps the focus');
    await head1.press('ArrowDown');
    assert.match(await tip.innerText(), /query "love" \(row 1\) → key "\." \(column 5\)/);
    await head1.press('Escape');
    await wb.page.setViewportSize({ width: 1600, height: 1000 });
  });

  it('the lens "Visualize layer 0 FFN" brings the panel to that FFN', async () => {
    const view = await wb.webview(TITLE);
    await view.locator('body').evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    // go to the "ffn" line, where the lens is
    await focusEditor(wb, FILE);
    await goToLine(wb, 128);
    const lens = wb.page.locator('.codelens-decoration a', { hasText: /Visualize layer 0 FFN/ }).first();
    const up = view.locator(card('layers.0.ffn.up'));
    const inView = async (): Promise<boolean> => up.evaluate((el: { getBoundingClientRect(): { top: number } }) => {
      const top = el.getBoundingClientRect().top;
      const header = (globalThis as unknown as { document: { querySelector(s: string): { offsetHeight: number } } }).document.querySelector('.panel-header').offsetHeight;
      return top >= header - 1 && top < header + 200;
    });
    // VS Code asks for the lenses again after the editor moves, and a lens clicked during that
    // exchange is one it has just let go: clicked again (as a person would) until the panel moves
    assert.equal(await inView(), false, 'the card is below, before the click');
    let clicked = 0;
    await until('the panel at the layer 0 FFN after a click on the lens', async () => {
      if (await inView()) return true;
      if (clicked === 0 || Date.now() - clicked > 3_000) {
        await lens.click({ timeout: 15_000 });
        clicked = Date.now();
      }
      return false;
    });
    assert.ok(await inView(), 'the up-projection card sits just below the panel header');
    await wb.screenshot('attention-lens-ffn');
  });
});
