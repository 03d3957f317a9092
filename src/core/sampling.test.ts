// The choice of a token (sampling.ts): the top_k by value with ties to the smaller id, the draw's
// probabilities, and the draw itself, against plain definitions.
import * as assert from 'node:assert/strict';
import { rng } from './rng';
import { pickIndex, samplingProbs, topIds } from './sampling';

describe('sampling', () => {
  it('topIds: the k largest, largest first, ties to the smaller id, NaN lowest (= a full sort)', () => {
    const r = rng(5);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(r() * 40);
      // few distinct values: many ties
      const row = Float32Array.from({ length: n }, () => (r() < 0.1 ? NaN : Math.floor(r() * 6)));
      const k = 1 + Math.floor(r() * (n + 3));
      const key = (j: number): number => (Number.isNaN(row[j]) ? -Infinity : row[j]);
      const want = [...row.keys()].sort((a, b) => key(b) - key(a) || a - b).slice(0, k);
      assert.deepEqual(topIds(row, k), want, `row ${[...row]} k ${k}`);
    }
    assert.deepEqual(topIds([1, 3, 3, 2], 2), [1, 2]);
  });

  it('samplingProbs: softmax of logit / τ over the candidates; pickIndex: the first cumulative sum above u', () => {
    const q = samplingProbs([2, 1, 0], 0.5);
    const w = [1, Math.exp(-2), Math.exp(-4)];
    const s = w[0] + w[1] + w[2];
    assert.deepEqual(q, w.map((x) => x / s));
    assert.equal(pickIndex(q, 0), 0);
    assert.equal(pickIndex(q, q[0] - 1e-12), 0);
    assert.equal(pickIndex(q, q[0]), 1);
    assert.equal(pickIndex(q, 0.999999999999), 2);
    assert.equal(pickIndex([0.5, 0.5 - 1e-17], 1 - 1e-17), 1, 'rounding short of 1: the last');
    assert.deepEqual(samplingProbs([-Infinity, -Infinity], 1), [0.5, 0.5]);
  });
});
