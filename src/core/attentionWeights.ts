// Attention weights: the scores of each query, masked (causal: a token sees itself and the
// tokens before it, never after) and turned into a distribution by a row softmax.
//   weights_h = softmax(scores_h with −∞ above the diagonal when causal)     (T,T)

import type { StageOp } from './graph';
import { softmaxForward } from './softmax';

/** True where query i may not see key j. */
export function isMasked(causal: boolean, i: number, j: number): boolean {
  return causal && j > i;
}

// weights (NH,T,T) = softmax(mask(scores (NH,T,T))) by row
export function attentionWeightsForward(weights: Float32Array, scores: Float32Array, NH: number, T: number, causal: boolean): void {
  const masked = new Float32Array(T * T);
  for (let h = 0; h < NH; h++) {
    const sh = scores.subarray(h * T * T, (h + 1) * T * T);
    for (let i = 0; i < T; i++) {
      for (let j = 0; j < T; j++) masked[i * T + j] = isMasked(causal, i, j) ? -Infinity : sh[i * T + j];
    }
    softmaxForward(weights.subarray(h * T * T, (h + 1) * T * T), masked, T, T);
  }
}

export interface WeightsArgs { readonly scores: string; readonly NH: number; readonly causal: boolean }

export const attentionWeightsOp: StageOp<WeightsArgs> = {
  name: 'attention-weights',
  run(ctx, a) {
    const out = new Float32Array(a.NH * ctx.T * ctx.T);
    attentionWeightsForward(out, ctx.input(a.scores), a.NH, ctx.T, a.causal);
    return { data: out, changed: 'all' };
  },
};
