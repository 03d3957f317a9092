// GFLOPS of the matmul kernels on FFN shapes M×K×N = seq × d × 4d, weights packed once outside
// the timed loop. Kernels are sampled round-robin within a shape so that their ratios hold on a
// shared, noisy machine (trust ratios taken in one process, not absolute times).
// Peers (tfjs, onnxruntime) plug in as extra BenchKernels.

import { performance } from 'node:perf_hooks';
import { tsKernel, type MatmulKernel } from '../src/core/kernel';
import { matmulNaive, type BLayout } from '../src/core/matmulNaive';
import { createWasmKernel } from '../src/core/wasm/wasmKernel';

export interface BenchShape {
  readonly M: number;
  readonly K: number;
  readonly N: number;
}

/** seq × d × 4d: the FFN's first matmul at a few model sizes, plus a toy one (per-call overhead). */
export const FFN_SHAPES: readonly BenchShape[] = [
  { M: 8, K: 512, N: 2048 },
  { M: 32, K: 768, N: 3072 },
  { M: 32, K: 512, N: 2048 },
  { M: 128, K: 768, N: 3072 },
  { M: 8, K: 64, N: 256 },
  { M: 8, K: 16, N: 8 },
];

/** A kernel under test: prepare() gets the weights once, run() is what is timed. */
export interface BenchKernel {
  readonly name: string;
  prepare(b: Float32Array, K: number, N: number, bLayout: BLayout): PreparedKernel;
}

export interface PreparedKernel {
  // out (M,N) = a (M,K) · B
  run(out: Float32Array, a: Float32Array, M: number): void;
  dispose(): void;
}

export interface Row {
  kernel: string;
  /** "M×K×N" */
  shape: string;
  M: number;
  K: number;
  N: number;
  gflops: { median: number; min: number; max: number };
  /** Median time of one call, µs. */
  usPerCall: number;
  /** Timed samples, and calls per sample (small shapes batch calls to beat timer resolution). */
  samples: number;
  /** ms per call of each sample, in round order (round s of every kernel ran back to back: pair them by index). */
  times: number[];
  callsPerSample: number;
  /** Time of prepare() (the pack, weights already in memory), ms, median of 3. */
  prepareMs: number;
  /** max |out − naive| / max |naive| over the shape's output; null when not checked. */
  relErr: number | null;
}

export interface BenchOptions {
  shapes?: readonly BenchShape[];
  /** Default: naive, ts, wasm-simd (when this runtime has simd128). */
  kernels?: readonly BenchKernel[];
  bLayout?: BLayout;
  /** Target samples per kernel and shape (default 15). */
  samples?: number;
  /** Calls are batched until one sample lasts at least this long (default 25 ms). */
  minSampleMs?: number;
  /** Caps samples of slow kernels (the naive loop on big shapes) to about this much time (default 4000 ms). */
  maxKernelMsPerShape?: number;
  /** Compare each kernel's output with matmulNaive (default true). */
  check?: boolean;
  /** Called with each row as soon as it is measured. */
  onRow?: (row: Row) => void;
}

export function naiveBenchKernel(): BenchKernel {
  return {
    name: 'naive',
    prepare: (b, K, N, bLayout) => ({
      run: (out, a, M) => matmulNaive(out, a, b, M, K, N, bLayout),
      dispose: () => undefined,
    }),
  };
}

/** Any MatmulKernel: pack once, then time matmul(). */
export function matmulBenchKernel(kernel: MatmulKernel): BenchKernel {
  return {
    name: kernel.name,
    prepare: (b, K, N, bLayout) => {
      const packed = kernel.pack(b, K, N, bLayout);
      return { run: (out, a, M) => kernel.matmul(out, a, M, packed), dispose: () => kernel.release(packed) };
    },
  };
}

export function defaultBenchKernels(): BenchKernel[] {
  const wasm = createWasmKernel();
  return [naiveBenchKernel(), matmulBenchKernel(tsKernel), ...(wasm ? [matmulBenchKernel(wasm)] : [])];
}

