// A matmul kernel the forward pass runs on: the TypeScript one here, the WebAssembly SIMD one
// in wasm/ when the runtime has simd128. Weights are packed once per change, then reused.

import { biasAddInto } from './bias';
import { matmulPacked, matmulPackedColumns, packB, repackBColumns, type PackedB } from './matmul';
import type { BLayout } from './matmulNaive';
import { floatWeights } from './halfWeights';
import type { MatmulKernel } from './matmulKernel';
import { createMultiKernel, type SpawnMatmulHelper } from './wasm';
import { shareVectorOps } from './expf';

// (the interface: ./matmulKernel.ts, below wasm/, which implements it too)
export type { Biased, MatmulKernel, Packed, Weights } from './matmulKernel';

export const tsKernel: MatmulKernel = {
  name: 'ts',
  threads: 1,
  fused: false,
  pack: (b, K, N, bLayout) => packB(floatWeights(b), K, N, bLayout),
  matmul: (out, a, M, packed, biased) => {
    matmulPacked(out, a, M, packed as PackedB);
    if (biased) biasAddInto(biased.out, out, biased.b, M, packed.N);
  },
  matmulColumns: (out, a, M, packed, cols) => matmulPackedColumns(out, a, M, packed as PackedB, cols),
  repackColumns: (packed, b, bLayout, cols) => repackBColumns(packed as PackedB, floatWeights(b), bLayout, cols),
  release: () => undefined,
  weightArray: (length) => new Float32Array(length),
  halfArray: (length) => new Uint16Array(length),
  intoPanels: () => null, // (its packs are float64 copies whatever the layout)
};

// out (M,N) = a (M,K) · B, packing B for this one call.
export function matmulOnce(
  kernel: MatmulKernel, out: Float32Array, a: Float32Array, b: Float32Array,
  M: number, K: number, N: number, bLayout: BLayout,
): void {
  const p = kernel.pack(b, K, N, bLayout);
  try {
    kernel.matmul(out, a, M, p);
  } finally {
    kernel.release(p);
  }
}

/**
 * out (NH,M,N) = a_h (M,K) · B_g for each head h, g = floor(h / (NH / KVH)); b (KVH,K,N) for 'kn',
 * (KVH,N,K) for 'nk': the kernel's matmulHeads where it has one (shared over its threads), else
 * matmulOnce head by head (the same bits).
 */
export function matmulHeads(
  kernel: MatmulKernel, out: Float32Array, a: Float32Array, b: Float32Array,
  NH: number, KVH: number, M: number, K: number, N: number, bLayout: 'kn' | 'nk',
): void {
  if (kernel.matmulHeads) return kernel.matmulHeads(out, a, b, NH, KVH, M, K, N, bLayout);
  for (let h = 0; h < NH; h++) {
    const g = Math.floor(h / (NH / KVH));
    matmulOnce(kernel, out.subarray(h * M * N, (h + 1) * M * N), a.subarray(h * M * K, (h + 1) * M * K), b.subarray(g * K * N, (g + 1) * K * N), M, K, N, bLayout);
  }
}

let cached: MatmulKernel | null = null;

/**
 * The WebAssembly SIMD kernel where the runtime has simd128 (Node 20, VS Code's extension host,
 * browsers), over as many memories as the weights take (wasm/multiKernel.ts), else the
 * TypeScript one. `spawnHelper`: helper threads for large products, where the platform has them
 * (wasm/matmulThreads.ts), `threads` in all with the caller. (Made once: later calls return the
 * same kernel, whatever they pass.)
 */
export function defaultKernel(spawnHelper?: SpawnMatmulHelper, threads?: number): MatmulKernel {
  if (cached === null) {
    cached = createMultiKernel(spawnHelper, { threads }) ?? tsKernel;
    shareVectorOps(cached as Parameters<typeof shareVectorOps>[0]); // (softmax, norms, activations on the same threads)
  }
  return cached;
}
