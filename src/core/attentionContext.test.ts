// The attention context against a naive loop, and the rows of queries appended to a causal input
// (appendContext) against the full context, bit for bit.
import * as assert from 'node:assert/strict';
import { appendContext, attentionContextForward, scaleHeads } from './attentionContext';
import { attentionWeightsForward } from './attentionWeights';
import { kvHead } from './attentionScores';
import { headRows } from './heads';
import { tsKernel } from './kernel';
import { createWasmKernel } from './wasm';

const bits = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

/** Causal weights (NH,T,T) of sin-made scores, and values (KVH,T,HS). */
function operands(NH: number, KVH: number, T: number, HS: number): { w: Float32Array; v: Float32Array } {
  const scores = Float32Array.from({ length: NH * T * T }, (_, i) => Math.sin(i * 0.61) * 4);
  const w = new Float32Array(NH * T * T);
  attentionWeightsForward(w, scores, NH, T, true);
  return { w, v: Float32Array.from({ length: KVH * T * HS }, (_, i) => Math.cos(i * 0.29) * 3) };
}

/** The full stage at T: the context, each head scaled by its unit. */
function full(w: Float32Array, v: Float32Array, units: Float32Array | null, NH: number, KVH: number, T: number, HS: number, kernel = tsKernel): Float32Array {
  const out = new Float32Array(T * NH * HS);
  attentionContextForward(out, w, v, NH, KVH, T, HS, kernel);
  if (units) scaleHeads(out, out, units, T, NH, HS, null);
  return out;
}

describe('attentionContextForward', () => {
  it('equals Σ_j weights_h[i][j] · V_g[j] by head, heads side by side (4 query heads over 2 value heads)', () => {
    const [NH, KVH, T, HS] = [4, 2, 5, 3];
    const { w, v } = operands(NH, KVH, T, HS);
    const got = full(w, v, null, NH, KVH, T, HS);
    for (let h = 0; h < NH; h++) for (let i = 0; i < T; i++) for (let d = 0; d < HS; d++) {
      let s = 0;
      for (let j = 0; j < T; j++) s += w[(h * T + i) * T + j] * v[(kvHead(h, NH, KVH) * T + j) * HS + d];
      assert.ok(Math.abs(got[i * NH * HS + h * HS + d] - s) < 1e-5, `${h} ${i} ${d}`);
    }
  });
});

describe('appendContext: queries appended to a causal input', () => {
  for (const [kname, kernel] of [['ts', tsKernel], ['wasm', createWasmKernel()]] as const) {
    it(`${kname} kernel: the new rows computed, the rows before kept, are the full context's bits (units applied)`, function () {
      if (!kernel) this.skip();
      for (const [NH, KVH, HS, T0, T] of [[4, 2, 6, 31, 32], [2, 1, 5, 3, 7], [8, 8, 16, 1, 2], [3, 1, 9, 18, 21]]) {
        const { w, v } = operands(NH, KVH, T, HS);
        const units = Float32Array.from({ length: NH }, (_, h) => (h === 1 ? 0 : 1 + h / 4));
        const want = full(w, v, units, NH, KVH, T, HS, kernel);
        // the run of the first T0 tokens (its weights are the full ones' first rows and keys: causal)
        const w0 = new Float32Array(NH * T0 * T0);
        for (let h = 0; h < NH; h++) for (let i = 0; i < T0; i++) w0.set(w.subarray((h * T + i) * T, (h * T + i) * T + T0), (h * T0 + i) * T0);
        const before = full(w0, headRows(v, KVH, T, HS, 0, T0), units, NH, KVH, T0, HS, kernel);
        const args = { weights: 'w', v: 'v', units: 'u', NH, KVH, HS };
        const got = appendContext(w, v, units, args, T, T0, before, kernel);
        assert.equal(bits(got).compare(bits(want)), 0, `NH ${NH} KVH ${KVH} HS ${HS}, T ${T0} → ${T}`);
        assert.ok(want.some((x) => x !== 0));
      }
    });
  }

  it('a new value that is not finite: every row computed (0·∞ is NaN in the full sums too)', () => {
    const [NH, KVH, HS, T0, T] = [2, 1, 4, 3, 4];
    const { w, v } = operands(NH, KVH, T, HS);
    v[(T - 1) * HS + 2] = Infinity;
    const want = full(w, v, null, NH, KVH, T, HS);
    assert.ok(Number.isNaN(want[2]), 'the first row has a NaN in the full sums');
    const got = appendContext(w, v, null, { weights: 'w', v: 'v', units: 'u', NH, KVH, HS }, T, T0, new Float32Array(T0 * NH * HS), tsKernel);
    assert.equal(bits(got).compare(bits(want)), 0);
  });
});
