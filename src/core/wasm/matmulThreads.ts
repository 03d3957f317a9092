// Every core shares one matmul: the caller and its helper threads (each blocked in Atomics.wait
// between products) claim B's panels a chunk at a time from one counter and compute them into the
// same output, in one shared WebAssembly memory. Every output column is computed whole by one
// thread with the same operations, so the bits do not depend on how many threads there are or who
// took what; and a helper that is late or slowed by other work on its core (VS Code's renderer,
// say) simply takes fewer chunks.
//
// The platform starts the helpers (worker_threads on Node: src/worker/matmulHelperThread.ts; Web
// Workers on the web: src/worker/webMatmulHelper.ts) with the compiled module, the memory and the
// helper's number; no Node built-in here. Where memory cannot be shared (a browser page without
// cross-origin isolation: vscode.dev) there are no helpers and one thread does it all.
//
// Control words live in bytes [0, 64) of the memory, which the heap never hands out.

import { headJobOf, headJobWords, headProducts, type HeadFns, type HeadJob } from './headProducts';
import type { WasmApi, WasmMemory, WasmModule } from './wasmApi';

/** The compiled modules a helper instantiates on the shared memory: the products', the vector ops' (expModule.ts) and exact GELU's (geluModule.ts). */
export interface HelperModules { readonly matmul: WasmModule; readonly vector: WasmModule; readonly gelu: WasmModule }
/** Starts helper thread number `index` (0, 1, …), which calls runMatmulHelper(api, modules, memory, index); null where it cannot. */
export type SpawnMatmulHelper = (modules: HelperModules, memory: WasmMemory, index: number) => { terminate(): unknown } | null;

const SEQ = 0; // the job's number (the caller's), or STOP
const WORK = 1; // (job << 16) | the next panel to claim: claims of an older job fail
const FINISHED = 2; // panels of the current job computed, by every thread
const READY = 3; // helpers waiting for jobs
const HELPED = 4; // panels the helpers have computed, all jobs (what tests and the bench read)
const FN = 5; // which product: an index into PRODUCTS
const ACTIVE = 6; // helpers numbered below this take part in jobs (the thread count asked for, less the caller)
const COUNT = 7; // the job's units (a product's panels, a softmax's rows, …)
const ARGS = 8; // the job's arguments (a product's: a b out M K s0 s1, then s1's step per thread), 8 words
const F64 = 7; // a vector op's float argument, as the f64 at words 14-15 (ARGS + 6)
const STOP = -1;
/** A job number fits beside a panel index (< 2^16: N up to 1,048,560) in one word. */
const JOB_MASK = 0x7fff;
/** Helper threads at most (the control words and mm_kn's scratch panels are sized for no more). */
export const MAX_THREADS = 64;
/** A helper that has not finished its claimed panels after this long is taken for dead (all stopped, never used again). */
const HELPER_TIMEOUT_MS = 30_000;
// Every side polls a little before it sleeps: a forward's products come one after another, and
// waking a thread asleep in Atomics.wait took 0.1-1 ms in the VMs we run on (as long as a product).
/** How long a helper polls for the next job after one, before it sleeps. */
const HELPER_POLL_MS = 3;
// When the caller waits long for the helpers' last chunks (their cores busy with other work: VS
// Code's renderer, a build), more threads are slower than one: then one thread for a while.
/** A wait for the helpers longer than this share of the product's time counts as late. */
const LATE_SHARE = 0.25;
/** … and longer than this (a chunk finishing a little after ours is not late: a preempted thread is out for ms). */
const LATE_MIN_MS = 0.5;
/** How long one thread goes alone after the helpers were late. */
const ALONE_MS = 500;
/**
 * … when they were late this many products in a row: a helper asleep between two products (after
 * a softmax or a norm longer than its poll) is late once as it wakes, on an idle machine too; a
 * core busy with other work keeps it late product after product.
 */
const LATE_IN_A_ROW = 3;

/** The clock sharedMs is kept with (ms): wall time, or the bench's CPU time (a busy machine's wall time is mostly other work's). */
let shareClock: () => number = () => performance.now();

/** Tests and the bench: the clock of sharedMs from now on (default: performance.now). */
export function setShareClock(now: () => number): void {
  shareClock = now;
}

/**
 * The threads a product shares for the `ffnLens.threads` setting (the CLI's --threads): 0 (or
 * anything not a positive number) every core, else that many, at most one per core.
 */
export function threadCount(setting: number | undefined, cores: number): number {
  const all = Math.max(1, Math.min(MAX_THREADS, Math.floor(cores) || 1));
  return setting !== undefined && setting >= 1 ? Math.min(all, Math.floor(setting)) : all;
}

