// The weights of the WebAssembly matmul kernel (wasmKernel.ts): B packed into panels of 16 columns
// in the kernel's memory, and the weight arrays it hands out, which it multiplies where they lie
// with no packed copy (a checkpoint's weights held once: issue 10). Those exist only where the
// memory is shared, whose buffer memory.grow never detaches.

import { floatWeights, halfPanelsInto, type HalfDtype } from '../halfWeights';
import type { Packed, Weights } from '../matmulKernel';
import type { BLayout } from '../matmulNaive';
import { panelsLength, PANEL_UNITS } from '../params';
import type { KernelMemory } from './kernelMemory';
import { packLastPanel } from './matmulPacking';

/** Columns per panel of packed B (4 × f32x4): the panels of a 'panels' matrix (../params.ts). */
export const PANEL = PANEL_UNITS;

type PackFn = (src: number, dst: number, K: number, N: number) => void;

/** The module's functions the weights use (matmulModule.ts). */
export interface PackFns {
  readonly packKn: PackFn;
  readonly packNk: PackFn;
  readonly copy: (dst: number, src: number, bytes: number) => void;
}

export function packFnsOf(exports: Record<string, unknown>): PackFns {
  return {
    packKn: exports.pack_kn as PackFn,
    packNk: exports.pack_nk as PackFn,
    copy: exports.copy as (dst: number, src: number, bytes: number) => void,
  };
}

/** Slack after each weight array: mm reads whole 16-column panels of (K,N) in place, up to 60 bytes past its end. */
const WEIGHT_SLACK_FLOATS = PANEL;

// What pack() returns: where B is and how it lies. Opaque to callers (see Packed).
//   'packed': ceil(N/16) panels of K×16 f32 at ptr, owned by the Packed (freed on release)
//   'kn', 'nk': a weight array of this kernel, (K,N) or (N,K) row-major at ptr, read where it lies
// dtype 'BF16' / 'F16': the panels are 16-bit (K×16 halves each), widened inside the product.
export class WasmPacked implements Packed {
  released = false;
  constructor(
    readonly K: number,
    readonly N: number,
    readonly ptr: number,
    readonly form: 'packed' | 'kn' | 'nk',
    readonly owner: object,
    readonly holds: Float32Array | Uint16Array | null = null, // the weight array read in place (kept alive with its block)
    readonly dtype: 'F32' | HalfDtype = 'F32',
  ) {}
}

export class WasmWeights {
  // Frees the panels of a Packed dropped without release(), so a forgotten one cannot leak.
  private readonly finalizer = new FinalizationRegistry<number>((ptr) => this.mem.heap.free(ptr));
  /** Weight arrays handed out, by the array itself: their byte offset (their blocks are freed when they are collected). */
  private readonly weights = new WeakMap<Float32Array | Uint16Array, number>();

  constructor(private readonly mem: KernelMemory, private readonly sharedMemory: boolean, private readonly fns: PackFns) {}

  // A zeroed array in this kernel's memory where it is shared (else an ordinary one): pack() of it
  // is the array itself, no copy. Its block is freed when the array is collected, so a view of it
  // (subarray) must not outlive it.
  weightArray(length: number, zeroed = true, room = length): Float32Array {
    if (!this.sharedMemory || length === 0) return new Float32Array(length);
    let ptr: number;
    try {
      const bytes = (Math.max(length, room) + WEIGHT_SLACK_FLOATS) * 4;
      ptr = zeroed ? this.mem.heap.allocZeroed(bytes) : this.mem.heap.alloc(bytes);
    } catch {
      return new Float32Array(length); // (past what wasm32 addresses: 4 GiB with everything else)
    }
    const w = new Float32Array(this.mem.memory.buffer, ptr, length);
    this.hold(w, ptr);
    return w;
  }

  // A halfArray: as weightArray, for 16-bit patterns (never zeroed: a tensor's bits are all written).
  halfArray(length: number, room = length): Uint16Array {
    if (!this.sharedMemory || length === 0) return new Uint16Array(length);
    let ptr: number;
    try {
      ptr = this.mem.heap.alloc(Math.max(length, room) * 2);
    } catch {
      return new Uint16Array(length); // (past what wasm32 addresses)
    }
    const w = new Uint16Array(this.mem.memory.buffer, ptr, length);
    this.hold(w, ptr);
    return w;
  }

