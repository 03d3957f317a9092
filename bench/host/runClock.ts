// How long a thread actually ran on a core between two moments (Linux): a small worker thread reads
// the extension host's main thread's schedstat (/proc/<pid>/task/<pid>/schedstat: nanoseconds run
// so far, kept exact by the kernel even while it runs) about every millisecond (3 % of a core), into shared
// memory. The host bench uses it to tell our handlers' own work from the time the OS gave the core
// to another process on a busy 2-core machine, as it tells it from GC pauses: wall time is what the
// handler's clock saw; on-core time is what our code cost the thread.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';

const CAPACITY = 1 << 19; // samples: ~8 minutes at one a millisecond

const POLLER = `
const { workerData } = require('node:worker_threads');
const { openSync, readSync } = require('node:fs');
const { file, control, samples } = workerData;
const ctl = new Int32Array(control);
const s = new Float64Array(samples);
const fd = openSync(file, 'r');
const buf = Buffer.alloc(128);
const cap = s.length / 2;
while (Atomics.load(ctl, 0) === 0) {
  const n = readSync(fd, buf, 0, 128, 0);
  const t = Number(process.hrtime.bigint());
  let run = 0;
  for (let k = 0; k < n && buf[k] !== 32; k++) run = run * 10 + buf[k] - 48; // the first field, ns run
  const i = Atomics.load(ctl, 1);
  if (i < cap) {
    s[2 * i] = t;
    s[2 * i + 1] = run;
    Atomics.store(ctl, 1, i + 1);
  }
  Atomics.wait(ctl, 0, 0, 1);
}
`;

export interface RunClock {
  /**
   * At most how many ms the thread ran on a core between two performance.now() moments of this
   * thread (an upper bound, within about a millisecond on a quiet machine), or null (not sampled then).
   */
  ranMs(from: number, to: number): number | null;
  stop(): Promise<void>;
}

export function startRunClock(): RunClock | null {
  const file = `/proc/${process.pid}/task/${process.pid}/schedstat`;
  if (!existsSync(file)) return null;
  const control = new SharedArrayBuffer(8);
  const samples = new SharedArrayBuffer(CAPACITY * 2 * 8);
  const ctl = new Int32Array(control);
  const s = new Float64Array(samples);
  const w = new Worker(POLLER, { eval: true, workerData: { file, control, samples } });
  // performance.now() of this thread → the monotonic clock (ns) the poller stamps its samples with
  const perfToNs = (ms: number): number => Number(process.hrtime.bigint()) - (performance.now() - ms) * 1e6;
  /** The index of the last sample at or before monotonic time t (-1: none). */
  const before = (t: number, n: number): number => {
    let lo = -1;
    let hi = n;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (s[2 * mid] <= t) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  return {
    ranMs(from, to) {
      // Never less than the thread may have run: from the last sample before `from` to the first
      // after `to`, capped at the wall time. (On a quiet machine the samples lie within a
      // millisecond of either end; when the poller itself waits for a core, the bound widens
      // towards the wall time, never below the truth.)
      const n = Atomics.load(ctl, 1);
      const a = before(perfToNs(from), n);
      const b = before(perfToNs(to), n) + 1;
      if (a < 0 || b >= n) return null;
      return Math.max(0, Math.min(to - from, (s[2 * b + 1] - s[2 * a + 1]) / 1e6));
    },
    async stop() {
      Atomics.store(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      await w.terminate();
    },
  };
}
