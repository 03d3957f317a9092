// RMSNorm over the last dimension, as Hugging Face's LlamaRMSNorm: no mean subtracted, no shift;
// each row is divided by the root of its mean square (plus eps), then scaled by gamma.

import { vectorExp } from './expf';
import type { StageOp } from './graph';
import { laneSum, type NormArgs } from './layernorm';

// out (T,C) = inp / sqrt(mean(inp²) + eps) · gamma; gamma (C), null: ones. The sum of squares in
// f64 by lane, as layernormForward's, so the vector form gives the same bits.
export function rmsnormForward(out: Float32Array, inp: Float32Array, gamma: Float32Array | null, eps: number, T: number, C: number): void {
  const vector = C % 4 === 0 ? vectorExp() : null;
  if (vector !== null) {
    vector.norm(out, inp, gamma, null, eps, T, C, true);
    return;
  }
  const s = new Float64Array(4);
  for (let t = 0; t < T; t++) {
    const o = t * C;
    s.fill(0);
    for (let i = 0; i < C; i++) s[i & 3] += inp[o + i] * inp[o + i];
    const ms = laneSum(s) / C;
    const r = 1 / Math.sqrt(ms + eps);
    for (let i = 0; i < C; i++) out[o + i] = inp[o + i] * r * (gamma ? gamma[i] : 1);
  }
}

export const rmsnormOp: StageOp<NormArgs> = {
  name: 'rmsnorm',
  append: 'rows',
  run(ctx, a) {
    const out = new Float32Array(ctx.T * a.C);
    rmsnormForward(out, ctx.input(a.x), ctx.param(a.gamma)?.data ?? null, a.eps, ctx.T, a.C);
    return { data: out, changed: 'all' };
  },
};
