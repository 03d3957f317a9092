// An SAE's error: what its reconstruction misses, x − recon, per token and dimension; and the two
// numbers that say how well it reconstructs a run: the error's norm and the fraction of variance
// explained (SAELens' evals: 1 − Σ‖x − recon‖² / Σ‖x − mean_t x‖²).

import type { StageOp } from './graph';

export interface SaeErrorArgs {
  readonly x: string;
  readonly recon: string;
  readonly D: number;
}

export function saeErrorForward(x: Float32Array, recon: Float32Array, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = x[i] - recon[i];
  return out;
}

export const saeErrorOp: StageOp<SaeErrorArgs> = {
  name: 'saeError',
  append: 'rows',
  run(ctx, a) {
    return { data: saeErrorForward(ctx.input(a.x), ctx.input(a.recon), ctx.T * a.D), changed: 'all' };
  },
};

export interface SaeFit {
  /** ‖x − recon‖ over the whole run (every token and dimension), and per token. */
  readonly errorNorm: number;
  readonly tokenErrorNorms: number[];
  /** 1 − Σ‖x − recon‖² / Σ‖x − mean_t x‖²; null for a single token (no variance over tokens). */
  readonly varianceExplained: number | null;
}

/** How well recon reconstructs x [T, D] (in float64). */
export function saeFit(x: Float32Array, recon: Float32Array, T: number, D: number): SaeFit {
  const mean = new Float64Array(D);
  for (let t = 0; t < T; t++) for (let j = 0; j < D; j++) mean[j] += x[t * D + j] / T;
  let rss = 0;
  let tss = 0;
  const tokenErrorNorms: number[] = [];
  for (let t = 0; t < T; t++) {
    let r = 0;
    for (let j = 0; j < D; j++) {
      const e = x[t * D + j] - recon[t * D + j];
      r += e * e;
      const c = x[t * D + j] - mean[j];
      tss += c * c;
    }
    rss += r;
    tokenErrorNorms.push(Math.sqrt(r));
  }
  return { errorNorm: Math.sqrt(rss), tokenErrorNorms, varianceExplained: T > 1 && tss > 0 ? 1 - rss / tss : null };
}
