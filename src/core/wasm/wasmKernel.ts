// The WebAssembly simd128 matmul kernel: about 10× the TypeScript kernel on FFN shapes
// (measured: `npm run bench`). One WebAssembly.Memory per kernel; packed weights live in it until
// release(). Inputs are copied in and results copied out: the only views into wasm memory that
// callers hold are the weight arrays weightArray() hands out, which this kernel multiplies where
// they lie, with no packed copy (a checkpoint's weights held once: issue 10). Those exist only
// where the memory is shared, whose buffer memory.grow never detaches.

import { biasAddInto } from '../bias';
import type { Biased, MatmulKernel, Packed } from '../kernel';
import type { BLayout } from '../matmulNaive';
import { panelsLength, PANEL_UNITS } from '../params';
import { fusedProbeBytes, KN_GROUP, matmulModuleBytes, SHARED_MAX_PAGES, simdProbeBytes } from './matmulModule';
import { MatmulThreads, productsOf, type ProductFn, type ProductName, type SpawnMatmulHelper } from './matmulThreads';
import { wasmApi, type WasmApi, type WasmMemory, type WasmModule } from './wasmApi';
import { BLOCK_ALIGN, WasmHeap } from './wasmHeap';

/** Columns per panel of packed B (4 × f32x4): the panels of a 'panels' matrix (../params.ts). */
export const PANEL = PANEL_UNITS;
/** Padded output rows up to this width are copied out element by element. */
const SMALL_ROW = 64;
/** A product shared with the helper thread has at least this many multiply-adds (~15 µs; handing it over costs ~1). */
const SHARE_MIN_MACS = 1 << 18;

export interface WasmMatmulKernel extends MatmulKernel {
  readonly name: 'wasm-simd';
  /** Size of this kernel's WebAssembly memory (it grows, never shrinks). */
  readonly memoryBytes: number;
  /** Bytes held by live packed weights plus the scratch of the largest matmul so far. */
  readonly usedBytes: number;
  /** True when acc + a·b is relaxed-simd's madd (fused where the CPU has FMA), else mul then add. */
  readonly fused: boolean;
  /** Threads a large product runs on: 2 once a helper thread takes jobs, else 1. */
  readonly threads: number;
  /** Panels of B the helper thread has computed so far (0 without one). */
  readonly helpedPanels: number;
  /** Stops the helper thread, if any (the kernel goes on with one). */
  dispose(): void;
  /**
   * Rewrites only the given columns j of packed B from b (same K, N, layout as at pack()):
   * after an edit of row j of an out_in weight, microseconds instead of a whole re-pack.
   */
  repackColumns(packed: Packed, b: Float32Array, bLayout: BLayout, cols: readonly number[]): void;
  /** True when memory is shared: weightArray() then gives arrays in it. */
  readonly sharedMemory: boolean;
}

type PackFn = (src: number, dst: number, K: number, N: number) => void;

/** Slack after each weight array: mm reads whole 16-column panels of (K,N) in place, up to 60 bytes past its end. */
const WEIGHT_SLACK_FLOATS = PANEL;

// What pack() returns: where B is and how it lies. Opaque to callers (see Packed).
//   'packed': ceil(N/16) panels of K×16 f32 at ptr, owned by the Packed (freed on release)
//   'kn', 'nk': a weight array of this kernel, (K,N) or (N,K) row-major at ptr, read where it lies
class WasmPacked implements Packed {
  released = false;
  constructor(
    readonly K: number,
    readonly N: number,
    readonly ptr: number,
    readonly form: 'packed' | 'kn' | 'nk',
    readonly owner: object,
    readonly holds: Float32Array | null = null, // the weight array read in place (kept alive with its block)
  ) {}
}

/** True when this runtime runs WebAssembly with simd128. */
export function hasWasmSimd(api: WasmApi | null = wasmApi()): boolean {
  return validates(api, simdProbeBytes);
}

/** True when this runtime has relaxed-simd's f32x4.relaxed_madd (Node 20 only behind a V8 flag: src/worker/nodeWasmFeatures.ts). */
export function hasFusedMadd(api: WasmApi | null = wasmApi()): boolean {
  return validates(api, fusedProbeBytes);
}

function validates(api: WasmApi | null, probe: () => Uint8Array): boolean {
  if (api === null) return false;
  try {
    return api.validate(probe());
  } catch {
    return false;
  }
}

