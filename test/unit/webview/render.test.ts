// Filling RGBA pixels and hit-testing (webview/heatmap/render.ts), and the legend's pure helpers.
import * as assert from 'node:assert/strict';
import { lut } from '../../../webview/heatmap/colormaps';
import { cssGradient, formatValue, gradientStops, legendTicks } from '../../../webview/heatmap/labels';
import { DEFAULT_INVALID_COLOR, cellAt, fillRGBA, renderToRGBA } from '../../../webview/heatmap/render';

function px(rgba: Uint8ClampedArray, i: number): number[] {
  return [rgba[i * 4]!, rgba[i * 4 + 1]!, rgba[i * 4 + 2]!, rgba[i * 4 + 3]!];
}
function lutPx(name: Parameters<typeof lut>[0], i: number): number[] {
  const t = lut(name);
  return [t[i * 4]!, t[i * 4 + 1]!, t[i * 4 + 2]!, t[i * 4 + 3]!];
}

describe('heatmap pixels', () => {
  it('fillRGBA writes the colormap entry for each value', () => {
    const data = new Float32Array([-2, 0, 2, -1, 5, -5]);
    const out = new Uint8ClampedArray(data.length * 4);
    fillRGBA(out, data, { colormap: 'coolwarm', range: [-2, 2] });
    assert.deepEqual(px(out, 0), lutPx('coolwarm', 0));
    assert.deepEqual(px(out, 1), lutPx('coolwarm', 128));
    assert.deepEqual(px(out, 2), lutPx('coolwarm', 255));
    assert.deepEqual(px(out, 3), lutPx('coolwarm', 64));
    assert.deepEqual(px(out, 4), lutPx('coolwarm', 255), 'above the range clamps');
    assert.deepEqual(px(out, 5), lutPx('coolwarm', 0), 'below the range clamps');
  });

  it('fillRGBA: grayscale gives readable bytes', () => {
    const out = new Uint8ClampedArray(12);
    fillRGBA(out, [0, 0.5, 1], { colormap: 'grayscale', range: [0, 1] });
    assert.deepEqual([...out], [0, 0, 0, 255, 128, 128, 128, 255, 255, 255, 255, 255]);
  });

  it('masked cells get the mask color (transparent by default), not the color of 0', () => {
    const data = new Float32Array([0, 0, 1]);
    const mask = new Uint8Array([0, 1, 1]);
    const out = new Uint8ClampedArray(12);
    fillRGBA(out, data, { colormap: 'coolwarm', range: [-1, 1], mask });
    assert.deepEqual(px(out, 0), lutPx('coolwarm', 128));
    assert.deepEqual(px(out, 1), [0, 0, 0, 0]);
    assert.deepEqual(px(out, 2), [0, 0, 0, 0]);
    fillRGBA(out, data, { colormap: 'coolwarm', range: [-1, 1], mask, maskColor: [10, 20, 30] });
    assert.deepEqual(px(out, 1), [10, 20, 30, 255]);
  });

  it('NaN and ±Infinity get the invalid color', () => {
    const out = new Uint8ClampedArray(16);
    fillRGBA(out, [NaN, Infinity, -Infinity, 0], { colormap: 'viridis', range: [-1, 1] });
    const inv = [...DEFAULT_INVALID_COLOR, 255];
    assert.deepEqual(px(out, 0), inv);
    assert.deepEqual(px(out, 1), inv);
    assert.deepEqual(px(out, 2), inv);
    assert.deepEqual(px(out, 3), lutPx('viridis', 128));
    fillRGBA(out, [NaN, 1, 1, 1], { colormap: 'viridis', range: [-1, 1], invalidColor: [1, 2, 3] });
    assert.deepEqual(px(out, 0), [1, 2, 3, 255]);
  });

  it('all-zero data with a degenerate range draws the center color', () => {
    const out = new Uint8ClampedArray(8);
    fillRGBA(out, [0, 0], { colormap: 'coolwarm', range: [0, 0] });
    assert.deepEqual(px(out, 0), lutPx('coolwarm', 128));
  });

  it('fillRGBA works on an unaligned view and rejects a short target', () => {
    const buf = new Uint8ClampedArray(4 * 2 + 1);
    const view = buf.subarray(1);
    fillRGBA(view, [-1, 1], { colormap: 'grayscale', range: [-1, 1] });
    assert.deepEqual([...view], [0, 0, 0, 255, 255, 255, 255, 255]);
    assert.throws(() => fillRGBA(new Uint8ClampedArray(4), [1, 2], { colormap: 'grayscale', range: [0, 1] }), RangeError);
  });

  it('renderToRGBA pools to maxCells and reports the mapping and range', () => {
    const rows = 4;
    const cols = 6;
    const data = new Float32Array(rows * cols);
    data[2 * cols + 5] = -3; // source (2, 5)
    const { rgba, info } = renderToRGBA({ data, rows, cols }, { colormap: 'coolwarm', range: [-3, 3], maxCells: { rows: 2, cols: 3 } });
    assert.equal(info.pooled, true);
    assert.equal(rgba.length, 2 * 3 * 4);
    assert.deepEqual(info.range, [-3, 3]);
    assert.equal(info.colormap, 'coolwarm');
    assert.deepEqual(px(rgba, 1 * 3 + 2), lutPx('coolwarm', 0), 'pooled cell (1, 2) holds -3');
    assert.deepEqual(px(rgba, 0), lutPx('coolwarm', 128));
  });

  it('renderToRGBA carries the pooled mask into the pixels', () => {
    const n = 4;
    const mask = new Uint8Array(n * n);
    for (let r = 0; r < n; r++) for (let c = r + 1; c < n; c++) mask[r * n + c] = 1;
    const { rgba } = renderToRGBA({ data: new Float32Array(n * n).fill(0.5), rows: n, cols: n }, { colormap: 'viridis', range: [0, 1], mask, maxCells: { rows: 2, cols: 2 } });
    assert.deepEqual(px(rgba, 1), [0, 0, 0, 0], 'upper-right block fully masked');
    assert.equal(px(rgba, 0)[3], 255);
    assert.equal(px(rgba, 2)[3], 255);
  });

  it('cellAt maps fractions to the drawn cell and its source block', () => {
    const rows = 10;
    const cols = 3072;
    const data = new Float32Array(rows * cols);
    data[7 * cols + 3001] = 4;
    const { info } = renderToRGBA({ data, rows, cols }, { colormap: 'coolwarm', range: [-4, 4], maxCells: { rows: 5, cols: 1024 } });
    const hit = cellAt(info, 3001.5 / cols, 7.5 / rows)!;
    assert.equal(hit.row, 3);
    assert.equal(hit.col, 1000);
    assert.deepEqual([hit.rowStart, hit.rowEnd, hit.colStart, hit.colEnd], [6, 8, 3000, 3003]);
    assert.deepEqual([hit.sourceRow, hit.sourceCol, hit.value], [7, 3001, 4]);
    assert.equal(hit.masked, false);
    assert.equal(hit.invalid, false);
    assert.equal(cellAt(info, 1, 1)!.col, 1023, 'the far edge is the last cell');
    assert.equal(cellAt(info, -0.01, 0.5), null);
    assert.equal(cellAt(info, 0.5, 1.01), null);
    assert.equal(cellAt(info, NaN, 0.5), null);
  });

  it('cellAt without pooling is the identity, and reports masked cells', () => {
    const { info } = renderToRGBA({ data: [1, 2, 3, 4], rows: 2, cols: 2 }, { colormap: 'viridis', range: [0, 4], mask: new Uint8Array([0, 1, 0, 0]) });
    const hit = cellAt(info, 0.75, 0.25)!;
    assert.deepEqual([hit.row, hit.col, hit.sourceRow, hit.sourceCol, hit.value, hit.masked], [0, 1, 0, 1, 2, true]);
    assert.deepEqual([hit.rowStart, hit.rowEnd, hit.colStart, hit.colEnd], [0, 1, 1, 2]);
  });
});

