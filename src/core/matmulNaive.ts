// The reference matrix multiply: three plain loops, accumulated in float64.
// Every faster kernel is tested against this one.
//
// out (M,N) = a (M,K) · B, where b holds B either as (K,N) ("kn", y = x·W, layout in_out),
// as its transpose (N,K) ("nk", y = x·Wᵀ, layout out_in / torch.nn.Linear), or as panels of 16
// columns ("panels": ./params.ts, a checkpoint's weights as the kernel multiplies them).

import { weightIndex } from './params';

export type BLayout = 'kn' | 'nk' | 'panels';

/** Index in b of B[k][j], B (K,N) held as bLayout says. */
export function bIndex(bLayout: BLayout, k: number, j: number, K: number, N: number): number {
  return weightIndex(bLayout === 'kn' ? 'in_out' : bLayout === 'nk' ? 'out_in' : 'panels', k, j, K, N);
}

export function matmulNaive(
  out: Float32Array, a: Float32Array, b: Float32Array,
  M: number, K: number, N: number, bLayout: BLayout,
): void {
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let acc = 0;
      for (let k = 0; k < K; k++) {
        acc += a[i * K + k] * b[bIndex(bLayout, k, j, K, N)];
      }
      out[i * N + j] = acc;
    }
  }
}