/**
 * The kernel, or null when WebAssembly or simd128 is unavailable (callers then use tsKernel).
 * Its memory is shared where the runtime can share one (Node, a cross-origin-isolated page), so
 * weights can live in it. `spawnHelper`: how this platform starts a second thread for large
 * products (matmulThreads.ts); without it, or where memory cannot be shared, one thread.
 * `fused`: relaxed_madd where the runtime has it (the default), or mul then add. A kernel's
 * products and recomputed columns all come from its one module, so they round alike.
 */
export function createWasmKernel(spawnHelper?: SpawnMatmulHelper, opts: { fused?: boolean } = {}): WasmMatmulKernel | null {
  const api = wasmApi();
  if (api === null || !hasWasmSimd(api)) return null;
  const fused = (opts.fused ?? true) && hasFusedMadd(api);
  try {
    return new WasmKernel(api, true, fused, spawnHelper ?? null);
  } catch {
    // (no shared memory here: weights are packed copies, one thread)
  }
  try {
    return new WasmKernel(api, false, fused, null);
  } catch {
    return null; // e.g. a host that validates but refuses to compile (CSP without wasm-eval)
  }
}

// One compiled module per process, kind of memory and fused or not; each kernel instantiates it
// against its own. `warm`: its functions have run (see warmUp); instances of one module share their code.
const compiled = new Map<string, { api: WasmApi; module: WasmModule; warm: boolean }>();
function compiledModule(api: WasmApi, shared: boolean, fused: boolean): { module: WasmModule; warm: boolean } {
  const key = `${shared} ${fused}`;
  let c = compiled.get(key);
  if (c === undefined || c.api !== api) compiled.set(key, (c = { api, module: new api.Module(matmulModuleBytes(shared, fused)), warm: false }));
  return c;
}

/** Calls of each product in warmUp: 2 were enough where measured. */
const WARM_CALLS = 8;
/** K = N of the packs in warmUp (64 × 64 ran GPT-2's embedding through pack_nk unoptimized: 149 ms against 97). */
const PACK_WARM = 256;

class WasmKernel implements WasmMatmulKernel {
  readonly name = 'wasm-simd' as const;
  private readonly memory: WasmMemory;
  private readonly heap: WasmHeap;
  private readonly products: Record<ProductName, ProductFn>;
  private readonly packKn: PackFn;
  private readonly packNk: PackFn;
  private readonly copy: (dst: number, src: number, bytes: number) => void;
  private readonly addRows: (src: number, bias: number, dst: number, M: number, rowBytes: number) => void;
  private f32View: Float32Array;
  private viewGrowths = 0;
  private scratchPtr = 0;
  private scratchBytes = 0;
  private panelsPtr = 0;
  private panelsBytes = 0;
  // Frees the panels of a Packed dropped without release(), so a forgotten one cannot leak.
  private readonly finalizer = new FinalizationRegistry<number>((ptr) => this.heap.free(ptr));
  /** Weight arrays handed out, by the array itself: their byte offset (their blocks are freed when they are collected). */
  private readonly weights = new WeakMap<Float32Array, number>();

  private readonly helper: MatmulThreads | null = null;

  constructor(api: WasmApi, readonly sharedMemory: boolean, readonly fused: boolean, spawnHelper: SpawnMatmulHelper | null) {
    const compiled = compiledModule(api, sharedMemory, fused);
    const module = compiled.module;
    this.memory = new api.Memory(sharedMemory ? { initial: 1, maximum: SHARED_MAX_PAGES, shared: true } : { initial: 1 });
    const instance = new api.Instance(module, { env: { memory: this.memory } });
    this.products = productsOf(instance.exports);
    this.packKn = instance.exports.pack_kn as PackFn;
    this.packNk = instance.exports.pack_nk as PackFn;
    this.copy = instance.exports.copy as (dst: number, src: number, bytes: number) => void;
    this.addRows = instance.exports.add_rows as (src: number, bias: number, dst: number, M: number, rowBytes: number) => void;
    this.heap = new WasmHeap(this.memory);
    this.f32View = new Float32Array(this.memory.buffer);
    if (spawnHelper) {
      const thread = spawnHelper(module, this.memory);
      if (thread) this.helper = new MatmulThreads(this.memory, this.products, thread);
    }
    if (!compiled.warm) {
      this.warmUp();
      compiled.warm = true;
    }
  }

