// Gemma's embedding scale: the embedding rows are multiplied by √C before layer 0 reads them, so
// the `input` stage is embed[ids] · float32(√C) (transformers: `hidden_states * normalizer`, the
// normalizer a float32 tensor of hidden_size ** 0.5 when the model computes in float32).
//   out (T,C) = x (T,C) · s

/** The scale gemma multiplies its embedding by: √C rounded to float32. */
export function embedScaleOf(C: number): number {
  return Math.fround(Math.sqrt(C));
}

// out (N) = x (N) · s over [from, to) (a row range: appended tokens' rows alone); out may be x
export function embedScaleForward(out: Float32Array, x: Float32Array, s: number, from = 0, to = x.length): void {
  const sf = Math.fround(s);
  for (let i = from; i < to; i++) out[i] = x[i] * sf;
}
