// Attention weights with a sliding window (mistral, gemma's sliding layers): key j is seen by
// query i iff i − window < j ≤ i; masked weights exactly 0; against a naive softmax. And the causal
// mask alone never leaves a row without a visible key.
import * as assert from 'node:assert/strict';
import { appendWeights, attentionWeightsForward, isMasked } from './attentionWeights';
import { softmaxForward } from './softmax';

function naive(scores: Float32Array, NH: number, T: number, causal: boolean, window: number | null): Float64Array {
  const out = new Float64Array(NH * T * T);
  for (let h = 0; h < NH; h++) {
    for (let i = 0; i < T; i++) {
      const seen = (j: number): boolean => !(causal && j > i) && !(window !== null && j <= i - window);
      let max = -Infinity;
      for (let j = 0; j < T; j++) if (seen(j)) max = Math.max(max, scores[(h * T + i) * T + j]);
      let sum = 0;
      for (let j = 0; j < T; j++) if (seen(j)) sum += Math.exp(scores[(h * T + i) * T + j] - max);
      for (let j = 0; j < T; j++) out[(h * T + i) * T + j] = seen(j) ? Math.exp(scores[(h * T + i) * T + j] - max) / sum : 0;
    }
  }
  return out;
}

describe('attentionWeightsForward, sliding window', () => {
  it('isMasked: window 3 at query 5 sees keys 3, 4, 5 only; no window: 0 … 5', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6].filter((j) => !isMasked(true, 5, j, 3)), [3, 4, 5]);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6].filter((j) => !isMasked(true, 5, j)), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6].filter((j) => !isMasked(true, 5, j, null)), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual([0, 1].filter((j) => !isMasked(true, 1, j, 1)), [1]);
  });
  it('window 3 over 8 tokens: the naive softmax over i − 3 < j ≤ i; masked entries exactly 0; each row sums to 1', () => {
    const NH = 2; const T = 8;
    const scores = Float32Array.from({ length: NH * T * T }, (_, i) => Math.sin(i * 0.91) * 4);
    const got = new Float32Array(NH * T * T);
    attentionWeightsForward(got, scores, NH, T, true, 3);
    const want = naive(scores, NH, T, true, 3);
    for (let h = 0; h < NH; h++) for (let i = 0; i < T; i++) {
      let sum = 0;
      for (let j = 0; j < T; j++) {
        const at = (h * T + i) * T + j;
        if (j > i || j <= i - 3) assert.ok(Object.is(got[at], 0), `${h},${i},${j} masked: ${got[at]}`);
        else assert.ok(Math.abs(got[at] - want[at]) < 1e-6, `${h},${i},${j}: ${got[at]} vs ${want[at]}`);
        sum += got[at];
      }
      assert.ok(Math.abs(sum - 1) < 1e-6);
    }
  });
  it('a window as long as the input (or absent, or null) gives the bits of the causal mask', () => {
    const NH = 1; const T = 6;
    const scores = Float32Array.from({ length: NH * T * T }, (_, i) => Math.cos(i * 1.3) * 3);
    const plain = new Float32Array(T * T);
    attentionWeightsForward(plain, scores, NH, T, true);
    for (const window of [T, T + 5, null]) {
      const got = new Float32Array(T * T);
      attentionWeightsForward(got, scores, NH, T, true, window);
      assert.deepEqual(got, plain);
    }
    const narrow = new Float32Array(T * T);
    attentionWeightsForward(narrow, scores, NH, T, true, 2);
    assert.notDeepEqual(narrow, plain);
  });
});

describe('attention weights, causal mask', () => {
  it('a causal mask never leaves a row without a visible key', () => {
    for (let T = 1; T <= 64; T++) {
      for (let i = 0; i < T; i++) assert.equal(isMasked(true, i, i), false);
    }
  });
});

describe('attention weights, every head in one softmax', () => {
  // what attentionWeightsForward did before: each head masked by isMasked, then its own softmax
  function headByHead(scores: Float32Array, NH: number, T: number, causal: boolean, window: number | null): Float32Array {
    const out = new Float32Array(NH * T * T);
    const masked = new Float32Array(T * T);
    for (let h = 0; h < NH; h++) {
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) masked[i * T + j] = isMasked(causal, i, j, window) ? -Infinity : scores[(h * T + i) * T + j];
      softmaxForward(out.subarray(h * T * T, (h + 1) * T * T), masked, T, T);
    }
    return out;
  }
  for (const [NH, T, causal, window] of [[12, 32, true, null], [4, 37, true, 5], [3, 9, false, null], [3, 9, false, 4], [2, 6, true, 1]] as const) {
    it(`${NH} heads, T = ${T}, ${causal ? 'causal' : 'not causal'}, window ${window}: the bits of a softmax per head`, () => {
      const scores = Float32Array.from({ length: NH * T * T }, (_, i) => Math.sin(i * 0.37) * 6);
      const got = new Float32Array(NH * T * T).fill(NaN);
      attentionWeightsForward(got, scores, NH, T, causal, window);
      const want = headByHead(scores, NH, T, causal, window);
      assert.ok(Buffer.from(got.buffer).equals(Buffer.from(want.buffer)));
      assert.ok(want.some((v) => v > 0));
    });
  }
});

describe('appendWeights: queries appended to a causal input', () => {
  const bits = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  it('the new rows computed, the rows before kept with zeros for the new keys: the full softmax\'s bits (row lengths across a multiple of 4, a window)', () => {
    for (const [NH, T0, T, window] of [[4, 31, 32, null], [2, 3, 4, null], [3, 5, 9, null], [2, 6, 13, 4], [1, 1, 2, null], [2, 60, 64, 7]] as const) {
      const scores = Float32Array.from({ length: NH * T * T }, (_, i) => Math.sin(i * 0.71 + T0) * 6);
      const want = new Float32Array(NH * T * T);
      attentionWeightsForward(want, scores, NH, T, true, window);
      const before = new Float32Array(NH * T0 * T0);
      const firstScores = new Float32Array(NH * T0 * T0);
      for (let h = 0; h < NH; h++) for (let i = 0; i < T0; i++) firstScores.set(scores.subarray((h * T + i) * T, (h * T + i) * T + T0), (h * T0 + i) * T0);
      attentionWeightsForward(before, firstScores, NH, T0, true, window);
      const fullFirst = new Float32Array(NH * T0 * T);
      for (let h = 0; h < NH; h++) fullFirst.set(want.subarray(h * T * T, (h * T + T0) * T), h * T0 * T);
      for (const previous of [before, fullFirst]) {
        const got = appendWeights(scores, { scores: 's', NH, causal: true, window }, T, T0, previous);
        assert.equal(bits(got).compare(bits(want)), 0, `NH ${NH}, T ${T0} → ${T}, window ${window}, previous ${previous.length / (NH * T0)} keys wide`);
      }
    }
  });
});