  // w is a weight array of this kernel, at `at`: pack() reads it where it lies, its collection frees the block
  private hold(w: Float32Array | Uint16Array, at: number): void {
    this.weights.set(w, at);
    this.finalizer.register(w, at, w);
  }

  // w is no longer one: its collection frees nothing (the block is freed or taken over by the caller)
  private letGo(w: Float32Array | Uint16Array): void {
    this.weights.delete(w);
    this.finalizer.unregister(w);
  }

  // w's numbers as panels. With the room: where they lie, so that no fresh page is touched on this
  // thread (the reads took w's page faults on libuv's threads; GPT-2's Conv1D weights packed into
  // fresh memory took 251 ms of page faults here, against ~40 ms in place). (N,K): panel by panel,
  // panel p from the bytes of rows 16p … 16p+15 it takes, copied aside first. (K,N): the matrix
  // copied aside whole (one matrix of memory, for a moment), then packed back.
  // Else in a new weight array (pack_kn / pack_nk, memory to memory), w's block freed now rather
  // than when w is collected, so that the next weights read take it: a checkpoint's memory grows
  // by one matrix while it loads, not by a copy of every one.
  intoPanels<W extends Float32Array | Uint16Array>(w: W, K: number, N: number, bLayout: 'kn' | 'nk'): W | null {
    checkDims(K, N);
    if (w instanceof Uint16Array) return this.halfIntoPanels(w, K, N, bLayout) as W | null;
    return this.floatIntoPanels(w as Float32Array, K, N, bLayout) as W | null;
  }

  private floatIntoPanels(w: Float32Array, K: number, N: number, bLayout: 'kn' | 'nk'): Float32Array | null {
    const at = this.weights.get(w);
    if (at === undefined || w.length < K * N) return null;
    const length = panelsLength(K, N);
    if (this.mem.heap.sizeOf(at) >= length * 4) {
      try {
        return this.panelsInPlace(w, at, K, N, bLayout, length);
      } catch {
        return null; // (no memory for the copy aside: nothing was written, w stays as it is)
      }
    }
    const panels = this.weightArray(length, false); // (pack_* and packLastPanel write every number)
    const dst = this.weights.get(panels);
    if (dst === undefined) return null; // (past what wasm32 addresses: w stays as it is)
    const f32 = this.mem.view();
    (bLayout === 'kn' ? this.fns.packKn : this.fns.packNk)(at, dst, K, N);
    packLastPanel(f32, at >>> 2, dst >>> 2, K, N, bLayout);
    this.letGo(w);
    this.mem.heap.free(at);
    return panels;
  }