/** mm and mm_nk of matmulModule.ts: out (M, NP·16) = a · B for panels p0 … p1−1; s0, s1 say how B lies. */
export type ProductFn = (a: number, b: number, out: number, M: number, K: number, NP: number, p0: number, p1: number, s0: number, s1: number) => void;
/** The module's products, by the index FN holds. */
export const PRODUCTS = ['mm', 'mm_nk', 'mm_kn', 'mm_bf16', 'mm_f16'] as const;
export type ProductName = (typeof PRODUCTS)[number];
type Products = Record<ProductName, ProductFn>;
/** The vector ops a job can split (expModule.ts: each row, or each element, computed alone), by FN − PRODUCTS.length. */
export const VECTOR_OPS = ['softmax', 'sigmoid_act', 'norm_rows', 'gelu_act'] as const;
export type VectorOpName = (typeof VECTOR_OPS)[number];
/** expModule.ts's exports, as it declares them. */
export interface VectorFns {
  readonly softmax: (ptr: number, R: number, N4: number, scale: number) => void;
  readonly sigmoid_act: (x: number, up: number, out: number, n: number, kind: number) => void;
  readonly norm_rows: (ptr: number, T: number, C: number, g: number, b: number, eps: number, rms: number) => void;
}
/** geluModule.ts's export: out = GELU(x) (· up), erf's table at `table`. */
export type GeluFn = (x: number, up: number, out: number, n: number, table: number) => void;
/** A sigmoid_act or gelu_act job's unit: this many elements. */
export const ACT_UNIT = 4096;
/** The job number (FN) of attention's products by head (headProducts.ts), after the products and vector ops. */
const HEADS = PRODUCTS.length + VECTOR_OPS.length;
export interface Fns { products: Products; vector: VectorFns; gelu: GeluFn; heads: HeadFns }

// Units p0 … p1−1 of the job the control words describe, by thread `thread` (its own scratch).
function compute(ctl: Int32Array, f64: Float64Array, fns: Fns, p0: number, p1: number, thread: number): void {
  const fn = ctl[FN];
  const a = ARGS;
  if (fn < PRODUCTS.length) {
    fns.products[PRODUCTS[fn]](ctl[a], ctl[a + 1], ctl[a + 2], ctl[a + 3], ctl[a + 4], ctl[COUNT], p0, p1, ctl[a + 5], ctl[a + 6] + thread * ctl[a + 7]);
    return;
  }
  if (fn === HEADS) return headProducts(fns.heads, headJobOf(ctl, a), p0, p1);
  const v = fns.vector;
  const op = VECTOR_OPS[fn - PRODUCTS.length];
  if (op === 'softmax') v.softmax(ctl[a] + p0 * ctl[a + 1] * 4, p1 - p0, ctl[a + 1], f64[F64]); // ptr N4 · scale
  else if (op === 'norm_rows') v.norm_rows(ctl[a] + p0 * ctl[a + 1] * 4, p1 - p0, ctl[a + 1], ctl[a + 2], ctl[a + 3], f64[F64], ctl[a + 4]); // ptr C g b rms · eps
  else {
    // x up out n (kind | table): elements [s, e) (n and ACT_UNIT multiples of 4)
    const s = p0 * ACT_UNIT;
    const e = Math.min(ctl[a + 3], p1 * ACT_UNIT);
    const [x, up, out] = [ctl[a] + s * 4, ctl[a + 1] === 0 ? 0 : ctl[a + 1] + s * 4, ctl[a + 2] + s * 4];
    if (op === 'gelu_act') fns.gelu(x, up, out, e - s, ctl[a + 4]);
    else v.sigmoid_act(x, up, out, e - s, ctl[a + 4]);
  }
}

/** Panels per claim: small enough that the threads finish together, large enough that claims cost nothing. */
function chunkOf(NP: number, threads: number): number {
  return Math.max(1, Math.ceil(NP / (16 * threads)));
}

/**
 * Claims chunks of panels of job `job` and computes them until none are left (or the job is no
 * longer the current one); returns how many it computed. Every thread runs this on each job
 * (`thread`: 0 the caller, i + 1 helper i, which picks its own scratch): a helper that is late, or
 * slowed by other work on its core, takes fewer, and the caller never waits for more than the
 * chunks the helpers have claimed.
 */
function claimAndCompute(ctl: Int32Array, f64: Float64Array, job: number, fns: Fns, thread: number): number {
  let done = 0;
  for (;;) {
    const w = Atomics.load(ctl, WORK);
    if (w >>> 16 !== job) return done;
    const NP = ctl[COUNT];
    const p0 = w & 0xffff;
    if (p0 >= NP) return done;
    const p1 = Math.min(NP, p0 + chunkOf(NP, ctl[ACTIVE] + 1));
    if (Atomics.compareExchange(ctl, WORK, w, (job << 16) | p1) !== w) continue;
    // (the claim holds the job open: the caller writes the next job's arguments only after
    // FINISHED reaches NP, so these are this job's)
    compute(ctl, f64, fns, p0, p1, thread);
    Atomics.add(ctl, FINISHED, p1 - p0);
    done += p1 - p0;
  }
}

