// Attention weights: the scores of each query, masked (causal: a token sees itself and the
// tokens before it, never after; a sliding window of w: nor the keys w or more positions back)
// and turned into a distribution by a row softmax. Masked weights are exactly 0.
//   weights_h = softmax(scores_h with −∞ where isMasked)     (T,T)

import type { StageOp } from './graph';
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
  const masked = new Float32Array(NH * T * T).fill(-Infinity);
  for (let i = 0; i < T; i++) {
    // the keys query i sees: j0 … j1−1 (isMasked false exactly there)
    const j0 = window === null ? 0 : Math.max(0, i - window + 1);
    const j1 = causal ? i + 1 : T;
    if (j1 <= j0) continue;
    for (let h = 0; h < NH; h++) {
      const r = (h * T + i) * T;
      masked.set(scores.subarray(r + j0, r + j1), r + j0);
    }
  }
  softmaxForward(weights, masked, NH * T, T);
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
};
