// RMSNorm over the last dimension, as Hugging Face's LlamaRMSNorm: no mean subtracted, no shift;
// each row is divided by the root of its mean square (plus eps), then scaled by gamma.

import type { StageOp } from './graph';
import type { NormArgs } from './layernorm';

// out (T,C) = inp / sqrt(mean(inp²) + eps) · gamma; gamma (C), null: ones
export function rmsnormForward(out: Float32Array, inp: Float32Array, gamma: Float32Array | null, eps: number, T: number, C: number): void {
  for (let t = 0; t < T; t++) {
    const o = t * C;
    let ms = 0;
    for (let i = 0; i < C; i++) ms += inp[o + i] * inp[o + i];
    ms /= C;
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