/** The caller's side: starts helpers up to the thread count asked for, hands them jobs. */
export class MatmulThreads {
  private readonly ctl: Int32Array;
  private readonly f64: Float64Array;
  private readonly helpers: Array<{ terminate(): unknown }> = [];
  private job = 0;
  private stopped = false;
  private aloneUntil = 0;
  /** Products in a row whose helpers were late (LATE_IN_A_ROW). */
  private lateInARow = 0;
  private wanted = 1;
  /** Milliseconds spent in shareable jobs (from handing one out to its last unit; on one thread, its call), all jobs. */
  private sharedTime = 0;

  /** `threads`: how many threads share a product, the caller's included (helpers are started now, as many as that asks). */
  constructor(private readonly memory: WasmMemory, private readonly modules: HelperModules, private readonly fns: Fns, private readonly spawn: SpawnMatmulHelper, threads: number) {
    this.ctl = new Int32Array(memory.buffer, 0, 16); // (a shared buffer is never detached by grow)
    this.f64 = new Float64Array(memory.buffer, 0, 8);
    this.setThreads(threads);
  }

  /** Panels the helpers have computed so far. */
  get helpedPanels(): number {
    return Atomics.load(this.ctl, HELPED);
  }

  /**
   * Milliseconds the caller has spent in jobs it shares with the helpers, or would share with
   * more than one thread (see alone()): the bench's split of a forward's time into what threads
   * share and what one thread does whatever their count (Amdahl's serial part).
   */
  get sharedMs(): number {
    return this.sharedTime;
  }

  /** `job` on the caller alone (one thread asked for, or the helpers late), timed as a shareable job. */
  alone(job: () => void): void {
    const t0 = shareClock();
    job();
    this.sharedTime += shareClock() - t0;
  }

  /** Threads a product runs on now: the caller and the helpers that have started, up to the count asked for; 1 while the helpers are late. */
  get threads(): number {
    if (this.stopped || (this.aloneUntil !== 0 && Date.now() < this.aloneUntil)) return 1;
    return 1 + Math.min(this.wanted - 1, Atomics.load(this.ctl, READY));
  }

  /** The most threads a product may run on (the count asked for, as far as helpers could be started): mm_kn's scratch panels are one each. */
  get maxThreads(): number {
    return this.wanted;
  }

  /** How many threads share a product from now on, the caller's included (1: the caller alone); starts helpers if more are asked for than have been. */
  setThreads(threads: number): void {
    this.wanted = Math.max(1, Math.min(MAX_THREADS, Math.floor(threads) || 1));
    while (!this.stopped && this.helpers.length < this.wanted - 1) {
      const h = this.spawn(this.modules, this.memory, this.helpers.length);
      if (!h) break;
      this.helpers.push(h);
    }
    this.wanted = Math.min(this.wanted, this.helpers.length + 1);
  }

  /**
   * product(a, b, out, M, K, NP, 0, NP, s0, s1), the panels shared with the helpers; thread t (0
   * the caller) passes s1 + t·s1Step for s1 (mm_kn's scratch: one per thread); returns when every
   * panel is computed (or, should a helper stop answering, after computing them all here).
   */
  run(product: ProductName, a: number, b: number, out: number, M: number, K: number, NP: number, s0: number, s1: number, s1Step: number): void {
    this.start(PRODUCTS.indexOf(product), NP, [a, b, out, M, K, s0, s1, s1Step]);
    this.finish(NP, () => this.fns.products[product](a, b, out, M, K, NP, 0, NP, s0, s1));
  }

  /**
   * A vector op over `count` units (softmax, norm_rows: rows; sigmoid_act, gelu_act: ACT_UNIT elements), the
   * units shared with the helpers: `args` as compute() reads them, `x` its float argument.
   */
  runVector(op: VectorOpName, count: number, args: readonly number[], x: number, alone: () => void): void {
    this.f64[F64] = x;
    this.start(PRODUCTS.length + VECTOR_OPS.indexOf(op), count, args);
    this.finish(count, alone);
  }

  /** Attention's products, heads 0 … NH−1 of `job` shared with the helpers (headProducts.ts). */
  runHeads(job: HeadJob, NH: number): void {
    this.start(HEADS, NH, headJobWords(job));
    this.finish(NH, () => headProducts(this.fns.heads, job, 0, NH));
  }