describe('heatmap legend helpers', () => {
  it('ticks: min, 0 at its position, max; clipped ends marked', () => {
    assert.deepEqual(
      legendTicks({ colormap: 'coolwarm', range: [-2, 2] }).map((t) => [t.kind, t.fraction, t.label]),
      [['min', 0, '−2'], ['zero', 0.5, '0'], ['max', 1, '2']],
    );
    assert.deepEqual(
      legendTicks({ colormap: 'viridis', range: [1, 3], clipped: { hi: true } }).map((t) => t.label),
      ['1', '≥ 3'],
    );
    assert.equal(legendTicks({ colormap: 'viridis', range: [-1, 3] })[1]!.fraction, 0.25);
  });

  it('formats values compactly', () => {
    assert.equal(formatValue(0), '0');
    assert.equal(formatValue(1.23456), '1.23');
    assert.equal(formatValue(-0.5), '−0.5');
    assert.equal(formatValue(12345), '1.23e4');
    assert.equal(formatValue(0.00012), '1.2e−4');
    assert.equal(formatValue(NaN), 'NaN');
  });

  it('gradient stops follow the map', () => {
    const stops = gradientStops('grayscale', 3);
    assert.deepEqual(stops, [
      { offset: 0, color: 'rgb(0, 0, 0)' },
      { offset: 0.5, color: 'rgb(128, 128, 128)' },
      { offset: 1, color: 'rgb(255, 255, 255)' },
    ]);
    assert.match(cssGradient('coolwarm'), /^linear-gradient\(to right, rgb\(59, 76, 192\) 0\.00%, .*rgb\(180, 4, 38\) 100\.00%\)$/);
  });
});
