// out (T,N) += bias (N), broadcast over rows.
export function biasAdd(out: Float32Array, bias: Float32Array, T: number, N: number): void {
  for (let t = 0; t < T; t++) {
    const o = t * N;
    for (let j = 0; j < N; j++) out[o + j] += bias[j];
  }
}
