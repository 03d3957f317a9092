import * as assert from 'node:assert/strict';
import { firstNonFinite } from './runtimeProblems';

const naive = (d: Float32Array): number => d.findIndex((x) => !Number.isFinite(x));

describe('firstNonFinite (the NaN/∞ scan of every stage)', () => {
  it('finds the first NaN, +∞ or −∞ wherever it is, as a scan number by number does', () => {
    for (const n of [0, 1, 7, 4095, 4096, 4097, 12_289]) {
      const d = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 1e30);
      assert.equal(firstNonFinite(d), -1, `n = ${n}: all finite (large values too)`);
      for (const at of [0, 4095, 4096, n - 1].filter((i) => i >= 0 && i < n)) {
        for (const bad of [NaN, Infinity, -Infinity]) {
          const e = d.slice();
          e[at] = bad;
          if (at + 3 < n) e[at + 3] = NaN; // (a later one too: the first is said)
          assert.equal(firstNonFinite(e), naive(e), `n = ${n}, ${bad} at ${at}`);
          assert.equal(firstNonFinite(e), at);
        }
      }
    }
  });

  it('a sum of finite values that overflows is not taken for an ∞ (x · 0 is summed, not x)', () => {
    const d = new Float32Array(5000).fill(3e38);
    assert.equal(firstNonFinite(d), -1);
  });
});
