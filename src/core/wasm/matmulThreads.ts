// Two threads share one matmul: the caller and a helper thread (blocked in Atomics.wait between
// products) claim B's panels a chunk at a time from one counter and compute them into the same
// output, in one shared WebAssembly memory. Every output column is computed whole by one thread
// with the same operations, so the bits do not depend on who took what; and a helper that is late
// or slowed by other work on its core (VS Code's renderer, say) simply takes fewer chunks.
// A 124M-parameter forward is matmul-bound and the machines we run on have two cores.
//
// The platform starts the helper (worker_threads on Node: src/worker/matmulHelperThread.ts) with
// the compiled module and the memory; no Node built-in here. Where memory cannot be shared (a
// browser page without cross-origin isolation: vscode.dev) there is no helper and one thread
// does it all, as before.
//
// Control words live in bytes [0, 64) of the memory, which the heap never hands out.

import type { WasmApi, WasmMemory, WasmModule } from './wasmApi';

/** Starts a thread that calls runMatmulHelper(module, memory); null where it cannot. */
export type SpawnMatmulHelper = (module: WasmModule, memory: WasmMemory) => { terminate(): unknown } | null;

const SEQ = 0; // the job's number (the caller's), or STOP
const WORK = 1; // (job << 16) | the next panel to claim: claims of an older job fail
const FINISHED = 2; // panels of the current job computed, by both threads
const READY = 3; // 1 once the helper waits for jobs
const HELPED = 4; // panels the helper has computed, all jobs (what tests and the bench read)
const FN = 5; // which product: an index into PRODUCTS
const ARGS = 6; // its arguments but p0 p1: a b out M K NP s0 s1 (ARGS + 5 is NP), then the helper's own s1 (a scratch of its own)
const STOP = -1;
/** A job number fits beside a panel index (< 2^16: N up to 1,048,560) in one word. */
const JOB_MASK = 0x7fff;
/** A helper that has not finished its claimed panels after this long is taken for dead (stopped, never used again). */
const HELPER_TIMEOUT_MS = 30_000;
// Both sides poll a little before they sleep: a forward's products come one after another, and
// waking a thread asleep in Atomics.wait took 0.1-1 ms in the VMs we run on (as long as a product).
/** How long the helper polls for the next job after one, before it sleeps. */
const HELPER_POLL_MS = 3;
// When the caller waits long for the helper's last chunks (its core busy with other work: VS
// Code's renderer, a build), two threads are slower than one: then one thread for a while.
/** A wait for the helper longer than this share of the product's time counts as late. */
const LATE_SHARE = 0.25;
/** … and longer than this (a chunk finishing a little after ours is not late: a preempted thread is out for ms). */
const LATE_MIN_MS = 0.5;
/** How long one thread goes alone after the helper was late. */
const ALONE_MS = 500;

/** mm and mm_nk of matmulModule.ts: out (M, NP·16) = a · B for panels p0 … p1−1; s0, s1 say how B lies. */
export type ProductFn = (a: number, b: number, out: number, M: number, K: number, NP: number, p0: number, p1: number, s0: number, s1: number) => void;
/** The module's products, by the index FN holds. */
export const PRODUCTS = ['mm', 'mm_nk', 'mm_kn', 'mm_bf16', 'mm_f16'] as const;
export type ProductName = (typeof PRODUCTS)[number];
type Products = Record<ProductName, ProductFn>;

/** Panels per claim: small enough that the two finish together, large enough that claims cost nothing. */
function chunkOf(NP: number): number {
  return Math.max(1, Math.ceil(NP / 32));
}

/**
 * Claims chunks of panels of job `job` and computes them until none are left (or the job is no
 * longer the current one); returns how many it computed. Both threads run this on each job: a
 * helper that is late, or slowed by other work on its core, takes fewer, and the caller never
 * waits for more than the chunks the helper has claimed.
 */
function claimAndCompute(ctl: Int32Array, job: number, products: Products, helper: boolean): number {
  let done = 0;
  for (;;) {
    const w = Atomics.load(ctl, WORK);
    if (w >>> 16 !== job) return done;
    const NP = ctl[ARGS + 5];
    const p0 = w & 0xffff;
    if (p0 >= NP) return done;
    const p1 = Math.min(NP, p0 + chunkOf(NP));
    if (Atomics.compareExchange(ctl, WORK, w, (job << 16) | p1) !== w) continue;
    // (the claim holds the job open: the caller writes the next job's arguments only after
    // FINISHED reaches NP, so these are this job's)
    products[PRODUCTS[ctl[FN]]](ctl[ARGS], ctl[ARGS + 1], ctl[ARGS + 2], ctl[ARGS + 3], ctl[ARGS + 4], NP, p0, p1, ctl[ARGS + 6], ctl[ARGS + (helper ? 8 : 7)]);
    Atomics.add(ctl, FINISHED, p1 - p0);
    done += p1 - p0;
  }
}

