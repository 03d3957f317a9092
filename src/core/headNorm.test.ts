// q_norm / k_norm: an RMSNorm of every head's HS numbers at every position with one gain shared
// by the heads, against the naive formula (qwen3: plain, gemma3: one-plus).
import * as assert from 'node:assert/strict';
import { headNormForward } from './headNorm';

function naive(x: Float32Array, w: Float32Array, eps: number, H: number, T: number, HS: number, onePlus: boolean): Float32Array {
  const out = new Float32Array(x.length);
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const o = (h * T + t) * HS;
      let ss = 0;
      for (let d = 0; d < HS; d++) ss += x[o + d] ** 2;
      const r = 1 / Math.sqrt(ss / HS + eps);
      for (let d = 0; d < HS; d++) out[o + d] = x[o + d] * r * (onePlus ? 1 + w[d] : w[d]);
    }
  }
  return out;
}

describe('headNormForward (q_norm, k_norm)', () => {
  for (const [HS, onePlus] of [[6, false], [8, true], [8, false], [6, true]] as const) {
    it(`HS ${HS}, ${onePlus ? 'one-plus (gemma3)' : 'plain (qwen3)'}: each (head, position) normalized over its HS numbers, the gain shared by the heads`, () => {
      const H = 3; const T = 4;
      const x = Float32Array.from({ length: H * T * HS }, (_, i) => Math.sin(i * 0.77) * (1 + (i % 5)));
      const w = Float32Array.from({ length: HS }, (_, d) => (onePlus ? 0.1 : 1) * Math.cos(d + 1));
      const got = new Float32Array(x.length);
      headNormForward(got, x, w, 1e-6, H, T, HS, onePlus);
      const want = naive(x, w, 1e-6, H, T, HS, onePlus);
      for (let i = 0; i < x.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-6 * Math.abs(want[i]) + 1e-7, `${i}: ${got[i]} vs ${want[i]}`);
      // in place: the same bits
      const inPlace = x.slice();
      headNormForward(inPlace, inPlace, w, 1e-6, H, T, HS, onePlus);
      assert.deepEqual(inPlace, got);
    });
  }
  it('worked by hand: a head row [3, 4] with gain [1, 1] becomes [0.6, 0.8]·√2, one row per head and position', () => {
    const out = new Float32Array(4);
    headNormForward(out, new Float32Array([3, 4, 0, 5]), new Float32Array([1, 1]), 0, 2, 1, 2);
    const r = Math.SQRT2;
    [0.6 * r, 0.8 * r, 0, r].forEach((v, i) => assert.ok(Math.abs(out[i] - v) < 1e-6, `${i}: ${out[i]} vs ${v}`));
  });
});
