// LayerNorm over the last dimension, as torch.nn.LayerNorm: biased variance (divide by C), eps
// inside the square root. A constant row has variance 0 and normalizes to beta.

// out (T,C) = (inp - mean) / sqrt(var + eps) · gamma + beta; gamma, beta (C)
export function layernormForward(
  out: Float32Array, inp: Float32Array, gamma: Float32Array | null, beta: Float32Array | null,
  eps: number, T: number, C: number,
): void {
  for (let t = 0; t < T; t++) {
    const o = t * C;
    let mean = 0;
    for (let i = 0; i < C; i++) mean += inp[o + i];
    mean /= C;
    let v = 0;
    for (let i = 0; i < C; i++) {
      const d = inp[o + i] - mean;
      v += d * d;
    }
    v /= C;
    const rstd = 1 / Math.sqrt(v + eps);
    for (let i = 0; i < C; i++) {
      const n = (inp[o + i] - mean) * rstd;
      out[o + i] = n * (gamma ? gamma[i] : 1) + (beta ? beta[i] : 0);
    }
  }
}
