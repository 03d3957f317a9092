// The WebAssembly kernel over several memories: a wasm32 memory addresses at most 4 GiB, and a
// model's float32 weights pass that from ~1B parameters (Llama-3.2-1B: 4.9 GB). Each memory has
// its own kernel (wasmKernel.ts), which does every product; this one hands out weight arrays from
// the newest until its memory would pass `cap`, then starts another, and sends each call to the
// kernel that holds its weights (a checkpoint read in order: each layer's weights side by side).
// Activations are copied into the kernel's memory on every call already, so which memory a
// product runs in changes nothing of its bits (multiKernel.test.ts: every stage, bit for bit).
//
// 64-bit memory (memory64) instead: Node 20 (V8 11.3) has it only behind
// --experimental-wasm-memory64 (a memory64 module fails to compile without it, and
// `new WebAssembly.Memory({ index: 'i64' })` silently makes a 32-bit one), and even with the flag
// the JS API refuses a maximum past 65,536 pages (4 GiB); VS Code's Electron and browsers before
// Chrome 133 lack it too. So several 32-bit memories, which every host with simd128 has.

import type { Biased, MatmulKernel, Packed, WeightLimits, Weights } from '../matmulKernel';
import type { BLayout } from '../matmulNaive';
import { panelsLength, PANEL_UNITS } from '../params';
import type { SpawnMatmulHelper } from './matmulThreads';
import { WASM_PAGE_BYTES } from './wasmApi';
import type { WasmExp } from './wasmExp';
import { createWasmKernel, type WasmMatmulKernel } from './wasmKernel';

/**
 * Default bytes per memory: 1.75 GiB, the rest below 2 GiB for each kernel's scratch (below).
 * A wasm32 memory holds 4 GiB, but wasmKernel.ts and wasmWeights.ts index its Float32Array with
 * `ptr >> 2`, negative past 2³¹ (Llama-3.2-1B's F32 weights in one memory: "offset is out of
 * bounds" once they passed 2 GiB). With `>>> 2` there, the cap could be 3.75 GiB.
 */
export const DEFAULT_MEMORY_CAP = 1.75 * 2 ** 30;
/** Bytes of a memory the kernels address from JavaScript (see DEFAULT_MEMORY_CAP). */
const ADDRESSED_BYTES = 2 ** 31;
/** Scratch a product takes in its memory (a, out, the bias's sum), at most: longer inputs go in blocks of rows. */
const SCRATCH_BYTES = 64 << 20;
/** Numbers a weight array takes past its room (wasmWeights.ts's slack) and its block's rounding. */
const SLACK_NUMBERS = PANEL_UNITS + 16;

export interface MultiMatmulKernel extends MatmulKernel {
  /** The kernels, one per memory, in the order they were started. */
  readonly instances: readonly WasmMatmulKernel[];
  /** Bytes a memory may grow to with weights (past it, the next weights start a new one). */
  readonly cap: number;
  /** Sum of the memories' sizes (what the process pays for). */
  readonly memoryBytes: number;
  /** Sum of the bytes their live blocks hold. */
  readonly usedBytes: number;
  /** Stops every kernel's helper thread. */
  dispose(): void;
  /** The most bytes of weights it holds: in all, the machine's memory (Infinity); in one array, one memory's cap. */
  weightLimits(): WeightLimits;
}

/**
 * The kernel over several memories, or null where WebAssembly or simd128 is unavailable. Each
 * memory's kernel is made as createWasmKernel makes one (`spawnHelper`: its helper thread; `fused`).
 */
export function createMultiKernel(spawnHelper?: SpawnMatmulHelper, opts: MultiKernelOptions = {}): MultiMatmulKernel | null {
  const make = (): WasmMatmulKernel | null => createWasmKernel(spawnHelper, { ...(opts.fused === undefined ? {} : { fused: opts.fused }), ...(opts.threads === undefined ? {} : { threads: opts.threads }) });
  const first = make();
  return first === null ? null : new MultiKernel(first, make, opts.cap ?? DEFAULT_MEMORY_CAP, opts.scratchBytes ?? SCRATCH_BYTES);
}

export interface MultiKernelOptions {
  /** Bytes a memory may grow to with weights (default DEFAULT_MEMORY_CAP; tests: a few MB). */
  readonly cap?: number;
  /** Bytes of scratch a product may take in its memory before it goes in blocks of rows (tests: small). */
  readonly scratchBytes?: number;
  readonly fused?: boolean;
  /** Threads a large product runs on in each memory's kernel (matmulThreads.ts), the caller's included. */
  readonly threads?: number;
}

class MultiKernel implements MultiMatmulKernel {
  readonly name: string;
  readonly fused: boolean;
  private readonly kernels: WasmMatmulKernel[];
  /** Weight arrays and packed weights handed out, by themselves: the kernel whose memory holds them. */
  private readonly homes = new WeakMap<object, WasmMatmulKernel>();
  /** Weight arrays handed out: the numbers their block holds (see weightArray's `room`). */
  private readonly rooms = new WeakMap<Float32Array | Uint16Array, number>();
  /** The count setThreads last gave, for the memories made after (null: the make's own). */
  private threadsWanted: number | null = null;