export async function benchMatmulKernels(opts: BenchOptions = {}): Promise<Row[]> {
  const shapes = opts.shapes ?? FFN_SHAPES;
  const kernels = opts.kernels ?? defaultBenchKernels();
  const bLayout = opts.bLayout ?? 'nk';
  const samples = opts.samples ?? 15;
  const minSampleMs = opts.minSampleMs ?? 25;
  const maxKernelMs = opts.maxKernelMsPerShape ?? 4000;
  const check = opts.check ?? true;
  const rows: Row[] = [];

  for (const { M, K, N } of shapes) {
    const rand = mulberry32(M * 1_000_003 + K * 1009 + N);
    const a = Float32Array.from({ length: M * K }, () => rand() * 2 - 1);
    const b = Float32Array.from({ length: K * N }, () => (rand() * 2 - 1) / Math.sqrt(K));
    const ref = check ? new Float32Array(M * N) : null;
    if (ref) matmulNaive(ref, a, b, M, K, N, bLayout);
    const flops = 2 * M * K * N;

    const cases = kernels.map((kernel) => {
      // prepare three times (the first pays JIT and memory growth), keep the last
      const prepTimes: number[] = [];
      let prepared: PreparedKernel | null = null;
      for (let i = 0; i < 3; i++) {
        prepared?.dispose();
        const t0 = performance.now();
        prepared = kernel.prepare(b, K, N, bLayout);
        prepTimes.push(performance.now() - t0);
      }
      if (prepared === null) throw new Error('unreachable');
      const prepareMs = median(prepTimes.sort((x, y) => x - y));
      const out = new Float32Array(M * N);
      prepared.run(out, a, M); // warm-up (and the JIT's first tier)
      const relErr = ref ? relativeError(out, ref) : null;
      const { calls, ms } = calibrate(() => prepared.run(out, a, M), minSampleMs);
      const n = Math.max(3, Math.min(samples, Math.floor(maxKernelMs / Math.max(ms, 1e-3))));
      return { kernel, prepared, prepareMs, out, relErr, calls, n, times: [] as number[] };
    });

    // round-robin: one sample of each kernel in turn
    for (let s = 0; s < samples; s++) {
      for (const c of cases) {
        if (c.times.length >= c.n) continue;
        const t0 = performance.now();
        for (let r = 0; r < c.calls; r++) c.prepared.run(c.out, a, M);
        c.times.push((performance.now() - t0) / c.calls);
      }
      await new Promise<void>((resolve) => setImmediate(resolve)); // let the host breathe
    }

    for (const c of cases) {
      c.prepared.dispose();
      const sorted = [...c.times].sort((x, y) => x - y);
      const medianMs = median(sorted);
      const row: Row = {
        kernel: c.kernel.name, shape: `${M}×${K}×${N}`, M, K, N,
        gflops: { median: flops / medianMs / 1e6, min: flops / sorted[sorted.length - 1] / 1e6, max: flops / sorted[0] / 1e6 },
        usPerCall: medianMs * 1000, samples: sorted.length, times: c.times, callsPerSample: c.calls,
        prepareMs: c.prepareMs, relErr: c.relErr,
      };
      rows.push(row);
      opts.onRow?.(row);
    }
  }
  return rows;
}

/** Rows as a fixed-width text table (one line per kernel and shape). */
export function formatRows(rows: readonly Row[]): string {
  const head = 'shape            kernel      GFLOPS median (min-max)     µs/call   pack ms   rel err';
  const lines = rows.map((r) => [
    r.shape.padEnd(16), r.kernel.padEnd(11),
    `${r.gflops.median.toFixed(2).padStart(7)} (${r.gflops.min.toFixed(2)}-${r.gflops.max.toFixed(2)})`.padEnd(27),
    r.usPerCall.toFixed(1).padStart(9), r.prepareMs.toFixed(2).padStart(9),
    (r.relErr === null ? '-' : r.relErr.toExponential(1)).padStart(9),
  ].join(' '));
  return [head, ...lines].join('\n');
}

// Calls per sample so that one sample lasts about minMs (1 when a single call is longer).
function calibrate(run: () => void, minMs: number): { calls: number; ms: number } {
  for (let calls = 1; ; ) {
    const t0 = performance.now();
    for (let r = 0; r < calls; r++) run();
    const ms = performance.now() - t0;
    if (ms >= minMs || calls >= 1e7) return { calls, ms };
    calls = Math.ceil(calls * Math.min(10, Math.max(2, (1.2 * minMs) / Math.max(ms, 1e-3))));
  }
}

function median(sorted: readonly number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}

function relativeError(got: Float32Array, want: Float32Array): number {
  let err = 0, scale = 0;
  for (let i = 0; i < want.length; i++) {
    err = Math.max(err, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return scale > 0 ? err / scale : err;
}

// Deterministic inputs, so runs compare like with like.
function mulberry32(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}