  // The job's words, then the helpers woken.
  private start(fn: number, count: number, args: readonly number[]): void {
    const ctl = this.ctl;
    for (let i = 0; i < args.length; i++) ctl[ARGS + i] = args[i];
    ctl[FN] = fn;
    ctl[COUNT] = count;
    ctl[ACTIVE] = this.wanted - 1;
    this.job = (this.job + 1) & JOB_MASK;
    Atomics.store(ctl, FINISHED, 0);
    Atomics.store(ctl, WORK, this.job << 16);
    Atomics.store(ctl, SEQ, this.job);
    Atomics.notify(ctl, SEQ);
  }

  // The caller's claims, then the wait for the helpers' last ones.
  private finish(count: number, alone: () => void): void {
    const s0 = shareClock();
    const t0 = performance.now();
    claimAndCompute(this.ctl, this.f64, this.job, this.fns, 0);
    this.waitForHelpers(count, t0, alone);
    this.sharedTime += shareClock() - s0;
  }

  // What is left after the caller's last claim: the chunks the helpers claimed and are computing.
  private waitForHelpers(NP: number, t0: number, alone: () => void): void {
    const ctl = this.ctl;
    const t1 = performance.now();
    const start = Date.now();
    for (let i = 0; ; i++) {
      const finished = Atomics.load(ctl, FINISHED);
      if (finished >= NP) {
        const waited = performance.now() - t1;
        const late = waited > LATE_MIN_MS && waited > LATE_SHARE * (t1 - t0 + waited);
        this.lateInARow = late ? this.lateInARow + 1 : 0;
        if (this.lateInARow >= LATE_IN_A_ROW) {
          this.aloneUntil = Date.now() + ALONE_MS;
          this.lateInARow = 0;
        }
        return;
      }
      if ((i & 1023) !== 1023) continue;
      const now = Date.now();
      if (now > start + HELPER_TIMEOUT_MS) {
        this.dispose();
        alone(); // (every panel again, here: the same bits)
        return;
      }
      // a helper held up on its core: stop polling, so as not to take the core it needs
      if (now > start + 2) Atomics.wait(ctl, FINISHED, finished, 1);
    }
  }

  dispose(): void {
    if (this.stopped) return;
    this.stopped = true;
    Atomics.store(this.ctl, SEQ, STOP);
    Atomics.notify(this.ctl, SEQ);
    for (const h of this.helpers) void h.terminate();
  }
}

/** A helper thread's whole life: instantiate the products on the shared memory, then take part in jobs until told to stop. */
export function runMatmulHelper(api: WasmApi, modules: HelperModules, memory: WasmMemory, index: number): void {
  const matmul = new api.Instance(modules.matmul, { env: { memory } }).exports;
  let view = new Float32Array(memory.buffer);
  const fns: Fns = {
    products: productsOf(matmul),
    vector: new api.Instance(modules.vector, { env: { memory } }).exports as unknown as VectorFns,
    gelu: new api.Instance(modules.gelu, { env: { memory } }).exports.gelu_act as GeluFn,
    heads: headFnsOf(matmul, () => {
      if (view.byteLength !== memory.buffer.byteLength) view = new Float32Array(memory.buffer); // (grown since)
      return view;
    }),
  };
  const ctl = new Int32Array(memory.buffer, 0, 16);
  const f64 = new Float64Array(memory.buffer, 0, 8);
  let seen = Atomics.load(ctl, SEQ);
  let lastJob = 0;
  Atomics.add(ctl, READY, 1);
  for (let i = 0; ; i++) {
    if (Atomics.load(ctl, SEQ) === seen) {
      if ((i & 1023) !== 1023 || Date.now() < lastJob + HELPER_POLL_MS) continue;
      Atomics.wait(ctl, SEQ, seen);
    }
    const job = Atomics.load(ctl, SEQ);
    if (job === STOP) return;
    if (job === seen) continue;
    seen = job;
    if (index >= ctl[ACTIVE]) continue; // (fewer threads asked for than have started)
    Atomics.add(ctl, HELPED, claimAndCompute(ctl, f64, job, fns, index + 1));
    lastJob = Date.now();
  }
}

/** What headProducts.ts computes with, from an instance of the matmul module. */
export function headFnsOf(exports: Record<string, unknown>, view: () => Float32Array): HeadFns {
  const fn = <F>(name: string): F => exports[name] as F;
  return { mm: fn('mm'), packKn: fn('pack_kn'), packNk: fn('pack_nk'), view };
}

/** The product functions of an instance of the matmul module. */
export function productsOf(exports: Record<string, unknown>): Products {
  const fn = (name: ProductName): ProductFn => exports[name] as ProductFn;
  return { mm: fn('mm'), mm_nk: fn('mm_nk'), mm_kn: fn('mm_kn'), mm_bf16: fn('mm_bf16'), mm_f16: fn('mm_f16') };
}
