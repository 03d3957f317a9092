// RMSNorm over the last dimension, as Hugging Face's LlamaRMSNorm: no mean subtracted, no shift;
// each row is divided by the root of its mean square (plus eps), then scaled by gamma.
// Gemma's (Gemma2RMSNorm, Gemma3RMSNorm) scales by (1 + w) instead, w the stored gain: `onePlus`.

import { vectorExp } from './expf';
import type { StageOp } from './graph';
import { laneSum, type NormArgs } from './layernorm';

/** (1 + w) in float32, as torch's `1.0 + self.weight.float()`: the gain a one-plus norm multiplies by. */
export function onePlusGamma(w: Float32Array): Float32Array {
  const g = new Float32Array(w.length);
  for (let i = 0; i < w.length; i++) g[i] = 1 + w[i];
  return g;
}

// out (T,C) = inp / sqrt(mean(inp²) + eps) · gamma; gamma (C), null: ones; onePlus: · (1 + gamma)
// (null: ones still). The sum of squares in f64 by lane, as layernormForward's, so the vector form
// gives the same bits.
export function rmsnormForward(out: Float32Array, inp: Float32Array, gamma: Float32Array | null, eps: number, T: number, C: number, onePlus = false): void {
  if (onePlus && gamma !== null) gamma = onePlusGamma(gamma);
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

export interface RmsNormArgs extends NormArgs {
  /** x̂ · (1 + gamma), gemma's; absent: gamma · x̂. */
  readonly onePlus?: boolean;
}

export const rmsnormOp: StageOp<RmsNormArgs> = {
  name: 'rmsnorm',
  append: 'rows',
  run(ctx, a) {
    const out = ctx.rows(a.C);
    rmsnormForward(out, ctx.input(a.x), ctx.param(a.gamma)?.data ?? null, a.eps, ctx.T, a.C, a.onePlus ?? false);
    return { data: out, changed: 'all' };
  },
};
