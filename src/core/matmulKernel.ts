// What a matmul kernel offers the forward pass: the interface the TypeScript kernel (kernel.ts)
// and the WebAssembly one (wasm/wasmKernel.ts) both implement. Apart from kernel.ts, which picks
// one and imports wasm/, so that the WebAssembly kernel can name it without an import circle.

import type { HalfBits } from './halfWeights';
import type { BLayout } from './matmulNaive';

/**
 * B's numbers: float32, or a BF16/F16 matrix's 16-bit patterns (./halfWeights.ts). A kernel
 * multiplies 16-bit panels of its own memory as they are, widening each panel inside the product
 * (bit-identical to the float32 numbers); any other 16-bit B it widens to float32 when packing.
 */
export type Weights = Float32Array | HalfBits;

export interface MatmulKernel {
  readonly name: string;
  /** Threads a large product runs on (2 where a helper thread shares it: wasm/matmulThreads.ts). */
  readonly threads: number;
  /** True when a product's acc + a·b is one fused multiply-add (wasm/matmulModule.ts), else a product then a sum. */
  readonly fused: boolean;
  /** Rearranges B once; the result is what matmul() takes. */
  pack(b: Weights, K: number, N: number, bLayout: BLayout): Packed;
  // out (M,N) = a (M,K) · B; with `biased`, also biased.out (M,N) = out + biased.b (N) by row, the
  // bits biasAdd gives (a linear layer keeps its product apart from its bias: linear.ts)
  matmul(out: Float32Array, a: Float32Array, M: number, packed: Packed, biased?: Biased): void;
  /**
   * Recomputes only the given columns of out (M,N), bit-identical to what matmul() writes there
   * (same operations, same order): an edit of one weight row in out_in changes one column.
   */
  matmulColumns(out: Float32Array, a: Float32Array, M: number, packed: Packed, cols: readonly number[]): void;
  /** Rewrites only these columns of packed B from b (an edit of rows of an out_in weight). */
  repackColumns(packed: Packed, b: Weights, bLayout: BLayout, cols: readonly number[]): void;
  /**
   * Attention's products, one per head: out (NH,M,N) = a_h (M,K) · B_g for each head h, g =
   * floor(h / (NH / KVH)), b (KVH,K,N) for 'kn' or (KVH,N,K) for 'nk': each head bit-identical to
   * matmulOnce of its own (wasm/headProducts.ts shares the heads over the kernel's threads).
   * Absent: callers loop over the heads (matmulHeads in kernel.ts).
   */
  matmulHeads?(out: Float32Array, a: Float32Array, b: Float32Array, NH: number, KVH: number, M: number, K: number, N: number, bLayout: 'kn' | 'nk'): void;
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
  /** As weightArray, for the 16-bit patterns of a BF16/F16 matrix (not zeroed: every one is written before it is read). */
  halfArray(length: number, room?: number): Uint16Array;
  /**
   * Weights w (a weightArray or halfArray of this kernel, B (K,N) as 'kn' or (N,K) as 'nk') rearranged as
   * panels ('panels', ./params.ts), which pack() then takes as it is, so that no product copies
   * them: where w lies when it has the room (see weightArray), else in a new weightArray, w's
   * memory given back at once. Either way w must not be used after.
   * Null where w is not in this kernel's memory: it stays as it is.
   */
  intoPanels<W extends Float32Array | Uint16Array>(w: W, K: number, N: number, bLayout: 'kn' | 'nk'): W | null;
  /**
   * The most bytes of weights weightArray holds, in all and in one array; absent: one WebAssembly
   * memory's for both (wasm/multiKernel.ts spreads them over several: only an array is bounded).
   */
  weightLimits?(): WeightLimits;
}

export interface WeightLimits {
  readonly total: number;
  readonly array: number;
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
