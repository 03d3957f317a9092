// The WebAssembly simd128 matmul kernel: about 10× the TypeScript kernel on FFN shapes
// (measured: `npm run bench`). One WebAssembly.Memory per kernel (kernelMemory.ts); packed weights
// live in it until release(), and the weight arrays it hands out are multiplied where they lie
// (wasmWeights.ts). Inputs are copied in and results copied out: those weight arrays are the only
// views into wasm memory that callers hold.

import { biasAddInto } from '../bias';
import type { Biased, MatmulKernel, Packed, Weights } from '../matmulKernel';
import type { BLayout } from '../matmulNaive';
import { alignUp, KernelMemory } from './kernelMemory';
import { matmulModuleBytes, SHARED_MAX_PAGES } from './matmulModule';
import { KN_GROUP } from './matmulProducts';
import { headFnsOf, MatmulThreads, productsOf, type GeluFn, type ProductFn, type ProductName, type SpawnMatmulHelper, type VectorFns } from './matmulThreads';
import { geluModuleBytes } from './geluModule';
import { ERF_TAYLOR } from '../erf';
import { headProducts, matmulHeadsIn, type HeadFns, type HeadJob } from './headProducts';
import { expModuleBytes } from './expModule';
import { threadedVector } from './vectorThreads';
import type { WasmExp } from './wasmExp';
import { wasmApi, type WasmApi, type WasmModule } from './wasmApi';
import { hasFusedMadd, hasWasmSimd } from './wasmFeatures';
import { checkColumn, packFnsOf, PANEL, WasmPacked, WasmWeights } from './wasmWeights';

/** Padded output rows up to this width are copied out element by element. */
const SMALL_ROW = 64;
/** A product shared with the helper thread has at least this many multiply-adds (~15 µs; handing it over costs ~1). */
const SHARE_MIN_MACS = 1 << 18;
/** Attention's products are shared from this many multiply-adds, all heads (each head also packs its B). */
const HEADS_SHARE_MIN_MACS = 1 << 17;

export interface WasmMatmulKernel extends MatmulKernel {
  readonly name: 'wasm-simd';
  /** Size of this kernel's WebAssembly memory (it grows, never shrinks). */
  readonly memoryBytes: number;
  /** Bytes held by live packed weights plus the scratch of the largest matmul so far. */
  readonly usedBytes: number;
  /** True when acc + a·b is relaxed-simd's madd (fused where the CPU has FMA), else mul then add. */
  readonly fused: boolean;
  /** Threads a large product runs on now: the caller and the helper threads that take jobs, up to setThreads' count. */
  readonly threads: number;
  /** Panels of B the helper threads have computed so far (0 without one). */
  readonly helpedPanels: number;
  /** Milliseconds spent in work shared with the helper threads so far (the rest of a forward's time is one thread's). */
  readonly sharedMs: number;
  /** How many threads share a large product from now on (1: one); more helpers are started if needed, where the platform can. */
  setThreads(threads: number): void;
  /** The vector ops (`plain`: their one-thread form) split over this kernel's threads, or null without helpers (vectorThreads.ts). */
  vectorForm(plain: WasmExp): WasmExp | null;
  /** Stops the helper threads, if any (the kernel goes on with one). */
  dispose(): void;
  matmulHeads(out: Float32Array, a: Float32Array, b: Float32Array, NH: number, KVH: number, M: number, K: number, N: number, bLayout: 'kn' | 'nk'): void;
  /**
   * Rewrites only the given columns j of packed B from b (same K, N, layout as at pack()):
   * after an edit of row j of an out_in weight, microseconds instead of a whole re-pack.
   */
  repackColumns(packed: Packed, b: Weights, bLayout: BLayout, cols: readonly number[]): void;
  /** True when memory is shared: weightArray() then gives arrays in it. */
  readonly sharedMemory: boolean;
}

/**
 * The kernel, or null when WebAssembly or simd128 is unavailable (callers then use tsKernel).
 * Its memory is shared where the runtime can share one (Node, a cross-origin-isolated page), so
 * weights can live in it. `spawnHelper`: how this platform starts helper threads for large
 * products (matmulThreads.ts), `threads` of them in all with the caller (default 2); without it, or
 * where memory cannot be shared, one thread.
 * `fused`: relaxed_madd where the runtime has it (the default), or mul then add. A kernel's
 * products and recomputed columns all come from its one module, so they round alike.
 */
