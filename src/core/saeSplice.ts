// The stream downstream of an SAE (SAELens' splice with use_error_term): the reconstruction of the
// edited activations plus the error of the unedited ones, recon(edit(acts)) + (x − recon(acts)),
// so that everything the SAE misses passes on unchanged. With no edit the stage IS its input
// (the same numbers, not recomputed): downstream is bit for bit the run without the SAE.
//
// Edits, per feature: `scale` (sae_scale, sae_ablate = 0) multiplies its activation; `clamp`
// (sae_clamp; NaN: none) sets it to a value at every token, firing or not (as Anthropic's and
// Neuronpedia's steering by clamping); a clamp wins over a scale.

import type { StageOp } from './graph';
import { saeDecode } from './saeDecode';
import type { SaeSpec } from './saeSpec';
import { floatData, floatOrNull } from './params';

export interface SaeSpliceArgs {
  readonly x: string;
  readonly acts: string;
  readonly error: string;
  readonly sae: SaeSpec;
  readonly Wdec: string;
  readonly bdec: string;
  readonly scale: string;
  readonly clamp: string;
}

/** acts with the edits applied (a new array). */
export function editActs(acts: Float32Array, T: number, N: number, scale: Float32Array | null, clamp: Float32Array | null): Float32Array {
  const out = acts.slice(0, T * N);
  for (let t = 0; t < T; t++) {
    for (let f = 0; f < N; f++) {
      const c = clamp ? clamp[f] : NaN;
      const i = t * N + f;
      if (c === c) out[i] = c;
      else if (scale) out[i] = out[i] * scale[f];
    }
  }
  return out;
}

export function saeSpliceForward(sae: SaeSpec, x: Float32Array, acts: Float32Array, error: Float32Array, T: number, Wdec: Float32Array, bdec: Float32Array | null, scale: Float32Array | null, clamp: Float32Array | null): Float32Array {
  if (!scale && !clamp) return x;
  const recon = saeDecode(sae, editActs(acts, T, sae.dSae, scale, clamp), T, Wdec, bdec, x);
  for (let i = 0; i < T * sae.dIn; i++) recon[i] += error[i];
  return recon;
}

export const saeSpliceOp: StageOp<SaeSpliceArgs> = {
  name: 'saeSplice',
  append: 'rows',
  run(ctx, a) {
    const scale = floatOrNull(ctx.param(a.scale));
    const clamp = floatOrNull(ctx.param(a.clamp));
    const x = ctx.input(a.x);
    if (!scale && !clamp) return { data: x, changed: ctx.full ? 'all' : ctx.changed(a.x) };
    const W = ctx.param(a.Wdec);
    if (!W) throw new Error(`no param ${a.Wdec}`);
    const data = saeSpliceForward(a.sae, x, ctx.input(a.acts), ctx.input(a.error), ctx.T, floatData(W), floatOrNull(ctx.param(a.bdec)), scale, clamp);
    return { data, changed: 'all' };
  },
};
