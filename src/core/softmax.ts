// Row softmax, stable: each row's max is subtracted before exp, so scores near 1000 do not
// overflow. Entries of -∞ (masked) get exactly 0. A row where every entry is -∞ has no
// distribution; we give it zeros rather than NaN (a causal mask never makes one: the
// diagonal is always visible).

import { expfInPlace } from './expf';
import type { StageOp } from './graph';

// out (R,N) = softmax(inp (R,N) · scale) by row. e^x in float32 (expf: most of the time over a
// 50,257-word vocabulary is exp), the sum in float64.
export function softmaxForward(out: Float32Array, inp: Float32Array, R: number, N: number, scale = 1): void {
  for (let r = 0; r < R; r++) {
    const o = r * N;
    let max = -Infinity;
    for (let j = 0; j < N; j++) {
      const v = inp[o + j] * scale;
      if (v > max) max = v;
    }
    if (max === -Infinity) out.fill(-Infinity, o, o + N); // (e^−∞ = 0 below)
    else for (let j = 0; j < N; j++) out[o + j] = inp[o + j] * scale - max;
  }
  expfInPlace(out, 0, R * N); // (one call for every row: a 32-token attention map is 32 rows)
  for (let r = 0; r < R; r++) {
    const o = r * N;
    let sum = 0;
    for (let j = 0; j < N; j++) sum += out[o + j];
    if (sum !== 0) for (let j = 0; j < N; j++) out[o + j] /= sum; // (a NaN sum spreads, as it should)
  }
}

export interface ProbsArgs { readonly logits: string; readonly V: number; readonly temperature: number }

/** The head's probabilities: softmax(logits / temperature) by row. */
export const probsOp: StageOp<ProbsArgs> = {
  name: 'probs',
  append: 'rows',
  run(ctx, a) {
    const out = new Float32Array(ctx.T * a.V);
    softmaxForward(out, ctx.input(a.logits), ctx.T, a.V, 1 / a.temperature);
    return { data: out, changed: 'all' };
  },
};
