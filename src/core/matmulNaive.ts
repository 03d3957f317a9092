// The reference matrix multiply: three plain loops, accumulated in float64.
// Every faster kernel is tested against this one.
//
// out (M,N) = a (M,K) · B, where b holds B either as (K,N) ("kn", y = x·W, layout in_out)
// or as its transpose (N,K) ("nk", y = x·Wᵀ, layout out_in / torch.nn.Linear).

export type BLayout = 'kn' | 'nk';

export function matmulNaive(
  out: Float32Array, a: Float32Array, b: Float32Array,
  M: number, K: number, N: number, bLayout: BLayout,
): void {
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let acc = 0;
      for (let k = 0; k < K; k++) {
        const bkj = bLayout === 'kn' ? b[k * N + j] : b[j * K + k];
        acc += a[i * K + k] * bkj;
      }
      out[i * N + j] = acc;
    }
  }
}
