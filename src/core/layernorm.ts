// LayerNorm over the last dimension, as torch.nn.LayerNorm: biased variance (divide by C), eps
// inside the square root. A constant row has variance 0 and normalizes to beta.

import type { StageOp } from './graph';

// out (T,C) = (inp - mean) / sqrt(var + eps) · gamma + beta; gamma, beta (C), null: ones, zeros
export function layernormForward(
  out: Float32Array, inp: Float32Array, gamma: Float32Array | null, beta: Float32Array | null,
  eps: number, T: number, C: number,
): void {
  for (let t = 0; t < T; t++) {
    const o = t * C;
    let mean = 0;
    for (let i = 0; i < C; i++) mean += inp[o + i];
    mean /= C;
    let v = 0;
    for (let i = 0; i < C; i++) {
      const d = inp[o + i] - mean;
      v += d * d;
    }
    v /= C;
    const rstd = 1 / Math.sqrt(v + eps);
    for (let i = 0; i < C; i++) {
      const n = (inp[o + i] - mean) * rstd;
      out[o + i] = n * (gamma ? gamma[i] : 1) + (beta ? beta[i] : 0);
    }
  }
}

export interface NormArgs {
  readonly x: string;
  readonly gamma: string;
  /** null for RMSNorm, which has no shift. */
  readonly beta: string | null;
  readonly eps: number;
  readonly C: number;
}

/** Any change of its input or its parameters changes every number (the mean and variance mix them). */
export const layernormOp: StageOp<NormArgs> = {
  name: 'layernorm',
  append: 'rows',
  run(ctx, a) {
    const out = new Float32Array(ctx.T * a.C);
    layernormForward(out, ctx.input(a.x), ctx.param(a.gamma)?.data ?? null, a.beta === null ? null : ctx.param(a.beta)?.data ?? null, a.eps, ctx.T, a.C);
    return { data: out, changed: 'all' };
  },
};
