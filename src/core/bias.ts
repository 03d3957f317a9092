// out (T,N) += bias (N), broadcast over rows.
export function biasAdd(out: Float32Array, bias: Float32Array, T: number, N: number): void {
  for (let t = 0; t < T; t++) {
    const o = t * N;
    for (let j = 0; j < N; j++) out[o + j] += bias[j];
  }
}

// sum (T,N) = pre (T,N) + bias (N) by row, the bits biasAdd gives; sum may be pre itself
export function biasAddInto(sum: Float32Array, pre: Float32Array, bias: Float32Array, T: number, N: number): void {
  if (sum !== pre) sum.set(pre.subarray(0, T * N));
  biasAdd(sum, bias, T, N);
}
