// The forward's row and elementwise ops (softmax, LayerNorm / RMSNorm, SiLU / GELU-tanh: expModule.ts;
// exact GELU: geluModule.ts, erf's table in the kernel's memory) split over a matmul kernel's
// threads: the vector modules instantiated on the kernel's shared
// memory by the caller and every helper (matmulThreads.ts), the values copied into the kernel's
// scratch, each row (or block of elements) computed whole by one thread with the same code as the
// one-thread form (wasmExp.ts), so the bits are the same whatever the thread count. The one-thread
// form does what is small, and everything when one thread is asked for: sharing costs a wake-up.
// (In a GPT-2-small forward on one thread the head's softmax over 50,257 words was 8% of the time,
// GELU 3%: serial, they held two threads to ~1.6×.)

import type { KernelMemory } from './kernelMemory';
import { ACT_UNIT, type GeluFn, type MatmulThreads, type VectorFns } from './matmulThreads';
import type { WasmExp } from './wasmExp';

/**
 * An op splits when it has at least this many values (~10 µs on one thread): a helper polling
 * between jobs takes its part within a µs or two, and one asleep joins late (the caller claims
 * the units meanwhile). GPT-2-small's norms (32 × 768) and attention weights (12 heads × 32 × 32)
 * split since this went from 2^15 to 2^13.
 */
const SPLIT_MIN = 1 << 13;

// Each function a few times on small rows of scratch before the first forward (as wasmExp.ts's
// warmUp: V8 optimizes a wasm function after its first calls; the helpers share the module's code).
function warmUp(fns: SharedVectorFns, mem: KernelMemory): void {
  const ptr = mem.scratch(3 * 4096 * 4);
  mem.view().fill(0.5, ptr >> 2, (ptr >> 2) + 3 * 4096);
  for (let i = 0; i < 8; i++) {
    fns.softmax(ptr, 4, 1024, 1);
    fns.gelu.fn(ptr, ptr + 4096 * 4, ptr, 1024, fns.gelu.table);
    for (const kind of [0, 1]) fns.sigmoid_act(ptr, ptr + 4096 * 4, ptr, 1024, kind);
    for (const rms of [0, 1]) fns.norm_rows(ptr + 2048 * 4, 16, 256, ptr, ptr + 1024 * 4, 1e-5, rms);
  }
}

/** The vector module's functions on the kernel's memory, and exact GELU's with where its table lies. */
export type SharedVectorFns = VectorFns & { readonly gelu: { readonly fn: GeluFn; readonly table: number } };

/** `plain`: the one-thread form (its own memory), for what does not split. */
export function threadedVector(threads: MatmulThreads, mem: KernelMemory, fns: SharedVectorFns, plain: WasmExp): WasmExp {
  warmUp(fns, mem);
  const split = (values: number): boolean => values >= SPLIT_MIN && threads.threads > 1;
  // (what would split, done by one thread: timed as shareable, matmulThreads.ts's sharedMs)
  const alone = (values: number, job: () => void): void => (values >= SPLIT_MIN ? threads.alone(job) : job());

  // x (then the result) and up copied in, each padded to a whole f32x4 (the lanes past n computed,
  // not copied out); `run` computes them in place; the result copied out
  function elementwise(out: Float32Array, xs: Float32Array, up: Float32Array | null, n: number, run: (ptr: number, upPtr: number, n4: number) => void): void {
    const n4 = (n + 3) & ~3;
    const ptr = mem.scratch(n4 * 4 * (up ? 2 : 1));
    const m = mem.view();
    const o = ptr >> 2;
    m.set(xs.subarray(0, n), o);
    if (up) m.set(up.subarray(0, n), o + n4);
    run(ptr, up ? ptr + n4 * 4 : 0, n4);
    out.set(mem.view().subarray(o, o + n)); // (a fresh view: the same unless the memory grew)
  }

  return {
    expInPlace: (buf, from, to) => plain.expInPlace(buf, from, to),
    geluAct(out, xs, up, n) {
      if (!split(n)) return alone(n, () => plain.geluAct(out, xs, up, n));
      elementwise(out, xs, up, n, (ptr, upPtr, n4) => {
        const { fn, table } = fns.gelu;
        threads.runVector('gelu_act', Math.ceil(n4 / ACT_UNIT), [ptr, upPtr, ptr, n4, table], 0, () => fn(ptr, upPtr, ptr, n4, table));
      });
    },
    softmax(out, inp, R, N, scale) {
      if (!split(R * N) || R < 2 || !(scale > 0)) return alone(R < 2 || !(scale > 0) ? 0 : R * N, () => plain.softmax(out, inp, R, N, scale));
      // rows padded to whole f32x4 with −∞, as the one-thread form does
      const N4 = (N + 3) & ~3;
      const ptr = mem.scratch(R * N4 * 4);
      const m = mem.view();
      const o = ptr >> 2;
      if (N4 === N) m.set(inp.subarray(0, R * N), o);
      else {
        for (let r = 0; r < R; r++) {
          m.set(inp.subarray(r * N, (r + 1) * N), o + r * N4);
          m.fill(-Infinity, o + r * N4 + N, o + (r + 1) * N4);
        }
      }
      threads.runVector('softmax', R, [ptr, N4], scale, () => fns.softmax(ptr, R, N4, scale));
      if (N4 === N) out.set(m.subarray(o, o + R * N));
      else for (let r = 0; r < R; r++) out.set(m.subarray(o + r * N4, o + r * N4 + N), r * N);
    },
    norm(out, inp, gamma, beta, eps, T, C, rms) {
      if (!split(T * C) || T < 2) return alone(T < 2 ? 0 : T * C, () => plain.norm(out, inp, gamma, beta, eps, T, C, rms));
      // gamma (or ones), beta (or zeros), then the rows
      const ptr = mem.scratch((2 + T) * C * 4);
      const m = mem.view();
      const o = ptr >> 2;
      if (gamma) m.set(gamma.subarray(0, C), o);
      else m.fill(1, o, o + C);
      if (beta) m.set(beta.subarray(0, C), o + C);
      else m.fill(0, o + C, o + 2 * C);
      m.set(inp.subarray(0, T * C), o + 2 * C);
      const rows = ptr + 2 * C * 4;
      threads.runVector('norm_rows', T, [rows, C, ptr, ptr + C * 4, rms ? 1 : 0], eps, () => fns.norm_rows(rows, T, C, ptr, ptr + C * 4, eps, rms ? 1 : 0));
      out.set(m.subarray(o + 2 * C, o + (2 + T) * C));
    },
    sigmoidAct(out, xs, up, n, kind) {
      if (!split(n)) return alone(n, () => plain.sigmoidAct(out, xs, up, n, kind));
      const k = kind === 'gelu_tanh' ? 1 : 0;
      elementwise(out, xs, up, n, (ptr, upPtr, n4) => threads.runVector('sigmoid_act', Math.ceil(n4 / ACT_UNIT), [ptr, upPtr, ptr, n4, k], 0, () => fns.sigmoid_act(ptr, upPtr, ptr, n4, k)));
    },
  };
}