export function createWasmKernel(spawnHelper?: SpawnMatmulHelper, opts: { fused?: boolean; threads?: number } = {}): WasmMatmulKernel | null {
  const api = wasmApi();
  if (api === null || !hasWasmSimd(api)) return null;
  const fused = (opts.fused ?? true) && hasFusedMadd(api);
  try {
    return new WasmKernel(api, true, fused, spawnHelper ? { spawn: spawnHelper, threads: opts.threads ?? 2 } : null);
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

// The vector ops' module on a shared memory, compiled once per process (its functions run first in
// a forward's first norm: the one-thread form's warm-up in wasmExp.ts shows what that costs cold).
let sharedVector: { api: WasmApi; module: WasmModule; gelu: WasmModule } | null = null;
function sharedVectorModules(api: WasmApi): { module: WasmModule; gelu: WasmModule } {
  if (sharedVector?.api !== api) sharedVector = { api, module: new api.Module(expModuleBytes(true)), gelu: new api.Module(geluModuleBytes(true)) };
  return sharedVector;
}

// erf's Taylor table (geluModule.ts reads it) in the kernel's memory, for good: its byte offset.
function erfTable(mem: KernelMemory): number {
  const at = mem.heap.alloc(ERF_TAYLOR.byteLength);
  new Float64Array(mem.memory.buffer, at, ERF_TAYLOR.length).set(ERF_TAYLOR);
  return at;
}

/** Calls of each product in warmUp: 2 were enough where measured. */
const WARM_CALLS = 8;
/** K = N of the packs in warmUp (64 × 64 ran GPT-2's embedding through pack_nk unoptimized: 149 ms against 97). */
const PACK_WARM = 256;

class WasmKernel implements WasmMatmulKernel {
  readonly name = 'wasm-simd' as const;
  private readonly mem: KernelMemory;
  private readonly weights: WasmWeights;
  private readonly products: Record<ProductName, ProductFn>;
  private readonly addRows: (src: number, bias: number, dst: number, M: number, rowBytes: number) => void;
  private readonly helper: MatmulThreads | null = null;
  private readonly vectorFns: VectorFns | null = null;
  private readonly headFns: HeadFns;
  /** Exact GELU on this memory, and where erf's table lies in it (with helpers only). */
  private readonly gelu: { fn: GeluFn; table: number } | null = null;

  constructor(api: WasmApi, readonly sharedMemory: boolean, readonly fused: boolean, helpers: { spawn: SpawnMatmulHelper; threads: number } | null) {
    const compiled = compiledModule(api, sharedMemory, fused);
    const module = compiled.module;
    const memory = new api.Memory(sharedMemory ? { initial: 1, maximum: SHARED_MAX_PAGES, shared: true } : { initial: 1 });
    const instance = new api.Instance(module, { env: { memory } });
    this.products = productsOf(instance.exports);
    this.addRows = instance.exports.add_rows as (src: number, bias: number, dst: number, M: number, rowBytes: number) => void;
    this.mem = new KernelMemory(memory);
    this.weights = new WasmWeights(this.mem, sharedMemory, packFnsOf(instance.exports));
    this.headFns = headFnsOf(instance.exports, () => this.mem.view());
    if (helpers) {
      const { module: vector, gelu } = sharedVectorModules(api);
      this.vectorFns = new api.Instance(vector, { env: { memory } }).exports as unknown as VectorFns;
      const geluFn = new api.Instance(gelu, { env: { memory } }).exports.gelu_act as GeluFn;
      this.gelu = { fn: geluFn, table: erfTable(this.mem) };
      this.helper = new MatmulThreads(memory, { matmul: module, vector, gelu }, { products: this.products, vector: this.vectorFns, gelu: geluFn, heads: this.headFns }, helpers.spawn, helpers.threads);
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

  get sharedMs(): number {
    return this.helper?.sharedMs ?? 0;
  }

  get threads(): number {
    return this.helper?.threads ?? 1;
  }

  setThreads(threads: number): void {
    this.helper?.setThreads(threads);
  }

  dispose(): void {
    this.helper?.dispose();
  }

  vectorForm(plain: WasmExp): WasmExp | null {
    return this.helper && this.vectorFns && this.gelu ? threadedVector(this.helper, this.mem, { ...this.vectorFns, gelu: this.gelu }, plain) : null;
  }

  get memoryBytes(): number {
    return this.mem.heap.memoryBytes;
  }

  get usedBytes(): number {
    return this.mem.heap.usedBytes;
  }

  weightArray(length: number, zeroed?: boolean, room?: number): Float32Array {
    return this.weights.weightArray(length, zeroed, room);
  }

  halfArray(length: number, room?: number): Uint16Array {
    return this.weights.halfArray(length, room);
  }

  intoPanels<W extends Float32Array | Uint16Array>(w: W, K: number, N: number, bLayout: 'kn' | 'nk'): W | null {
    return this.weights.intoPanels(w, K, N, bLayout);
  }

  pack(b: Weights, K: number, N: number, bLayout: BLayout): Packed {
    return this.weights.pack(b, K, N, bLayout);
  }

  repackColumns(packed: Packed, b: Weights, bLayout: BLayout, cols: readonly number[]): void {
    this.weights.repackColumns(packed, b, bLayout, cols);
  }

  release(packed: Packed): void {
    this.weights.release(packed);
  }

  // out (M,N) = a (M,K) · B
  matmul(out: Float32Array, a: Float32Array, M: number, packed: Packed, biased?: Biased): void {
    const p = this.weights.own(packed);
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
    const aPtr = this.mem.scratch(aBytes + M * stride * 4 + (biased ? (M + 1) * stride * 4 : 0));
    const outPtr = aPtr + aBytes;
    let f32 = this.mem.view();
    f32.set(a.length === M * K ? a : a.subarray(0, M * K), aPtr >>> 2);
    const shareable = NP >= 2 && M * K * N >= SHARE_MIN_MACS && this.helper !== null;
    // mm_kn and the 16-bit products write each panel to a scratch of their thread's: one each
    const [product, s0, s1] = this.productFor(p, K, N);
    const ownScratch = p.form === 'kn' || p.dtype !== 'F32';
    if (shareable && this.threads > 1) this.helper!.run(product, aPtr, p.ptr, outPtr, M, K, NP, s0, s1, ownScratch ? alignUp(KN_GROUP * K * PANEL * 4) : 0);
    else if (shareable) this.helper!.alone(() => this.products[product](aPtr, p.ptr, outPtr, M, K, NP, 0, NP, s0, s1));
    else this.products[product](aPtr, p.ptr, outPtr, M, K, NP, 0, NP, s0, s1);
    f32 = this.mem.view();
    if (biased?.out !== out) this.copyOut(f32, out, outPtr >>> 2, M, N, stride); // (else the sum is all that is kept)
    if (biased) {
      // (in wasm memory while the product is there: a JS loop over every number cost ~2 ns each)
      const biasPtr = outPtr + M * stride * 4;
      const sumPtr = biasPtr + stride * 4;
      f32.set(biased.b.length === N ? biased.b : biased.b.subarray(0, N), biasPtr >>> 2);
      this.addRows(outPtr, biasPtr, sumPtr, M, stride * 4);
      this.copyOut(f32, biased.out, sumPtr >>> 2, M, N, stride);
    }
  }

  // out (NH,M,N) = a_h (M,K) · B_g by head (headProducts.ts: each head's bits those of matmulOnce)
  matmulHeads(out: Float32Array, a: Float32Array, b: Float32Array, NH: number, KVH: number, M: number, K: number, N: number, bLayout: 'kn' | 'nk'): void {
    matmulHeadsIn(this.mem, (job, heads) => this.runHeads(job, heads), out, a, b, NH, KVH, M, K, N, bLayout);
  }

  private runHeads(job: HeadJob, NH: number): void {
    const alone = (): void => headProducts(this.headFns, job, 0, NH);
    if (this.helper === null || NH < 2 || NH * job.M * job.K * job.N < HEADS_SHARE_MIN_MACS) alone();
    else if (this.threads > 1) this.helper.runHeads(job, NH);
    else this.helper.alone(alone);
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
    const p = this.weights.own(packed);
    const { K, N } = p;
    checkOperands(out, a, M, K, N);
    for (const j of cols) checkColumn(j, N);
    if (M === 0 || cols.length === 0) return;
    if (K === 0) {
      for (const j of cols) for (let i = 0; i < M; i++) out[i * N + j] = 0;
      return;
    }
    const aBytes = alignUp(M * K * 4);
    const aPtr = this.mem.scratch(aBytes + M * PANEL * 4);
    const outPtr = aPtr + aBytes; // one panel's output: M rows of 16
    const [product, s0, s1] = this.productFor(p, K, N);
    let f32 = this.mem.view();
    f32.set(a.length === M * K ? a : a.subarray(0, M * K), aPtr >>> 2);
    for (const q of new Set(cols.map((j) => Math.floor(j / PANEL)))) {
      // NP = 1 (rows of 16), out shifted so that panel q lands at outPtr (i32 arithmetic wraps)
      this.products[product](aPtr, p.ptr, (outPtr - q * PANEL * 4) | 0, M, K, 1, q, q + 1, s0, s1);
      f32 = this.mem.view();
      for (const j of cols) {
        if (Math.floor(j / PANEL) !== q) continue;
        for (let i = 0, s = (outPtr >>> 2) + (j % PANEL); i < M; i++) out[i * N + j] = f32[s + i * PANEL];
      }
    }
  }

  // Which product reads B in its form, and its last two arguments (mm_kn's: its scratch panels).
  private productFor(p: WasmPacked, K: number, N: number): [ProductName, number, number] {
    if (p.dtype !== 'F32') return [p.dtype === 'BF16' ? 'mm_bf16' : 'mm_f16', 0, this.mem.panelScratch(KN_GROUP * K * PANEL * 4, this.helper?.maxThreads ?? 1)];
    if (p.form === 'packed') return ['mm', K * 64, 64];
    if (p.form === 'nk') return ['mm_nk', N, 0];
    return ['mm_kn', N, this.mem.panelScratch(KN_GROUP * K * PANEL * 4, this.helper?.maxThreads ?? 1)];
  }
}

function checkOperands(out: Float32Array, a: Float32Array, M: number, K: number, N: number): void {
  if (!Number.isInteger(M) || M < 0) throw new RangeError(`matmul: bad M=${M}`);
  if (a.length < M * K) throw new RangeError(`matmul: a has ${a.length} values, needs M·K = ${M * K}`);
  if (out.length < M * N) throw new RangeError(`matmul: out has ${out.length} values, needs M·N = ${M * N}`);
}
