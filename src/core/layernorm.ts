// LayerNorm over the last dimension, as torch.nn.LayerNorm: biased variance (divide by C), eps
// inside the square root. A constant row has variance 0 and normalizes to beta.

import { vectorExp } from './expf';
import type { StageOp } from './graph';

// out (T,C) = (inp - mean) / sqrt(var + eps) · gamma + beta; gamma, beta (C), null: ones, zeros.
// Sums in f64 by lane, (s0 + s2) + (s1 + s3) (s_l: the terms at i ≡ l mod 4, in order), as the
// vector form sums them (wasm/expModule.ts, where C is a multiple of 4), so the two give the
// same bits: a row appended is normalized as the whole stage was.
export function layernormForward(
  out: Float32Array, inp: Float32Array, gamma: Float32Array | null, beta: Float32Array | null,
  eps: number, T: number, C: number,
): void {
  const vector = C % 4 === 0 ? vectorExp() : null;
  if (vector !== null) {
    vector.norm(out, inp, gamma, beta, eps, T, C, false);
    return;
  }
  const s = new Float64Array(4);
  for (let t = 0; t < T; t++) {
    const o = t * C;
    s.fill(0);
    for (let i = 0; i < C; i++) s[i & 3] += inp[o + i];
    const mean = laneSum(s) / C;
    s.fill(0);
    for (let i = 0; i < C; i++) {
      const d = inp[o + i] - mean;
      s[i & 3] += d * d;
    }
    const v = laneSum(s) / C;
    const rstd = 1 / Math.sqrt(v + eps);
    for (let i = 0; i < C; i++) {
      const n = (inp[o + i] - mean) * rstd;
      out[o + i] = n * (gamma ? gamma[i] : 1) + (beta ? beta[i] : 0);
    }
  }
}

/** (s0 + s2) + (s1 + s3): four partial sums, as f64x2 lanes add them. */
export function laneSum(s: Float64Array): number {
  return s[0] + s[2] + (s[1] + s[3]);
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
    const out = ctx.rows(a.C);
    layernormForward(out, ctx.input(a.x), ctx.param(a.gamma)?.data ?? null, a.beta === null ? null : ctx.param(a.beta)?.data ?? null, a.eps, ctx.T, a.C);
    return { data: out, changed: 'all' };
  },
};