export class MatmulThreads {
  private readonly ctl: Int32Array;
  private job = 0;
  private stopped = false;
  private aloneUntil = 0;

  constructor(memory: WasmMemory, private readonly products: Products, private readonly helper: { terminate(): unknown }) {
    this.ctl = new Int32Array(memory.buffer, 0, 16); // (a shared buffer is never detached by grow)
  }

  /** Panels the helper has computed so far. */
  get helpedPanels(): number {
    return Atomics.load(this.ctl, HELPED);
  }

  /** The helper has started and takes jobs (until then the caller computes everything). */
  get ready(): boolean {
    return !this.stopped && Atomics.load(this.ctl, READY) === 1 && (this.aloneUntil === 0 || Date.now() >= this.aloneUntil);
  }

  /**
   * product(a, b, out, M, K, NP, 0, NP, s0, s1), the panels shared with the helper, which passes
   * s1Helper for s1 (mm_kn's scratch: one per thread); returns when every panel is computed (or,
   * should the helper stop answering, after computing them here).
   */
  run(product: ProductName, a: number, b: number, out: number, M: number, K: number, NP: number, s0: number, s1: number, s1Helper: number): void {
    const ctl = this.ctl;
    const args = [a, b, out, M, K, NP, s0, s1, s1Helper];
    for (let i = 0; i < args.length; i++) ctl[ARGS + i] = args[i];
    ctl[FN] = PRODUCTS.indexOf(product);
    this.job = (this.job + 1) & JOB_MASK;
    Atomics.store(ctl, FINISHED, 0);
    Atomics.store(ctl, WORK, this.job << 16);
    Atomics.store(ctl, SEQ, this.job);
    Atomics.notify(ctl, SEQ);
    const t0 = performance.now();
    claimAndCompute(ctl, this.job, this.products, false);
    // what is left: the chunks the helper claimed and is computing
    const t1 = performance.now();
    const start = Date.now();
    for (let i = 0; ; i++) {
      const finished = Atomics.load(ctl, FINISHED);
      if (finished >= NP) {
        const waited = performance.now() - t1;
        if (waited > LATE_MIN_MS && waited > LATE_SHARE * (t1 - t0 + waited)) this.aloneUntil = Date.now() + ALONE_MS;
        return;
      }
      if ((i & 1023) !== 1023) continue;
      const now = Date.now();
      if (now > start + HELPER_TIMEOUT_MS) {
        this.dispose();
        this.products[product](a, b, out, M, K, NP, 0, NP, s0, s1); // (every panel again, here: the same bits)
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
    void this.helper.terminate();
  }
}

/** The helper thread's whole life: instantiate the products on the shared memory, then take part in jobs until told to stop. */
export function runMatmulHelper(api: WasmApi, module: WasmModule, memory: WasmMemory): void {
  const products = productsOf(new api.Instance(module, { env: { memory } }).exports);
  const ctl = new Int32Array(memory.buffer, 0, 16);
  let seen = Atomics.load(ctl, SEQ);
  let lastJob = 0;
  Atomics.store(ctl, READY, 1);
  for (let i = 0; ; i++) {
    if (Atomics.load(ctl, SEQ) === seen) {
      if ((i & 1023) !== 1023 || Date.now() < lastJob + HELPER_POLL_MS) continue;
      Atomics.wait(ctl, SEQ, seen);
    }
    const job = Atomics.load(ctl, SEQ);
    if (job === STOP) return;
    if (job === seen) continue;
    seen = job;
    Atomics.add(ctl, HELPED, claimAndCompute(ctl, job, products, true));
    lastJob = Date.now();
  }
}

/** The product functions of an instance of the matmul module. */
export function productsOf(exports: Record<string, unknown>): Products {
  const fn = (name: ProductName): ProductFn => exports[name] as ProductFn;
  return { mm: fn('mm'), mm_nk: fn('mm_nk'), mm_kn: fn('mm_kn'), mm_bf16: fn('mm_bf16'), mm_f16: fn('mm_f16') };
}