  // b (K,N) if "kn", (N,K) if "nk"  ->  panels (ceil(N/16), K, 16), zero-padded past N;
  // a weight array of this kernel is used where it lies instead ((N,K) when K is a multiple of 4)
  pack(weights: Weights, K: number, N: number, bLayout: BLayout): WasmPacked {
    checkDims(K, N);
    if (!(weights instanceof Float32Array)) {
      if (bLayout === 'panels') return this.packHalves(weights.bits, weights.dtype, K, N);
      return this.pack(floatWeights(weights), K, N, bLayout); // (a 16-bit matrix not as panels: packed as float32)
    }
    const b = weights;
    if (b.length < K * N) throw new RangeError(`pack: b has ${b.length} values, needs K·N = ${K * N}`);
    const at = this.weights.get(b);
    const NP = Math.ceil(N / PANEL);
    if (bLayout === 'panels') {
      if (b.length < NP * K * PANEL) throw new RangeError(`pack: b has ${b.length} values, needs ${NP * K * PANEL} as panels`);
      if (at !== undefined) return new WasmPacked(K, N, at, 'packed', this, b); // multiplied where it lies
      const ptr = this.mem.heap.alloc(NP * K * PANEL * 4);
      this.mem.view().set(b.subarray(0, NP * K * PANEL), ptr >>> 2); // (already the form mm reads)
      const packed = new WasmPacked(K, N, ptr, 'packed', this);
      this.finalizer.register(packed, ptr, packed);
      return packed;
    }
    if (at !== undefined && (bLayout === 'kn' || (K > 0 && K % 4 === 0))) return new WasmPacked(K, N, at, bLayout, this, b);
    const ptr = this.mem.heap.alloc(NP * K * PANEL * 4);
    let src = 0; // b is copied in whole, then rearranged by wasm (a transpose for "nk")
    try {
      src = this.mem.heap.alloc(K * N * 4);
      const f32 = this.mem.view();
      f32.set(b.length === K * N ? b : b.subarray(0, K * N), src >>> 2);
      (bLayout === 'kn' ? this.fns.packKn : this.fns.packNk)(src, ptr, K, N);
      packLastPanel(f32, src >>> 2, ptr >>> 2, K, N, bLayout);
    } catch (e) {
      this.mem.heap.free(ptr); // memory.grow refused: leave the heap as it was
      throw e;
    } finally {
      if (src !== 0) this.mem.heap.free(src);
    }
    const packed = new WasmPacked(K, N, ptr, 'packed', this);
    this.finalizer.register(packed, ptr, packed);
    return packed;
  }

  // A 16-bit matrix as panels: where it lies when it has the room (each panel's source rows are
  // its own span for (N,K), copied aside first; (K,N) copied aside whole), else in a new halfArray.
  private halfIntoPanels(w: Uint16Array, K: number, N: number, bLayout: 'kn' | 'nk'): Uint16Array | null {
    const at = this.weights.get(w);
    if (at === undefined || w.length < K * N) return null;
    const length = panelsLength(K, N);
    if (this.mem.heap.sizeOf(at) < length * 2) {
      const panels = this.halfArray(length);
      if (!this.weights.has(panels)) return null; // (past what wasm32 addresses: w stays as it is)
      halfPanelsInto(w, panels, K, N, bLayout);
      this.letGo(w);
      this.mem.heap.free(at);
      return panels;
    }
    const panels = new Uint16Array(this.mem.memory.buffer, at, length);
    if (bLayout === 'kn') halfPanelsInto(w.slice(0, K * N), panels, K, N, 'kn');
    else {
      for (let j0 = 0; j0 < N; j0 += PANEL) {
        const rows = Math.min(PANEL, N - j0);
        halfPanelsInto(w.slice(j0 * K, (j0 + rows) * K), panels.subarray(j0 * K, (j0 + PANEL) * K), K, rows, 'nk');
      }
    }
    this.letGo(w);
    this.hold(panels, at);
    return panels;
  }

  // 16-bit panels: multiplied where they lie when they are this kernel's, else copied in as they are
  private packHalves(bits: Uint16Array, dtype: HalfDtype, K: number, N: number): WasmPacked {
    const length = panelsLength(K, N);
    if (bits.length < length) throw new RangeError(`pack: b has ${bits.length} values, needs ${length} as panels`);
    const at = this.weights.get(bits);
    if (at !== undefined) return new WasmPacked(K, N, at, 'packed', this, bits, dtype);
    const ptr = this.mem.heap.alloc(length * 2);
    new Uint16Array(this.mem.memory.buffer, ptr, length).set(bits.subarray(0, length));
    const packed = new WasmPacked(K, N, ptr, 'packed', this, null, dtype);
    this.finalizer.register(packed, ptr, packed);
    return packed;
  }

