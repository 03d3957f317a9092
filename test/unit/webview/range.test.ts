// Value ranges (webview/heatmap/range.ts).
import * as assert from 'node:assert/strict';
import {
  PERCENTILE_SAMPLE_LIMIT,
  autoRange,
  ensureRange,
  mergeRanges,
  minMaxRange,
  percentileRange,
  symmetricRange,
} from '../../../webview/heatmap/range';

/** Deterministic values in [-1, 1). */
function noise(n: number, seed = 12345): Float32Array {
  const d = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 16807) % 2147483647;
    d[i] = (s / 2147483647) * 2 - 1;
  }
  return d;
}

/** numpy.percentile(values, p) (linear), by sorting: the reference for the selection-based version. */
function refPercentile(values: ArrayLike<number>, p: number): number {
  const a = Array.from(values).sort((x, y) => x - y);
  const pos = (p / 100) * (a.length - 1);
  const k = Math.floor(pos);
  return k + 1 < a.length ? a[k]! + (a[k + 1]! - a[k]!) * (pos - k) : a[k]!;
}

describe('heatmap value ranges', () => {
  it('symmetricRange is ±max|v|, minMaxRange is [min, max]', () => {
    const d = new Float32Array([0.5, -3, 2, 1]);
    assert.deepEqual(symmetricRange(d), [-3, 3]);
    assert.deepEqual(minMaxRange(d), [-3, 2]);
    assert.deepEqual(symmetricRange([0, 0, 4]), [-4, 4]);
  });

  it('NaN and ±Infinity are ignored', () => {
    const d = [1, NaN, -2, Infinity, -Infinity, 0.5];
    assert.deepEqual(symmetricRange(d), [-2, 2]);
    assert.deepEqual(minMaxRange(d), [-2, 1]);
    assert.deepEqual(percentileRange(d, 100, false), [-2, 1]);
  });

  it('masked cells are ignored (a -1e9 causal fill does not set the scale)', () => {
    const d = [1, -1e9, 0.5, -0.25];
    const mask = new Uint8Array([0, 1, 0, 0]);
    assert.deepEqual(symmetricRange(d, mask), [-1, 1]);
    assert.deepEqual(minMaxRange(d, mask), [-0.25, 1]);
    assert.deepEqual(percentileRange(d, 100, false, mask), [-0.25, 1]);
  });

  it('all-zero, empty and all-invalid data give [-1, 1], never a 0-wide range', () => {
    const zeros = new Float32Array(1000);
    assert.deepEqual(symmetricRange(zeros), [-1, 1]);
    assert.deepEqual(minMaxRange(zeros), [-1, 1]);
    assert.deepEqual(percentileRange(zeros, 99, true), [-1, 1]);
    assert.deepEqual(percentileRange(zeros, 99, false), [-1, 1]);
    assert.deepEqual(symmetricRange([]), [-1, 1]);
    assert.deepEqual(minMaxRange([NaN, Infinity]), [-1, 1]);
    assert.deepEqual(percentileRange([NaN], 99, true), [-1, 1]);
  });

  it('constant data c gives [c - |c|, c + |c|]', () => {
    assert.deepEqual(minMaxRange([3, 3, 3]), [0, 6]);
    assert.deepEqual(minMaxRange([-2, -2]), [-4, 0]);
    assert.deepEqual(symmetricRange([-2, -2]), [-2, 2]);
    assert.deepEqual(ensureRange(5, 5), [0, 10]);
    assert.deepEqual(ensureRange(2, 1), [1, 2]);
    assert.deepEqual(ensureRange(NaN, 1), [-1, 1]);
  });

  it('percentileRange ignores one huge outlier', () => {
    const d = noise(100_000);
    d[4242] = 1e6;
    assert.deepEqual(symmetricRange(d), [-1e6, 1e6]);
    const [lo, hi] = percentileRange(d, 99, true);
    assert.equal(lo, -hi);
    assert.ok(hi > 0.95 && hi < 1, `99th percentile of |v| = ${hi}`);
    const [lo2, hi2] = percentileRange(d, 99, false);
    assert.ok(lo2 > -1 && lo2 < -0.95 && hi2 > 0.95 && hi2 < 1, `[${lo2}, ${hi2}]`);
  });

  it('percentileRange equals the sorted (numpy linear) percentile', () => {
    for (const n of [1, 2, 3, 10, 101, 5000]) {
      const d = noise(n, n + 7);
      for (const p of [50, 90, 99, 99.9, 100]) {
        const [lo, hi] = percentileRange(d, p, false);
        const wantHi = refPercentile(d, p);
        const wantLo = refPercentile(d, 100 - p);
        if (!(wantHi > wantLo)) continue; // degenerate: falls back to min..max
        assert.ok(Math.abs(hi - wantHi) < 1e-6, `n=${n} p=${p}: hi ${hi} vs ${wantHi}`);
        assert.ok(Math.abs(lo - wantLo) < 1e-6, `n=${n} p=${p}: lo ${lo} vs ${wantLo}`);
        const [, m] = percentileRange(d, p, true);
        const wantM = refPercentile(Array.from(d, Math.abs), p);
        assert.ok(Math.abs(m - wantM) < 1e-6, `n=${n} p=${p}: |v| ${m} vs ${wantM}`);
      }
    }
  });

  it('percentileRange with many ties and sparse data falls back to the full range', () => {
    const sparse = new Float32Array(10_000); // 99.9% zeros, like a ReLU output
    for (let i = 0; i < 10; i++) sparse[i * 997] = i % 2 ? 2 : -3;
    assert.deepEqual(percentileRange(sparse, 99, true), [-3, 3]);
    assert.deepEqual(percentileRange(sparse, 99, false), [-3, 2]);
  });

  it('percentileRange samples above the sample limit and stays close', () => {
    const n = PERCENTILE_SAMPLE_LIMIT * 2 + 17;
    const d = noise(n, 99);
    const [, m] = percentileRange(d, 99, true);
    assert.ok(Math.abs(m - 0.99) < 0.005, `sampled 99th percentile of |uniform(-1, 1)| = ${m}`);
  });

  it('mergeRanges takes the union and skips invalid ranges', () => {
    assert.deepEqual(mergeRanges([[-1, 2], [-3, 0.5], [NaN, 4]]), [-3, 2]);
    assert.deepEqual(mergeRanges([[-2, 2], [-5, 5]]), [-5, 5]);
    assert.deepEqual(mergeRanges([]), [-1, 1]);
  });

  it('autoRange: symmetric for diverging maps, min..max for sequential ones', () => {
    const d = [0.5, 2, 1];
    assert.deepEqual(autoRange(d, 'coolwarm'), [-2, 2]);
    assert.deepEqual(autoRange(d, 'viridis'), [0.5, 2]);
    assert.deepEqual(autoRange(d, 'viridis', { mode: 'symmetric' }), [-2, 2]);
    assert.deepEqual(autoRange(d, 'coolwarm', { mode: 'minmax' }), [0.5, 2]);
  });
});