  constructor(first: WasmMatmulKernel, private readonly make: () => WasmMatmulKernel | null, readonly cap: number, private readonly scratchBytes: number) {
    if (!(cap >= 16 * WASM_PAGE_BYTES && cap <= ADDRESSED_BYTES - 2 * SCRATCH_BYTES)) {
      throw new RangeError(`multi-memory kernel: a cap of ${cap} bytes per memory, expected 1 MiB … ${formatBytes(ADDRESSED_BYTES - 2 * SCRATCH_BYTES)}`);
    }
    this.kernels = [first];
    this.name = first.name;
    this.fused = first.fused;
  }

  get instances(): readonly WasmMatmulKernel[] {
    return this.kernels;
  }

  get threads(): number {
    return this.kernels[0].threads;
  }

  get memoryBytes(): number {
    return this.kernels.reduce((s, k) => s + k.memoryBytes, 0);
  }

  get usedBytes(): number {
    return this.kernels.reduce((s, k) => s + k.usedBytes, 0);
  }

  dispose(): void {
    for (const k of this.kernels) k.dispose();
  }

  // (each memory's kernel has its own helper threads, mostly asleep: one pool over every memory is
  // left for later, since a helper waiting in Atomics.wait cannot be handed a new memory on the web)
  setThreads(threads: number): void {
    this.threadsWanted = threads;
    for (const k of this.kernels) k.setThreads(threads);
  }

  /** The vector ops over the first memory's threads (their inputs are copied in, as a product's are). */
  vectorForm(plain: WasmExp): WasmExp | null {
    return this.kernels[0].vectorForm(plain);
  }

  weightLimits(): WeightLimits {
    return { total: Infinity, array: this.cap };
  }

  weightArray(length: number, zeroed?: boolean, room?: number): Float32Array {
    const last = this.kernels[this.kernels.length - 1];
    if (!last.sharedMemory || length === 0) return last.weightArray(length, zeroed, room); // (an ordinary array: see wasmWeights.ts)
    const numbers = Math.max(length, room ?? length);
    const k = this.kernelFor((numbers + SLACK_NUMBERS) * 4, `an array of ${numbers.toLocaleString('en-US')} weights`);
    const w = k.weightArray(length, zeroed, room);
    // (an ordinary array, not the memory's: asked as this, since a page that is not cross-origin
    // isolated has a shared memory but no global SharedArrayBuffer to ask instanceof of)
    if (w.buffer instanceof ArrayBuffer) {
      // (the kernel falls back to an ordinary array when its memory cannot grow: below the cap, that is the machine's memory)
      throw new RangeError(`could not allocate memory: a WebAssembly memory of ${formatBytes(k.memoryBytes)} could not grow by ${formatBytes(numbers * 4)} for weights`);
    }
    this.homes.set(w, k);
    this.rooms.set(w, numbers);
    return w;
  }

  // As weightArray, for a BF16/F16 matrix's 16-bit patterns (2 bytes a number).
  halfArray(length: number, room?: number): Uint16Array {
    const last = this.kernels[this.kernels.length - 1];
    if (!last.sharedMemory || length === 0) return last.halfArray(length, room);
    const numbers = Math.max(length, room ?? length);
    const k = this.kernelFor((numbers + SLACK_NUMBERS) * 2, `an array of ${numbers.toLocaleString('en-US')} 16-bit weights`);
    const w = k.halfArray(length, room);
    // (an ordinary array, not the memory's: asked as this, since a page that is not cross-origin
    // isolated has a shared memory but no global SharedArrayBuffer to ask instanceof of)
    if (w.buffer instanceof ArrayBuffer) {
      throw new RangeError(`could not allocate memory: a WebAssembly memory of ${formatBytes(k.memoryBytes)} could not grow by ${formatBytes(numbers * 2)} for weights`);
    }
    this.homes.set(w, k);
    this.rooms.set(w, numbers);
    return w;
  }

  intoPanels<W extends Float32Array | Uint16Array>(w: W, K: number, N: number, bLayout: 'kn' | 'nk'): W | null {
    const home = this.homes.get(w);
    if (home === undefined) return null;
    const length = panelsLength(K, N);
    const bytesPer = w instanceof Uint16Array ? 2 : 4;
    let src: W = w;
    let k = home;
    if ((this.rooms.get(w) ?? 0) < length && home.memoryBytes + (length + SLACK_NUMBERS) * bytesPer > this.cap) {
      // the panels would be a new block beside w, past its memory's cap: w's numbers moved first
      // to a block with their room, in the memory the next weights go to (w's is freed with w)
      const moved = (w instanceof Uint16Array ? this.halfArray(w.length, length) : this.weightArray(w.length, false, length)) as W;
      moved.set(w as ArrayLike<number> as never);
      src = moved;
      k = this.homes.get(src)!;
    }
    const panels = k.intoPanels(src, K, N, bLayout);
    if (panels !== null) {
      this.homes.set(panels, k);
      this.rooms.set(panels, panels.length);
    }
    return panels;
  }