  // V8 compiles a wasm function at its first call with its baseline compiler and swaps in the
  // optimized code only for later calls: a model's first product ran at that speed all through
  // (GPT-2's 50,257-word head, the first product in (N,K) form there: 832 ms against 95 warm).
  // Each product and packing on small shapes, a few times, at creation (~2 ms), before it matters.
  private warmUp(): void {
    const K = 64, N = 64, M = 8;
    const a = new Float32Array(M * K).fill(1);
    const out = new Float32Array(M * N);
    for (const layout of ['kn', 'nk'] as const) {
      const held = this.pack(this.weightArray(K * N), K, N, layout); // in place where memory is shared
      const packed = this.pack(new Float32Array(K * N), K, N, layout);
      // (pack_kn, pack_nk: a checkpoint's load, whose embedding is the one call of pack_nk in a tied model)
      for (let i = 0; i < WARM_CALLS; i++) this.release(this.pack(new Float32Array(PACK_WARM * PACK_WARM), PACK_WARM, PACK_WARM, layout));
      for (let i = 0; i < WARM_CALLS; i++) {
        this.matmul(out, a, M, held);
        this.matmul(out, a, 1, held); // (mm_kn goes row by row for one or two rows)
        this.matmul(out, a, M, packed);
      }
      this.release(held);
      this.release(packed);
    }
  }

  get helpedPanels(): number {
    return this.helper?.helpedPanels ?? 0;
  }

  get threads(): number {
    return this.helper?.ready ? 2 : 1;
  }

  dispose(): void {
    this.helper?.dispose();
  }

  get memoryBytes(): number {
    return this.heap.memoryBytes;
  }

  get usedBytes(): number {
    return this.heap.usedBytes;
  }

  // A zeroed array in this kernel's memory where it is shared (else an ordinary one): pack() of it
  // is the array itself, no copy. Its block is freed when the array is collected, so a view of it
  // (subarray) must not outlive it.
  weightArray(length: number, zeroed = true, room = length): Float32Array {
    if (!this.sharedMemory || length === 0) return new Float32Array(length);
    let ptr: number;
    try {
      const bytes = (Math.max(length, room) + WEIGHT_SLACK_FLOATS) * 4;
      ptr = zeroed ? this.heap.allocZeroed(bytes) : this.heap.alloc(bytes);
    } catch {
      return new Float32Array(length); // (past what wasm32 addresses: 4 GiB with everything else)
    }
    const w = new Float32Array(this.memory.buffer, ptr, length);
    this.hold(w, ptr);
    return w;
  }

  // w is a weight array of this kernel, at `at`: pack() reads it where it lies, its collection frees the block
  private hold(w: Float32Array, at: number): void {
    this.weights.set(w, at);
    this.finalizer.register(w, at, w);
  }

