// Row softmax, stable: each row's max is subtracted before exp, so scores near 1000 do not
// overflow. Entries of -∞ (masked) get exactly 0. A row where every entry is -∞ has no
// distribution; we give it zeros rather than NaN (a causal mask never makes one: the
// diagonal is always visible).

import { expfInPlace, vectorExp } from './expf';
import type { StageOp } from './graph';

// out (R,N) = softmax(inp (R,N) · scale) by row. e^x in float32 (expf: most of the time over a
// 50,257-word vocabulary is exp), the sum in float64 by lane: (s0 + s2) + (s1 + s3), s_l the
// values at j ≡ l mod 4 in order, as the vector form sums them (wasm/expModule.ts), so the two
// give the same bits. The vector form where the runtime has it: every pass in WebAssembly, not a
// JavaScript loop over 50,257 numbers a row (~2 ns each) four times.
export function softmaxForward(out: Float32Array, inp: Float32Array, R: number, N: number, scale = 1): void {
  const v = scale > 0 ? vectorExp() : null; // (the padding of its rows is −∞, which a scale ≤ 0 would turn)
  if (v !== null) v.softmax(out, inp, R, N, scale);
  else softmaxScalar(out, inp, R, N, scale);
}

/** softmaxForward in JavaScript loops (exp as expfInPlace). */
export function softmaxScalar(out: Float32Array, inp: Float32Array, R: number, N: number, scale = 1): void {
  const s = new Float64Array(4);
  for (let r = 0; r < R; r++) {
    const o = r * N;
    let max = -Infinity;
    for (let j = 0; j < N; j++) {
      const v = inp[o + j] * scale;
      if (v > max) max = v;
    }
    if (max === -Infinity) {
      out.fill(0, o, o + N); // (no distribution: zeros, not NaN)
      continue;
    }
    for (let j = 0; j < N; j++) out[o + j] = inp[o + j] * scale - max;
    expfInPlace(out, o, o + N);
    s.fill(0);
    for (let j = 0; j < N; j++) s[j & 3] += out[o + j];
    const sum = s[0] + s[2] + (s[1] + s[3]);
    if (sum !== 0) for (let j = 0; j < N; j++) out[o + j] /= sum; // (a NaN sum spreads, as it should)
  }
}

export interface ProbsArgs { readonly logits: string; readonly V: number; readonly temperature: number }

/** The head's probabilities: softmax(logits / temperature) by row. */
export const probsOp: StageOp<ProbsArgs> = {
  name: 'probs',
  append: 'rows',
  run(ctx, a) {
    const out = ctx.rows(a.V);
    softmaxForward(out, ctx.input(a.logits), ctx.T, a.V, 1 / a.temperature);
    return { data: out, changed: 'all' };
  },
};