  pack(b: Weights, K: number, N: number, bLayout: BLayout): Packed {
    // b's own memory where it is a weight array (read where it lies), else the newest with room for its panels and the copy packing reads
    const k = this.homes.get(b instanceof Float32Array ? b : b.bits) ?? this.kernelFor(2 * (panelsLength(K, N) + SLACK_NUMBERS) * 4, `packed weights of ${K} × ${N}`);
    const packed = k.pack(b, K, N, bLayout);
    this.homes.set(packed, k);
    return packed;
  }

  repackColumns(packed: Packed, b: Weights, bLayout: BLayout, cols: readonly number[]): void {
    this.homeOf(packed).repackColumns(packed, b, bLayout, cols);
  }

  release(packed: Packed): void {
    this.homeOf(packed).release(packed);
  }

  // out (M,N) = a (M,K) · B, in the memory that holds B, in blocks of rows past SCRATCH_BYTES
  // (each output is computed alone: a row's bits do not depend on the rows beside it)
  matmul(out: Float32Array, a: Float32Array, M: number, packed: Packed, biased?: Biased): void {
    const k = this.homeOf(packed);
    const { K, N } = packed;
    const rows = rowsPerCall(K, N, biased !== undefined, this.scratchBytes);
    if (M <= rows) return k.matmul(out, a, M, packed, biased);
    for (let i = 0; i < M; i += rows) {
      const m = Math.min(rows, M - i);
      const o = out.subarray(i * N, (i + m) * N);
      const b = biased && { b: biased.b, out: biased.out === out ? o : biased.out.subarray(i * N, (i + m) * N) };
      k.matmul(o, a.subarray(i * K, (i + m) * K), m, packed, b);
    }
  }

  /** Attention's products by head, in the first memory (no weights: their operands are copied in, as a product's are). */
  matmulHeads(out: Float32Array, a: Float32Array, b: Float32Array, NH: number, KVH: number, M: number, K: number, N: number, bLayout: 'kn' | 'nk'): void {
    this.kernels[0].matmulHeads(out, a, b, NH, KVH, M, K, N, bLayout);
  }

  matmulColumns(out: Float32Array, a: Float32Array, M: number, packed: Packed, cols: readonly number[]): void {
    const k = this.homeOf(packed);
    const { K, N } = packed;
    const rows = rowsPerCall(K, PANEL_UNITS, false, this.scratchBytes);
    if (M <= rows) return k.matmulColumns(out, a, M, packed, cols);
    for (let i = 0; i < M; i += rows) {
      const m = Math.min(rows, M - i);
      k.matmulColumns(out.subarray(i * N, (i + m) * N), a.subarray(i * K, (i + m) * K), m, packed, cols);
    }
  }

  private homeOf(packed: Packed): WasmMatmulKernel {
    const k = this.homes.get(packed);
    if (k === undefined) throw new Error('multi-memory kernel: packed by another kernel');
    return k;
  }

  // The newest kernel if its memory stays within the cap with `bytes` more, else a new one.
  private kernelFor(bytes: number, what: string): WasmMatmulKernel {
    if (bytes > this.cap) {
      throw new RangeError(`${what} needs ${formatBytes(bytes)}, more than one WebAssembly memory holds here (${formatBytes(this.cap)})`);
    }
    const last = this.kernels[this.kernels.length - 1];
    // (the memory's size, not its live blocks: a free block may not fit, and then it grows)
    if (last.memoryBytes + bytes <= this.cap) return last;
    const k = this.make();
    if (k === null) throw new Error('multi-memory kernel: a new WebAssembly kernel could not be made');
    if (this.threadsWanted !== null) k.setThreads(this.threadsWanted);
    this.kernels.push(k);
    return k;
  }
}

// Rows of a product whose scratch (a, out, and with a bias its sum: wasmKernel.ts) stays within `scratch` bytes.
function rowsPerCall(K: number, N: number, biased: boolean, scratch: number): number {
  const padded = Math.ceil(N / PANEL_UNITS) * PANEL_UNITS;
  const perRow = (K + padded * (biased ? 2 : 1)) * 4;
  return Math.max(1, Math.floor(scratch / perRow));
}

// Bytes in MB or GB as runSize's formatBytes says them (not imported: runSize reaches the ops, which reach the kernel).
function formatBytes(n: number): string {
  const gb = n >= 1e9;
  const v = n / (gb ? 1e9 : 1e6);
  return `${v >= 100 || Number.isInteger(v) ? Math.round(v) : v.toFixed(1)} ${gb ? 'GB' : 'MB'}`;
}
