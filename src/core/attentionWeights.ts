// Attention weights: the scores of each query, masked (causal: a token sees itself and the
// tokens before it, never after; a sliding window of w: nor the keys w or more positions back)
// and turned into a distribution by a row softmax. Masked weights are exactly 0.
//   weights_h = softmax(scores_h with −∞ where isMasked)     (T,T)

import type { StageOp } from './graph';
import { copyRows } from './heads';
import { softmaxForward } from './softmax';

/**
 * True where query i may not see key j: causal, a later key; with a sliding window (mistral,
 * gemma's sliding layers), also a key `window` or more positions back (key j is seen iff
 * i − window < j ≤ i, transformers' sliding_window_mask). window absent or null: none.
 */
export function isMasked(causal: boolean, i: number, j: number, window: number | null = null): boolean {
  return (causal && j > i) || (window !== null && j <= i - window);
}

// weights (NH,T,T) = softmax(mask(scores (NH,T,T))) by row: every head's rows in one softmax
// (each row computed alone, so the bits of one per head), which the kernel's threads share
export function attentionWeightsForward(weights: Float32Array, scores: Float32Array, NH: number, T: number, causal: boolean, window: number | null = null): void {
  softmaxForward(weights, maskedRows(scores, NH, T, 0, T, causal, window), NH * T, T);
}

// (NH, i1−i0, T): rows i0 … i1−1 of each head's scores, −∞ where isMasked
function maskedRows(scores: Float32Array, NH: number, T: number, i0: number, i1: number, causal: boolean, window: number | null): Float32Array {
  const n = i1 - i0;
  const masked = new Float32Array(NH * n * T).fill(-Infinity);
  for (let i = i0; i < i1; i++) {
    // the keys query i sees: j0 … j1−1 (isMasked false exactly there)
    const j0 = window === null ? 0 : Math.max(0, i - window + 1);
    const j1 = causal ? i + 1 : T;
    if (j1 <= j0) continue;
    for (let h = 0; h < NH; h++) copyRows(masked, (h * n + i - i0) * T + j0, 0, scores, (h * T + i) * T + j0, 0, 1, j1 - j0);
  }
  return masked;
}

/**
 * Queries T0 … T−1 appended to a causal input (see StageOp.append): their rows alone; a row
 * before is `previous`'s (its first T0 rows of each head, T0 or T keys wide) with exact zeros for
 * the new keys, which it cannot see. Its bits are those of the full softmax: the masked keys' e^−∞
 * add exact zeros to its sums (softmax.ts) and change neither its max nor its quotients.
 */
export function appendWeights(scores: Float32Array, a: WeightsArgs, T: number, T0: number, previous: Float32Array): Float32Array {
  const { NH } = a;
  const n = T - T0;
  const out = new Float32Array(NH * T * T);
  const width = previous.length / (NH * T0);
  for (let h = 0; h < NH; h++) copyRows(out, h * T * T, T, previous, h * T0 * width, width, T0, T0);
  const fresh = new Float32Array(NH * n * T);
  softmaxForward(fresh, maskedRows(scores, NH, T, T0, T, true, a.window ?? null), NH * n, T);
  for (let h = 0; h < NH; h++) copyRows(out, (h * T + T0) * T, T, fresh, h * n * T, T, n, T);
  return out;
}

export interface WeightsArgs {
  readonly scores: string;
  readonly NH: number;
  readonly causal: boolean;
  /** Sliding window (AttentionSpec.window); absent or null: none. */
  readonly window?: number | null;
}

export const attentionWeightsOp: StageOp<WeightsArgs> = {
  name: 'attention-weights',
  run(ctx, a) {
    const out = new Float32Array(a.NH * ctx.T * ctx.T);
    attentionWeightsForward(out, ctx.input(a.scores), a.NH, ctx.T, a.causal, a.window ?? null);
    return { data: out, changed: 'all' };
  },
  append(ctx, a, T0, previous) {
    if (!a.causal) throw new Error('attention weights: tokens are appended only to a causal input');
    return appendWeights(ctx.input(a.scores), a, ctx.T, T0, previous);
  },
};
