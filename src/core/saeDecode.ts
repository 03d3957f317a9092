// An SAE's decoder: activations [T, d_sae] → the reconstruction [T, d_in] = norm_out(acts · W_dec
// + b_dec) (saeSpec.ts). The activations are sparse (a few dozen of thousands of features fire on a
// token), so each token's reconstruction is b_dec plus the W_dec rows of its active features,
// walked in feature order: no dense product over the zeros.

import type { StageOp } from './graph';
import { inputScale, type SaeSpec } from './saeSpec';
import { floatData, floatOrNull } from './params';

export interface SaeDecodeArgs {
  /** The SAE's input stage (the per-token rescale of constant_norm_rescale is undone with its norm). */
  readonly x: string;
  readonly acts: string;
  readonly sae: SaeSpec;
  readonly Wdec: string;
  readonly bdec: string;
}

/** recon [T, d_in] from acts [T, d_sae]; W_dec [d_sae, d_in] row-major; x: the SAE's input (for its rescale). */
export function saeDecode(sae: SaeSpec, acts: Float32Array, T: number, Wdec: Float32Array, bdec: Float32Array | null, x: Float32Array): Float32Array {
  const D = sae.dIn;
  const N = sae.dSae;
  const out = new Float32Array(T * D);
  const acc = new Float32Array(D);
  for (let t = 0; t < T; t++) {
    if (bdec) acc.set(bdec);
    else acc.fill(0);
    for (let f = 0; f < N; f++) {
      const a = acts[t * N + f];
      if (a === 0) continue;
      const row = f * D;
      for (let j = 0; j < D; j++) acc[j] += a * Wdec[row + j];
    }
    const s = inputScale(sae, x, t);
    for (let j = 0; j < D; j++) out[t * D + j] = s === 1 ? acc[j] : acc[j] / s;
  }
  return out;
}

/** The plain forward (dense, every feature): what saeDecode is tested against. */
export function saeDecodeNaive(sae: SaeSpec, acts: Float32Array, T: number, Wdec: Float32Array, bdec: Float32Array | null, x: Float32Array): Float32Array {
  const D = sae.dIn;
  const N = sae.dSae;
  const out = new Float32Array(T * D);
  for (let t = 0; t < T; t++) {
    const s = inputScale(sae, x, t);
    for (let j = 0; j < D; j++) {
      let v = 0;
      for (let f = 0; f < N; f++) v += acts[t * N + f] * Wdec[f * D + j];
      out[t * D + j] = (v + (bdec ? bdec[j] : 0)) / s;
    }
  }
  return out;
}

export const saeDecodeOp: StageOp<SaeDecodeArgs> = {
  name: 'saeDecode',
  append: 'rows',
  run(ctx, a) {
    const W = ctx.param(a.Wdec);
    if (!W) throw new Error(`no param ${a.Wdec}`);
    const data = saeDecode(a.sae, ctx.input(a.acts), ctx.T, floatData(W), floatOrNull(ctx.param(a.bdec)), ctx.input(a.x));
    return { data, changed: 'all' };
  },
};
