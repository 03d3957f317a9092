// A matmul kernel the forward pass runs on: the TypeScript one here, the WebAssembly SIMD one
// in wasm/ when the runtime has simd128. Weights are packed once per change, then reused.

import { biasAddInto } from './bias';
import { matmulPacked, matmulPackedColumns, packB, repackBColumns, type PackedB } from './matmul';
import type { BLayout } from './matmulNaive';
import { createWasmKernel, type SpawnMatmulHelper } from './wasm';

export interface MatmulKernel {
  readonly name: string;
  /** Threads a large product runs on (2 where a helper thread shares it: wasm/matmulThreads.ts). */
  readonly threads: number;
  /** True when a product's acc + a·b is one fused multiply-add (wasm/matmulModule.ts), else a product then a sum. */
  readonly fused: boolean;
  /** Rearranges B once; the result is what matmul() takes. */
  pack(b: Float32Array, K: number, N: number, bLayout: BLayout): Packed;
  // out (M,N) = a (M,K) · B; with `biased`, also biased.out (M,N) = out + biased.b (N) by row, the
  // bits biasAdd gives (a linear layer keeps its product apart from its bias: linear.ts)
  matmul(out: Float32Array, a: Float32Array, M: number, packed: Packed, biased?: Biased): void;
  /**
   * Recomputes only the given columns of out (M,N), bit-identical to what matmul() writes there
   * (same operations, same order): an edit of one weight row in out_in changes one column.
   */
  matmulColumns(out: Float32Array, a: Float32Array, M: number, packed: Packed, cols: readonly number[]): void;
  /** Rewrites only these columns of packed B from b (an edit of rows of an out_in weight). */
  repackColumns(packed: Packed, b: Float32Array, bLayout: BLayout, cols: readonly number[]): void;
  /** Frees what pack() took, if the kernel holds memory of its own. */
  release(packed: Packed): void;
  /**
   * A new zeroed array for weights: where the kernel can, one in its own memory that pack() then
   * takes as it is, so weights loaded into it are held once, not once more as a packed copy.
   * `zeroed` false: its numbers are whatever was there (for an array every number of which is
   * written before it is read: a tensor read from a file). `room`: numbers its memory holds (at
   * least `length`): panelsLength(K, N) lets intoPanels rearrange an (N,K) matrix where it lies.
   */
  weightArray(length: number, zeroed?: boolean, room?: number): Float32Array;
  /**
   * Weights w (a weightArray of this kernel, B (K,N) as 'kn' or (N,K) as 'nk') rearranged as
   * panels ('panels', ./params.ts), which pack() then takes as it is, so that no product copies
   * them: where w lies when it has the room (see weightArray), else in a new weightArray, w's
   * memory given back at once. Either way w must not be used after.
   * Null where w is not in this kernel's memory: it stays as it is.
   */
  intoPanels(w: Float32Array, K: number, N: number, bLayout: 'kn' | 'nk'): Float32Array | null;
}

/** A bias to add to a product's rows, and where the sum goes. */
export interface Biased {
  readonly b: Float32Array;
  readonly out: Float32Array;
}

/** Opaque to callers: each kernel knows its own. */
export interface Packed {
  readonly K: number;
  readonly N: number;
}

export const tsKernel: MatmulKernel = {
  name: 'ts',
  threads: 1,
  fused: false,
  pack: (b, K, N, bLayout) => packB(b, K, N, bLayout),
  matmul: (out, a, M, packed, biased) => {
    matmulPacked(out, a, M, packed as PackedB);
    if (biased) biasAddInto(biased.out, out, biased.b, M, packed.N);
  },
  matmulColumns: (out, a, M, packed, cols) => matmulPackedColumns(out, a, M, packed as PackedB, cols),
  repackColumns: (packed, b, bLayout, cols) => repackBColumns(packed as PackedB, b, bLayout, cols),
  release: () => undefined,
  weightArray: (length) => new Float32Array(length),
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

let cached: MatmulKernel | null = null;

/**
 * The WebAssembly SIMD kernel where the runtime has simd128 (Node 20, VS Code's extension host,
 * browsers), else the TypeScript one. `spawnHelper`: a second thread for large products, where the
 * platform has one (wasm/matmulThreads.ts).
 */
export function defaultKernel(spawnHelper?: SpawnMatmulHelper): MatmulKernel {
  return (cached ??= createWasmKernel(spawnHelper) ?? tsKernel);
}
