// Attention scores: how well each query matches each key, per head, before the mask.
//   scores_h = Q_h·K_gᵀ / √HS       (T,T), g = h / (NH/KVH): grouped-query heads share a key head
// or, with options, Q_h·K_gᵀ · scale (gemma: query_pre_attn_scalar^-½), then soft-capped
// tanh(s / c) · c (gemma2's attn_logit_softcapping).
// Every entry is computed (the causal mask is the weights' business: attentionWeights.ts).

import type { StageOp } from './graph';
import { matmulHeads, type MatmulKernel } from './kernel';
import { softcap } from './softcap';

/** Options of the scores (AttentionSpec's): absent, today's 1/√HS and no cap. */
export interface ScoreOptions {
  /** The scale; absent: 1/√HS. Given, it is used in float32 as torch multiplies by a Python float. */
  readonly scale?: number;
  /** tanh(s / c) · c after the scale; absent or null: none. */
  readonly softcap?: number | null;
}

/** The key/value head query head h reads (Hugging Face's repeat_kv: each key head serves NH/KVH consecutive query heads). */
export function kvHead(h: number, NH: number, KVH: number): number {
  return Math.floor(h / (NH / KVH));
}

// scores (NH,T,T) = q (NH,T,HS) · k (KVH,T,HS)ᵀ / √HS (or · opts.scale), soft-capped if opts.softcap
export function attentionScoresForward(scores: Float32Array, q: Float32Array, k: Float32Array, NH: number, KVH: number, T: number, HS: number, kernel: MatmulKernel, opts: ScoreOptions = {}): void {
  const scale = opts.scale === undefined ? 1 / Math.sqrt(HS) : Math.fround(opts.scale);
  const cap = opts.softcap ?? null;
  // (every head's product at once: the kernel shares them over its threads)
  matmulHeads(kernel, scores, q, k, NH, KVH, T, HS, T, 'nk');
  const n = NH * T * T;
  for (let i = 0; i < n; i++) scores[i] *= scale;
  if (cap !== null) for (let i = 0; i < n; i++) scores[i] = softcap(scores[i], cap);
}

export interface ScoresArgs extends ScoreOptions { readonly q: string; readonly k: string; readonly NH: number; readonly KVH: number; readonly HS: number }

export const attentionScoresOp: StageOp<ScoresArgs> = {
  name: 'attention-scores',
  run(ctx, a) {
    const out = new Float32Array(a.NH * ctx.T * ctx.T);
    attentionScoresForward(out, ctx.input(a.q), ctx.input(a.k), a.NH, a.KVH, ctx.T, a.HS, ctx.kernel, a);
    return { data: out, changed: 'all' };
  },
};
