// Where a forward's time goes on the kernel's threads, by op (issue 30, "every core"): each stage
// timed as the engine walks the plan, and within it the time spent in work shared with the helper
// threads, or that would be with more than one (the kernel's sharedMs). What is not shared runs on
// one thread whatever the count, so
// Amdahl's law bounds 2 threads ÷ 1 by it: with a serial share f of the one-thread time,
// 1 / (f + (1 − f) / 2). A busy machine moves the times, less the shares.
import { performance } from 'node:perf_hooks';
import type { Engine } from '../src/core/engine';
import type { Model } from '../src/core/model';
import { planModel } from '../src/core/plan';
import type { WasmMatmulKernel } from '../src/core/wasm';

/** One op's time in a forward: all of it, and the part shared with the helpers. */
export interface OpTime { ms: number; sharedMs: number }

/** The process's CPU time in ms: on one thread (the helpers asleep) the caller's, whatever else the machine runs. */
export const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Each op's time (summed over its stages) in one forward of `model`, by `clock`: on one thread
 * cpuMs (with setShareClock(cpuMs): the kernel's sharedMs by the same clock), on more the wall's.
 */
export function forwardByOp(engine: Engine, kernel: WasmMatmulKernel, model: Model, clock: () => number = () => performance.now()): Map<string, OpTime> {
  const opOf = new Map(planModel(model.spec).map((d) => [d.id, d.op.name]));
  const out = new Map<string, OpTime>();
  const walk = engine.walk(model);
  for (;;) {
    const t0 = clock();
    const s0 = kernel.sharedMs;
    const r = walk.next();
    if (r.done) return out;
    const op = opOf.get(r.value) ?? '?';
    const o = out.get(op) ?? { ms: 0, sharedMs: 0 };
    o.ms += clock() - t0;
    o.sharedMs += kernel.sharedMs - s0;
    out.set(op, o);
  }
}

/** Sums of several forwards' op times. */
export function addOpTimes(into: Map<string, OpTime>, t: Map<string, OpTime>): void {
  for (const [op, x] of t) {
    const o = into.get(op) ?? { ms: 0, sharedMs: 0 };
    o.ms += x.ms;
    o.sharedMs += x.sharedMs;
    into.set(op, o);
  }
}

export interface SerialShare {
  /** On one thread, in CPU time: the time outside work the helpers would share ÷ the forward's time. */
  fraction: number;
  /** What Amdahl's law then allows 2 threads ÷ 1. */
  amdahl2: number;
  /** Each op, ms per forward: on 1 thread (CPU time), and of it outside shareable work; on 2 threads (wall time), and of it not shared. */
  byOp: Record<string, { oneMs: number; oneSerialMs: number; twoMs: number; twoSerialMs: number }>;
}

/** The serial share from op times summed over `n` forwards on 1 thread and on 2. */
export function serialShare(one: Map<string, OpTime>, two: Map<string, OpTime>, n: number): SerialShare {
  const r = (x: number): number => Math.round((x / n) * 100) / 100;
  const byOp: SerialShare['byOp'] = {};
  let total = 0;
  let serial = 0;
  for (const [op, t1] of one) {
    const t2 = two.get(op) ?? { ms: 0, sharedMs: 0 };
    total += t1.ms;
    serial += t1.ms - t1.sharedMs;
    byOp[op] = { oneMs: r(t1.ms), oneSerialMs: r(t1.ms - t1.sharedMs), twoMs: r(t2.ms), twoSerialMs: r(t2.ms - t2.sharedMs) };
  }
  const fraction = serial / total;
  return { fraction, amdahl2: 1 / (fraction + (1 - fraction) / 2), byOp };
}

/** The table of a share, the ops with most serial time first. */
export function printSerialShare(s: SerialShare): void {
  const rows = Object.entries(s.byOp).sort((a, b) => b[1].oneSerialMs - a[1].oneSerialMs);
  const f = (x: number, w: number): string => x.toFixed(2).padStart(w);
  console.log('  ms per forward      1 thread, CPU   of it serial   2 threads, wall   of it not shared');
  for (const [op, t] of rows) console.log(`  ${op.padEnd(20)} ${f(t.oneMs, 14)} ${f(t.oneSerialMs, 14)} ${f(t.twoMs, 17)} ${f(t.twoSerialMs, 18)}`);
  console.log(`  serial share ${(100 * s.fraction).toFixed(1)}% of one thread's time: Amdahl allows 2 threads ÷ 1 ≤ ${s.amdahl2.toFixed(2)}×`);
}