  // w is no longer one: its collection frees nothing (the block is freed or taken over by the caller)
  private letGo(w: Float32Array): void {
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
  intoPanels(w: Float32Array, K: number, N: number, bLayout: 'kn' | 'nk'): Float32Array | null {
    checkDims(K, N);
    const at = this.weights.get(w);
    if (at === undefined || w.length < K * N) return null;
    const length = panelsLength(K, N);
    if (this.heap.sizeOf(at) >= length * 4) {
      try {
        return this.panelsInPlace(w, at, K, N, bLayout, length);
      } catch {
        return null; // (no memory for the copy aside: nothing was written, w stays as it is)
      }
    }
    const panels = this.weightArray(length, false); // (pack_* and packLastPanel write every number)
    const dst = this.weights.get(panels);
    if (dst === undefined) return null; // (past what wasm32 addresses: w stays as it is)
    const f32 = this.view();
    (bLayout === 'kn' ? this.packKn : this.packNk)(at, dst, K, N);
    this.packLastPanel(f32, at >> 2, dst >> 2, K, N, bLayout);
    this.letGo(w);
    this.heap.free(at);
    return panels;
  }

  // b (K,N) if "kn", (N,K) if "nk"  ->  panels (ceil(N/16), K, 16), zero-padded past N;
  // a weight array of this kernel is used where it lies instead ((N,K) when K is a multiple of 4)
  pack(b: Float32Array, K: number, N: number, bLayout: BLayout): Packed {
    checkDims(K, N);
    if (b.length < K * N) throw new RangeError(`pack: b has ${b.length} values, needs K·N = ${K * N}`);
    const at = this.weights.get(b);
    const NP = Math.ceil(N / PANEL);
    if (bLayout === 'panels') {
      if (b.length < NP * K * PANEL) throw new RangeError(`pack: b has ${b.length} values, needs ${NP * K * PANEL} as panels`);
      if (at !== undefined) return new WasmPacked(K, N, at, 'packed', this, b); // multiplied where it lies
      const ptr = this.heap.alloc(NP * K * PANEL * 4);
      this.view().set(b.subarray(0, NP * K * PANEL), ptr >> 2); // (already the form mm reads)
      const packed = new WasmPacked(K, N, ptr, 'packed', this);
      this.finalizer.register(packed, ptr, packed);
      return packed;
    }
    if (at !== undefined && (bLayout === 'kn' || (K > 0 && K % 4 === 0))) return new WasmPacked(K, N, at, bLayout, this, b);
    const ptr = this.heap.alloc(NP * K * PANEL * 4);
    let src = 0; // b is copied in whole, then rearranged by wasm (a transpose for "nk")
    try {
      src = this.heap.alloc(K * N * 4);
      const f32 = this.view();
      f32.set(b.length === K * N ? b : b.subarray(0, K * N), src >> 2);
      (bLayout === 'kn' ? this.packKn : this.packNk)(src, ptr, K, N);
      this.packLastPanel(f32, src >> 2, ptr >> 2, K, N, bLayout);
    } catch (e) {
      this.heap.free(ptr); // memory.grow refused: leave the heap as it was
      throw e;
    } finally {
      if (src !== 0) this.heap.free(src);
    }
    const packed = new WasmPacked(K, N, ptr, 'packed', this);
    this.finalizer.register(packed, ptr, packed);
    return packed;
  }

  private panelsInPlace(w: Float32Array, at: number, K: number, N: number, bLayout: 'kn' | 'nk', length: number): Float32Array {
    const full = N >> 4;
    const rows = K * PANEL; // numbers of a panel, and of its 16 rows
    // (aside in the matmul scratch, kept: a block of its own per matrix was fresh memory each time
    // the last one's was taken by the next reads, and its page faults cost 4× the copy)
    const aside = this.scratch((bLayout === 'kn' ? K * N : rows) * 4);
    if (bLayout === 'kn') {
      this.copy(aside, at, K * N * 4);
      this.packKn(aside, at, K, N);
      this.packLastPanel(this.view(), aside >> 2, at >> 2, K, N, 'kn');
    } else {
      for (let p = 0; p < full; p++) {
        const base = at + p * rows * 4;
        this.copy(aside, base, rows * 4);
        this.packNk(aside, base, K, PANEL);
      }
      if (N % PANEL !== 0) {
        const j0 = full * PANEL;
        this.copy(aside, at + full * rows * 4, (N - j0) * K * 4);
        this.packLastPanel(this.view(), (aside >> 2) - j0 * K, at >> 2, K, N, 'nk'); // (source rows j ≥ j0 only: those aside)
      }
    }
    this.letGo(w);
    const panels = new Float32Array(this.memory.buffer, at, length);
    this.hold(panels, at);
    return panels;
  }

  // out (M,N) = a (M,K) · B
  matmul(out: Float32Array, a: Float32Array, M: number, packed: Packed, biased?: Biased): void {
    const p = this.own(packed);
    const { K, N } = p;
    checkOperands(out, a, M, K, N);
    if (biased && (biased.b.length < N || biased.out.length < M * N)) throw new RangeError(`matmul: a bias of ${biased.b.length} values and a sum of ${biased.out.length}, need ${N} and ${M * N}`);
    if (M === 0) return;
    if (K === 0) {
      out.fill(0, 0, M * N); // empty sums; mm walks panels by address and K = 0 has none
      if (biased) biasAddInto(biased.out, out, biased.b, M, N);
      return;
    }
    const NP = Math.ceil(N / PANEL);
    const stride = NP * PANEL; // scratch rows are padded to whole panels
    const aBytes = alignUp(M * K * 4);
    // a, out, and with a bias: the bias (one padded row) and the sums
    const aPtr = this.scratch(aBytes + M * stride * 4 + (biased ? (M + 1) * stride * 4 : 0));
    const outPtr = aPtr + aBytes;
    let f32 = this.view();
    f32.set(a.length === M * K ? a : a.subarray(0, M * K), aPtr >> 2);
    const shared = NP >= 2 && M * K * N >= SHARE_MIN_MACS && this.helper?.ready;
    // mm_kn copies each panel to a scratch panel of its thread's: one each, after a and out
    const [product, s0, s1] = this.productFor(p, K, N);
    if (shared) this.helper!.run(product, aPtr, p.ptr, outPtr, M, K, NP, s0, s1, p.form === 'kn' ? s1 + alignUp(KN_GROUP * K * PANEL * 4) : s1);
    else this.products[product](aPtr, p.ptr, outPtr, M, K, NP, 0, NP, s0, s1);
    f32 = this.view();
    if (biased?.out !== out) this.copyOut(f32, out, outPtr >> 2, M, N, stride); // (else the sum is all that is kept)
    if (biased) {
      // (in wasm memory while the product is there: a JS loop over every number cost ~2 ns each)
      const biasPtr = outPtr + M * stride * 4;
      const sumPtr = biasPtr + stride * 4;
      f32.set(biased.b.length === N ? biased.b : biased.b.subarray(0, N), biasPtr >> 2);
      this.addRows(outPtr, biasPtr, sumPtr, M, stride * 4);
      this.copyOut(f32, biased.out, sumPtr >> 2, M, N, stride);
    }
  }

  // out (M,N) ← rows of `stride` numbers at f32[o …]
  private copyOut(f32: Float32Array, out: Float32Array, o: number, M: number, N: number, stride: number): void {
    if (stride === N) out.set(f32.subarray(o, o + M * N));
    else if (N <= SMALL_ROW) {
      // a loop beats one subarray per row at this size (the per-call cost of small shapes)
      for (let i = 0; i < M; i++) for (let j = 0, s = o + i * stride, d = i * N; j < N; j++) out[d + j] = f32[s + j];
    } else for (let i = 0; i < M; i++) out.set(f32.subarray(o + i * stride, o + i * stride + N), i * N);
  }

  // out[:, j] for j in cols only: the panel of 16 columns holding each is multiplied again by the
  // function matmul() calls, on one thread (each output is computed alone, the same way whatever
  // the panels asked for), so the result is bit-identical to what matmul() writes there.
  matmulColumns(out: Float32Array, a: Float32Array, M: number, packed: Packed, cols: readonly number[]): void {
    const p = this.own(packed);
    const { K, N } = p;
    checkOperands(out, a, M, K, N);
    for (const j of cols) checkColumn(j, N);
    if (M === 0 || cols.length === 0) return;
    if (K === 0) {
      for (const j of cols) for (let i = 0; i < M; i++) out[i * N + j] = 0;
      return;
    }
    const aBytes = alignUp(M * K * 4);
    const aPtr = this.scratch(aBytes + M * PANEL * 4);
    const outPtr = aPtr + aBytes; // one panel's output: M rows of 16
    const [product, s0, s1] = this.productFor(p, K, N);
    let f32 = this.view();
    f32.set(a.length === M * K ? a : a.subarray(0, M * K), aPtr >> 2);
    for (const q of new Set(cols.map((j) => Math.floor(j / PANEL)))) {
      // NP = 1 (rows of 16), out shifted so that panel q lands at outPtr (i32 arithmetic wraps)
      this.products[product](aPtr, p.ptr, (outPtr - q * PANEL * 4) | 0, M, K, 1, q, q + 1, s0, s1);
      f32 = this.view();
      for (const j of cols) {
        if (Math.floor(j / PANEL) !== q) continue;
        for (let i = 0, s = (outPtr >> 2) + (j % PANEL); i < M; i++) out[i * N + j] = f32[s + i * PANEL];
      }
    }
  }

  // Which product reads B in its form, and its last two arguments (mm_kn's: its scratch panels).
  private productFor(p: WasmPacked, K: number, N: number): [ProductName, number, number] {
    if (p.form === 'packed') return ['mm', K * 64, 64];
    if (p.form === 'nk') return ['mm_nk', N, 0];
    return ['mm_kn', N, this.panelScratch(KN_GROUP * K * PANEL * 4)];
  }

  repackColumns(packed: Packed, b: Float32Array, bLayout: BLayout, cols: readonly number[]): void {
    const p = this.own(packed);
    const { K, N } = p;
    if (b.length < K * N) throw new RangeError(`repackColumns: b has ${b.length} values, needs K·N = ${K * N}`);
    if (p.holds !== null) {
      // B is read where it lies: an edit of b is already what matmul reads
      if (this.weights.get(b) !== p.ptr) throw new Error('wasm-simd: repackColumns of weights used in place needs those weights');
      for (const j of cols) checkColumn(j, N);
      return;
    }
    const f32 = this.view();
    for (const j of cols) {
      checkColumn(j, N);
      const d = (p.ptr >> 2) + Math.floor(j / PANEL) * K * PANEL + (j % PANEL);
      if (bLayout === 'kn') for (let k = 0; k < K; k++) f32[d + k * PANEL] = b[k * N + j];
      else if (bLayout === 'nk') for (let k = 0, s = j * K; k < K; k++) f32[d + k * PANEL] = b[s + k];
      else for (let k = 0, s = d - (p.ptr >> 2); k < K; k++) f32[d + k * PANEL] = b[s + k * PANEL]; // (the same place in b)
    }
  }

  release(packed: Packed): void {
    const p = this.own(packed, true);
    if (p.released) return;
    p.released = true;
    if (p.holds !== null) return; // (the weight array owns its block)
    this.finalizer.unregister(p);
    this.heap.free(p.ptr);
  }

  // Two scratches of KN_GROUP panels (one per thread) for mm_kn, kept and replaced only when too small.
  private panelScratch(bytes: number): number {
    const both = 2 * alignUp(bytes);
    if (both > this.panelsBytes) {
      if (this.panelsBytes > 0) this.heap.free(this.panelsPtr);
      this.panelsBytes = 0;
      this.panelsPtr = this.heap.alloc(both);
      this.panelsBytes = both;
    }
    return this.panelsPtr;
  }

  // One scratch block for a and out, kept between calls and replaced only when too small.
  private scratch(bytes: number): number {
    if (bytes > this.scratchBytes) {
      if (this.scratchBytes > 0) this.heap.free(this.scratchPtr);
      this.scratchBytes = 0; // stays consistent if alloc throws
      this.scratchPtr = this.heap.alloc(bytes);
      this.scratchBytes = bytes;
    }
    return this.scratchPtr;
  }

  // The current Float32Array over memory. memory.grow replaces the buffer, and only the heap
  // grows it (the module has no memory.grow), so its count says when to re-make the view;
  // reading memory.buffer each call costs more than a small matmul.
  private view(): Float32Array {
    if (this.viewGrowths !== this.heap.growths) {
      this.f32View = new Float32Array(this.memory.buffer);
      this.viewGrowths = this.heap.growths;
    }
    return this.f32View;
  }

  private own(packed: Packed, allowReleased = false): WasmPacked {
    if (!(packed instanceof WasmPacked) || packed.owner !== this) throw new Error('wasm-simd: packed by another kernel');
    if (packed.released && !allowReleased) throw new Error('wasm-simd: packed weights used after release()');
    return packed;
  }

  // The partial panel (N not a multiple of 16) in JS: zero the padding, copy the N mod 16 columns.
  private packLastPanel(f32: Float32Array, src: number, dst: number, K: number, N: number, bLayout: 'kn' | 'nk'): void {
    const j0 = N - (N % PANEL);
    if (j0 === N) return;
    const d = dst + (j0 / PANEL) * K * PANEL;
    f32.fill(0, d, d + K * PANEL);
    for (let j = j0; j < N; j++) {
      const c = j - j0;
      if (bLayout === 'kn') for (let k = 0; k < K; k++) f32[d + k * PANEL + c] = f32[src + k * N + j];
      else for (let k = 0; k < K; k++) f32[d + k * PANEL + c] = f32[src + j * K + k];
    }
  }
}

function checkDims(K: number, N: number): void {
  if (!Number.isInteger(K) || !Number.isInteger(N) || K < 0 || N < 0) throw new RangeError(`pack: bad shape K=${K} N=${N}`);
}

function checkColumn(j: number, N: number): void {
  if (!Number.isInteger(j) || j < 0 || j >= N) throw new RangeError(`column ${j} outside 0…${N - 1}`);
}

function checkOperands(out: Float32Array, a: Float32Array, M: number, K: number, N: number): void {
  if (!Number.isInteger(M) || M < 0) throw new RangeError(`matmul: bad M=${M}`);
  if (a.length < M * K) throw new RangeError(`matmul: a has ${a.length} values, needs M·K = ${M * K}`);
  if (out.length < M * N) throw new RangeError(`matmul: out has ${out.length} values, needs M·N = ${M * N}`);
}

function alignUp(bytes: number): number {
  return Math.ceil(bytes / BLOCK_ALIGN) * BLOCK_ALIGN;
}
