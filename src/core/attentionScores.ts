// Attention scores: how well each query matches each key, per head, before the mask.
//   scores_h = Q_h·K_gᵀ / √HS       (T,T), g = h / (NH/KVH): grouped-query heads share a key head
// or, with options, Q_h·K_gᵀ · scale (gemma: query_pre_attn_scalar^-½), then soft-capped
// tanh(s / c) · c (gemma2's attn_logit_softcapping).
// Every entry is computed (the causal mask is the weights' business: attentionWeights.ts).
// Tokens appended: their rows, and the new keys' columns of the rows before (appendScores).

import type { StageOp } from './graph';
import { copyRows, headRows } from './heads';
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
  scoresOf(scores, q, k, NH, KVH, T, T, HS, kernel, opts);
}

// scores (NH,M,N) = q (NH,M,HS) · k (KVH,N,HS)ᵀ, scaled and capped: each entry is its own query
// and key's alone (a sum over HS in order, then the scale and the cap), whatever M and N.
function scoresOf(scores: Float32Array, q: Float32Array, k: Float32Array, NH: number, KVH: number, M: number, N: number, HS: number, kernel: MatmulKernel, opts: ScoreOptions): void {
  const scale = opts.scale === undefined ? 1 / Math.sqrt(HS) : Math.fround(opts.scale);
  const cap = opts.softcap ?? null;
  // (every head's product at once: the kernel shares them over its threads)
  matmulHeads(kernel, scores, q, k, NH, KVH, M, HS, N, 'nk');
  const n = NH * M * N;
  for (let i = 0; i < n; i++) scores[i] *= scale;
  if (cap !== null) for (let i = 0; i < n; i++) scores[i] = softcap(scores[i], cap);
}

/**
 * Queries T0 … T−1 appended (see StageOp.append): their rows against every key, and the new keys'
 * columns of the rows before (above the diagonal: every entry is computed, the mask is the
 * weights'); the rest from `previous`, the first T0 rows of each head, T0 or T keys wide.
 */
export function appendScores(q: Float32Array, k: Float32Array, a: ScoresArgs, T: number, T0: number, previous: Float32Array, kernel: MatmulKernel): Float32Array {
  const { NH, KVH, HS } = a;
  const n = T - T0;
  const out = new Float32Array(NH * T * T);
  const width = previous.length / (NH * T0);
  for (let h = 0; h < NH; h++) copyRows(out, h * T * T, T, previous, h * T0 * width, width, T0, T0);
  const rows = new Float32Array(NH * n * T); // (NH,n,T): the new queries against every key
  scoresOf(rows, headRows(q, NH, T, HS, T0, T), k, NH, KVH, n, T, HS, kernel, a);
  const cols = new Float32Array(NH * T0 * n); // (NH,T0,n): the queries before against the new keys
  scoresOf(cols, headRows(q, NH, T, HS, 0, T0), headRows(k, KVH, T, HS, T0, T), NH, KVH, T0, n, HS, kernel, a);
  for (let h = 0; h < NH; h++) {
    copyRows(out, (h * T + T0) * T, T, rows, h * n * T, T, n, T);
    copyRows(out, h * T * T + T0, T, cols, h * T0 * n, n, T0, n);
  }
  return out;
}

export interface ScoresArgs extends ScoreOptions { readonly q: string; readonly k: string; readonly NH: number; readonly KVH: number; readonly HS: number }

export const attentionScoresOp: StageOp<ScoresArgs> = {
  name: 'attention-scores',
  run(ctx, a) {
    const out = new Float32Array(a.NH * ctx.T * ctx.T);
    attentionScoresForward(out, ctx.input(a.q), ctx.input(a.k), a.NH, a.KVH, ctx.T, a.HS, ctx.kernel, a);
    return { data: out, changed: 'all' };
  },
  append: (ctx, a, T0, previous) => appendScores(ctx.input(a.q), ctx.input(a.k), a, ctx.T, T0, previous, ctx.kernel),
};