  private panelsInPlace(w: Float32Array, at: number, K: number, N: number, bLayout: 'kn' | 'nk', length: number): Float32Array {
    const full = N >> 4;
    const rows = K * PANEL; // numbers of a panel, and of its 16 rows
    // (aside in the matmul scratch, kept: a block of its own per matrix was fresh memory each time
    // the last one's was taken by the next reads, and its page faults cost 4× the copy)
    const aside = this.mem.scratch((bLayout === 'kn' ? K * N : rows) * 4);
    if (bLayout === 'kn') {
      this.fns.copy(aside, at, K * N * 4);
      this.fns.packKn(aside, at, K, N);
      packLastPanel(this.mem.view(), aside >>> 2, at >>> 2, K, N, 'kn');
    } else {
      for (let p = 0; p < full; p++) {
        const base = at + p * rows * 4;
        this.fns.copy(aside, base, rows * 4);
        this.fns.packNk(aside, base, K, PANEL);
      }
      if (N % PANEL !== 0) {
        const j0 = full * PANEL;
        this.fns.copy(aside, at + full * rows * 4, (N - j0) * K * 4);
        packLastPanel(this.mem.view(), (aside >>> 2) - j0 * K, at >>> 2, K, N, 'nk'); // (source rows j ≥ j0 only: those aside)
      }
    }
    this.letGo(w);
    const panels = new Float32Array(this.mem.memory.buffer, at, length);
    this.hold(panels, at);
    return panels;
  }

  repackColumns(packed: Packed, weights: Weights, bLayout: BLayout, cols: readonly number[]): void {
    const p = this.own(packed);
    const { K, N } = p;
    const array = weights instanceof Float32Array ? weights : weights.bits;
    if (array.length < K * N) throw new RangeError(`repackColumns: b has ${array.length} values, needs K·N = ${K * N}`);
    if (p.holds !== null) {
      // B is read where it lies: an edit of b is already what matmul reads
      if (this.weights.get(array) !== p.ptr) throw new Error('wasm-simd: repackColumns of weights used in place needs those weights');
      for (const j of cols) checkColumn(j, N);
      return;
    }
    if (p.dtype !== 'F32') {
      // 16-bit panels copied in: the same columns of the same panels, bit for bit
      if (array instanceof Float32Array || bLayout !== 'panels') throw new Error('wasm-simd: 16-bit packed weights are repacked from their 16-bit panels');
      const u16 = new Uint16Array(this.mem.memory.buffer);
      for (const j of cols) {
        checkColumn(j, N);
        const d = Math.floor(j / PANEL) * K * PANEL + (j % PANEL);
        for (let k = 0; k < K; k++) u16[(p.ptr >>> 1) + d + k * PANEL] = array[d + k * PANEL];
      }
      return;
    }
    const b = floatWeights(weights); // (a 16-bit matrix packed as float32: widened)
    const f32 = this.mem.view();
    for (const j of cols) {
      checkColumn(j, N);
      const d = (p.ptr >>> 2) + Math.floor(j / PANEL) * K * PANEL + (j % PANEL);
      if (bLayout === 'kn') for (let k = 0; k < K; k++) f32[d + k * PANEL] = b[k * N + j];
      else if (bLayout === 'nk') for (let k = 0, s = j * K; k < K; k++) f32[d + k * PANEL] = b[s + k];
      else for (let k = 0, s = d - (p.ptr >>> 2); k < K; k++) f32[d + k * PANEL] = b[s + k * PANEL]; // (the same place in b)
    }
  }

  release(packed: Packed): void {
    const p = this.own(packed, true);
    if (p.released) return;
    p.released = true;
    if (p.holds !== null) return; // (the weight array owns its block)
    this.finalizer.unregister(p);
    this.mem.heap.free(p.ptr);
  }

  /** `packed` as this kernel's own (packed here, not released unless `allowReleased`). */
  own(packed: Packed, allowReleased = false): WasmPacked {
    if (!(packed instanceof WasmPacked) || packed.owner !== this) throw new Error('wasm-simd: packed by another kernel');
    if (packed.released && !allowReleased) throw new Error('wasm-simd: packed weights used after release()');
    return packed;
  }
}

function checkDims(K: number, N: number): void {
  if (!Number.isInteger(K) || !Number.isInteger(N) || K < 0 || N < 0) throw new RangeError(`pack: bad shape K=${K} N=${N}`);
}

export function checkColumn(j: number, N: number): void {
  if (!Number.isInteger(j) || j < 0 || j >= N) throw new RangeError(`column ${j} outside 0…${N - 1}`);
}
