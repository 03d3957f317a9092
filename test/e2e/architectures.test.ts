// Issue 29's families in a real VS Code: a Mistral checkpoint (a sliding window of 3 on every layer,
// its reference case made with PyTorch: test/fixtures/arch-cases) opens in the panel, predicts what
// PyTorch predicts, and its attention map draws the keys outside the window as masked (pixels and
// the cell's words), as the causal mask.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

const CASES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'arch-cases');
const CASE = JSON.parse(readFileSync(join(CASES, 'mistral_f16.json'), 'utf8')) as {
  model: Record<string, unknown>;
  expected: Record<string, { shape: number[]; data: number[] }>;
};
const FILE = 'mistral.ffn.json';
const NAME = 'Mistral (sliding window 3, reference case)';
const TITLE = `FFN Lens: ${NAME}`;
const TEXT = JSON.stringify({ ...CASE.model, name: NAME, checkpoint: './mistral-f16', lens: false }, null, 2);
const folder = (f: string): Uint8Array => readFileSync(join(CASES, 'mistral-f16', f));

/** PyTorch's prediction at the last token: the top id and its probability. */
function expectedTop(): { id: number; p: number } {
  const { shape, data } = CASE.expected['head.probs'];
  const [T, V] = shape;
  const last = data.slice((T - 1) * V, T * V);
  const id = last.indexOf(Math.max(...last));
  return { id, p: last[id] };
}

describe('today\'s architectures in a real VS Code (a Mistral checkpoint with a sliding window)', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'architectures',
      files: { [FILE]: TEXT, 'mistral-f16/config.json': folder('config.json'), 'mistral-f16/model.safetensors': folder('model.safetensors') },
      waitForFile: FILE, viewport: { width: 1600, height: 1000 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`architectures-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  it('opens and predicts what PyTorch predicts', async () => {
    await wb.visualize(FILE, TITLE);
    const { id, p } = expectedTop();
    const caption = (await wb.webview(TITLE)).locator('.probs-chart .chart-caption');
    let text = '';
    await until(`the prediction #${id}`, async () => {
      text = await caption.innerText().catch(() => '');
      return new RegExp(`#${id}\\b`).test(text);
    }, { describe: () => `it reads: ${text}` });
    assert.match(text, new RegExp(`${(100 * p).toFixed(1)}\\s?%`), `PyTorch: ${(100 * p).toFixed(2)} %; the panel: ${text}`);
    await wb.screenshot('architectures-mistral');
  });

  it('the attention weights of layer 0: keys outside the window are drawn masked, and a masked cell says why', async () => {
    const view = await wb.webview(TITLE);
    const frame = await wb.webviewFrame(TITLE);
    const sel = '[data-stage-id="layers.0.attn.weights"] canvas.hm-canvas';
    const canvas = view.locator(sel).first();
    await canvas.scrollIntoViewIfNeeded();
    const T = CASE.expected['layers.0.attn.weights'].shape[1];
    const px = await until('layer 0\'s weights drawn', async () => {
      const p = await wb.readCanvas(frame, sel);
      return p.data.some((v, i) => i % 4 === 3 && v > 0) && p.width >= T && p;
    });
    // one colour for every masked cell (the causal ones and those outside the window alike), none
    // of it among the cells a query sees
    const cw = px.width / T;
    const ch = px.height / T;
    const at = (r: number, c: number): string => {
      const i = (Math.floor((r + 0.5) * ch) * px.width + Math.floor((c + 0.5) * cw)) * 4;
      return px.data.slice(i, i + 4).join(',');
    };
    const causal = at(0, T - 1);
    const outside = [[7, 0], [7, 4], [5, 2], [3, 0]].map(([r, c]) => at(r, c));
    assert.ok(outside.every((x) => x === causal), `outside the window as the causal mask: ${causal} vs ${outside.join(' | ')}`);
    const seen = [[7, 5], [7, 7], [3, 1], [0, 0]].map(([r, c]) => at(r, c));
    assert.ok(seen.every((x) => x !== causal), `cells in the window are not drawn masked: ${seen.join(' | ')}`);
    // the keyboard: query 7 (row 7), key 0 (column 0)
    await canvas.focus();
    await canvas.press('Home');
    for (let r = 0; r < 7; r++) await canvas.press('ArrowDown');
    const tip = view.locator('.tooltip');
    await tip.waitFor({ state: 'visible' });
    await until('the tooltip of row 7, column 0', async () => /\(row 7\)[\s\S]*\(column 0\)/.test(await tip.innerText()));
    assert.match(await tip.innerText(), /masked: outside the sliding window \(a query sees its last 3 tokens/);
    await canvas.press('Escape');
    await wb.screenshot('architectures-window');
  });
});
