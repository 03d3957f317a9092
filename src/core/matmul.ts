// The TypeScript matrix multiply: B packed once into float64 panels of 4 columns, then a
// 4×4 register block. About 5× the naive loop (pure TS tops out near 4 GFLOPS on this kind of machine);
// the WebAssembly SIMD kernel (src/core/wasm/) is faster and falls back to this one.
//
// Each output is accumulated in float64 in the order k = 0…K-1, exactly as matmulNaive does,
// and float32 products are exact in float64, so the result is bit-identical to the reference.

import { bIndex, type BLayout } from './matmulNaive';

/** B (K,N) rearranged as ceil(N/4) panels, each K rows × 4 columns, zero-padded. */
export interface PackedB {
  readonly K: number;
  readonly N: number;
  readonly panels: Float64Array;
}

// b (K,N) if "kn", (N,K) if "nk", panels of 16 if "panels"  ->  panels (ceil(N/4), K, 4)
export function packB(b: Float32Array, K: number, N: number, bLayout: BLayout): PackedB {
  const NP = Math.ceil(N / 4);
  const panels = new Float64Array(NP * K * 4);
  for (let p = 0; p < NP; p++) {
    const base = p * K * 4;
    for (let c = 0; c < 4; c++) {
      const j = p * 4 + c;
      if (j >= N) break;
      if (bLayout === 'kn') {
        for (let k = 0; k < K; k++) panels[base + k * 4 + c] = b[k * N + j];
      } else if (bLayout === 'nk') {
        const row = j * K;
        for (let k = 0; k < K; k++) panels[base + k * 4 + c] = b[row + k];
      } else for (let k = 0; k < K; k++) panels[base + k * 4 + c] = b[bIndex(bLayout, k, j, K, N)];
    }
  }
  return { K, N, panels };
}

// Column j of packed B from b again, for j in cols (b as bLayout says)
export function repackBColumns(pb: PackedB, b: Float32Array, bLayout: BLayout, cols: readonly number[]): void {
  const { K, N, panels } = pb;
  for (const j of cols) {
    const base = (j >> 2) * K * 4 + (j & 3);
    for (let k = 0; k < K; k++) panels[base + k * 4] = b[bIndex(bLayout, k, j, K, N)];
  }
}

// out (M,N) = a (M,K) · B (packed)
export function matmulPacked(out: Float32Array, a: Float32Array, M: number, pb: PackedB): void {
  const { K, N, panels } = pb;
  const NP = Math.ceil(N / 4);
  for (let i0 = 0; i0 < M; i0 += 4) {
    const rows = Math.min(4, M - i0);
    const a0 = i0 * K;
    const a1 = rows > 1 ? a0 + K : a0;
    const a2 = rows > 2 ? a0 + 2 * K : a0;
    const a3 = rows > 3 ? a0 + 3 * K : a0;
    for (let p = 0; p < NP; p++) {
      let c00 = 0, c01 = 0, c02 = 0, c03 = 0;
      let c10 = 0, c11 = 0, c12 = 0, c13 = 0;
      let c20 = 0, c21 = 0, c22 = 0, c23 = 0;
      let c30 = 0, c31 = 0, c32 = 0, c33 = 0;
      let q = p * K * 4;
      for (let k = 0; k < K; k++, q += 4) {
        const b0 = panels[q], b1 = panels[q + 1], b2 = panels[q + 2], b3 = panels[q + 3];
        const x0 = a[a0 + k], x1 = a[a1 + k], x2 = a[a2 + k], x3 = a[a3 + k];
        c00 += x0 * b0; c01 += x0 * b1; c02 += x0 * b2; c03 += x0 * b3;
        c10 += x1 * b0; c11 += x1 * b1; c12 += x1 * b2; c13 += x1 * b3;
        c20 += x2 * b0; c21 += x2 * b1; c22 += x2 * b2; c23 += x2 * b3;
        c30 += x3 * b0; c31 += x3 * b1; c32 += x3 * b2; c33 += x3 * b3;
      }
      const j0 = p * 4;
      const cols = Math.min(4, N - j0);
      store(out, i0 * N + j0, cols, c00, c01, c02, c03);
      if (rows > 1) store(out, (i0 + 1) * N + j0, cols, c10, c11, c12, c13);
      if (rows > 2) store(out, (i0 + 2) * N + j0, cols, c20, c21, c22, c23);
      if (rows > 3) store(out, (i0 + 3) * N + j0, cols, c30, c31, c32, c33);
    }
  }
}

// out[:, j] for j in cols only; same float64 sums in the same order as matmulPacked
export function matmulPackedColumns(out: Float32Array, a: Float32Array, M: number, pb: PackedB, cols: readonly number[]): void {
  const { K, N, panels } = pb;
  for (const j of cols) {
    const base = (j >> 2) * K * 4 + (j & 3);
    for (let i = 0; i < M; i++) {
      let acc = 0;
      const ai = i * K;
      for (let k = 0; k < K; k++) acc += a[ai + k] * panels[base + k * 4];
      out[i * N + j] = acc;
    }
  }
}

function store(out: Float32Array, o: number, cols: number, v0: number, v1: number, v2: number, v3: number): void {
  out[o] = v0;
  if (cols > 1) out[o + 1] = v1;
  if (cols > 2) out[o + 2] = v2;
  if (cols > 3) out[o + 3] = v3;
}

// out (M,N) = a (M,K) · B, packing B on the way (for operands that change every pass: Q·Kᵀ, P·V)
export function matmul(
  out: Float32Array, a: Float32Array, b: Float32Array,
  M: number, K: number, N: number, bLayout: BLayout,
): void {
  matmulPacked(out, a, M, packB(b, K, N, bLayout));
}
