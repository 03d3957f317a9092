// Two threads share one matmul: the caller computes the first half of B's panels while a helper
// thread, blocked in Atomics.wait between products, computes the second half into the same
// output, in one shared WebAssembly memory (both run the same mm on disjoint panels, so every
// output is computed by one thread with the same operations: the bits do not depend on the split).
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
const DONE = 1; // the last job the helper finished
const READY = 2; // 1 once the helper waits for jobs
const ARGS = 3; // mm's 8 arguments
const STOP = -1;
/** A helper that has not finished its half after this long is taken for dead (stopped, never used again). */
const HELPER_TIMEOUT_MS = 30_000;
// Both sides poll a little before they sleep: a forward's products come one after another, and
// waking a thread asleep in Atomics.wait took 0.1-1 ms in the VMs we run on (as long as a product).
/** How long the helper polls for the next job after one, before it sleeps. */
const HELPER_POLL_MS = 3;
/** How long the caller polls for the helper's half before it sleeps. */
const CALLER_POLL_MS = 20;

type MmFn = (a: number, b: number, out: number, M: number, K: number, NP: number, p0: number, p1: number) => void;

export class MatmulThreads {
  private readonly ctl: Int32Array;
  private seq = 0;
  private stopped = false;

  constructor(memory: WasmMemory, private readonly helper: { terminate(): unknown }) {
    this.ctl = new Int32Array(memory.buffer, 0, 16); // (a shared buffer is never detached by grow)
  }

  /** The helper has started and takes jobs (until then the caller computes everything). */
  get ready(): boolean {
    return !this.stopped && Atomics.load(this.ctl, READY) === 1;
  }

  /** The helper computes panels p0 … p1−1 of this product; wait() before reading `out`. */
  start(a: number, b: number, out: number, M: number, K: number, NP: number, p0: number, p1: number): void {
    const args = [a, b, out, M, K, NP, p0, p1];
    for (let i = 0; i < args.length; i++) this.ctl[ARGS + i] = args[i];
    this.seq = (this.seq + 1) & 0x3fffffff;
    Atomics.store(this.ctl, SEQ, this.seq);
    Atomics.notify(this.ctl, SEQ);
  }

  /** True when the helper finished its part; false if it stopped answering (the caller computes that part). */
  wait(): boolean {
    const start = Date.now();
    const deadline = start + HELPER_TIMEOUT_MS;
    for (let i = 0; ; i++) {
      const done = Atomics.load(this.ctl, DONE);
      if (done === this.seq) return true;
      if ((i & 1023) !== 1023 || Date.now() < start + CALLER_POLL_MS) continue;
      if (Date.now() > deadline) {
        this.dispose();
        return false;
      }
      Atomics.wait(this.ctl, DONE, done, 1000);
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

/** The helper thread's whole life: instantiate mm on the shared memory, then run jobs until told to stop. */
export function runMatmulHelper(api: WasmApi, module: WasmModule, memory: WasmMemory): void {
  const mm = new api.Instance(module, { env: { memory } }).exports.mm as MmFn;
  const ctl = new Int32Array(memory.buffer, 0, 16);
  let seen = Atomics.load(ctl, SEQ);
  let lastJob = 0;
  Atomics.store(ctl, READY, 1);
  for (let i = 0; ; i++) {
    if (Atomics.load(ctl, SEQ) === seen) {
      if ((i & 1023) !== 1023 || Date.now() < lastJob + HELPER_POLL_MS) continue;
      Atomics.wait(ctl, SEQ, seen);
    }
    const seq = Atomics.load(ctl, SEQ);
    if (seq === STOP) return;
    if (seq === seen) continue;
    seen = seq;
    mm(ctl[ARGS], ctl[ARGS + 1], ctl[ARGS + 2], ctl[ARGS + 3], ctl[ARGS + 4], ctl[ARGS + 5], ctl[ARGS + 6], ctl[ARGS + 7]);
    Atomics.store(ctl, DONE, seq);
    Atomics.notify(ctl, DONE);
    lastJob = Date.now();
  }
}
