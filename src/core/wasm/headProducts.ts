// Attention's products, one per head: scores_h = q_h · k_gᵀ and context_h = weights_h · v_g (g the
// key/value head h reads), every head in one call whose units are heads, so that the kernel's
// threads share them (matmulThreads.ts): at T = 32 each is a few µs, far below what one product is
// shared for, and twelve a layer ran on one thread (with a pack, two allocations and two copies
// each). Head h's product is what matmulOnce gives it (wasmWeights.ts's pack of an array from
// elsewhere, then mm): B_g packed into panels by pack_kn / pack_nk, the last partial panel in JS,
// then mm over every panel; so the bits are the loop's whatever the thread count.

import { PANEL_UNITS as PANEL } from '../params';
import type { KernelMemory } from './kernelMemory';
import { alignUp } from './kernelMemory';
import { packLastPanel } from './matmulPacking';

type ProductFn = (a: number, b: number, out: number, M: number, K: number, NP: number, p0: number, p1: number, s0: number, s1: number) => void;
type PackFn = (src: number, dst: number, K: number, N: number) => void;

/** What a thread computes heads with: the matmul module's mm and packs, and a view of the memory. */
export interface HeadFns {
  readonly mm: ProductFn;
  readonly packKn: PackFn;
  readonly packNk: PackFn;
  /** The memory as floats (current after a grow). */
  view(): Float32Array;
}

/** Where a call's operands lie (byte offsets in the kernel's memory) and their shape. */
export interface HeadJob {
  /** NH × (M,K), one after another. */
  readonly a: number;
  /** KVH × (K,N) ('kn') or (N,K) ('nk'). */
  readonly b: number;
  /** NH × (M, NP·16): each head's rows padded to whole panels. */
  readonly out: number;
  /** NH × NP panels of K×16: each head's B packed (every thread packs its own heads). */
  readonly pack: number;
  readonly M: number;
  readonly K: number;
  readonly N: number;
  /** Heads per key/value head (NH / KVH). */
  readonly group: number;
  readonly nk: boolean;
}

/** A job as the 8 argument words of matmulThreads.ts's control block, and back. */
export function headJobWords(j: HeadJob): number[] {
  return [j.a, j.b, j.out, j.pack, j.M, j.K, j.N, j.group * 2 + (j.nk ? 1 : 0)];
}

export function headJobOf(w: Int32Array, at: number): HeadJob {
  return { a: w[at], b: w[at + 1], out: w[at + 2], pack: w[at + 3], M: w[at + 4], K: w[at + 5], N: w[at + 6], group: w[at + 7] >> 1, nk: (w[at + 7] & 1) === 1 };
}

/** Heads h0 … h1−1 of `job`: each packed into its own panels, then multiplied. */
export function headProducts(fns: HeadFns, job: HeadJob, h0: number, h1: number): void {
  const { M, K, N } = job;
  const NP = Math.ceil(N / PANEL);
  for (let h = h0; h < h1; h++) {
    const b = job.b + Math.floor(h / job.group) * K * N * 4;
    const panels = job.pack + h * NP * K * PANEL * 4;
    (job.nk ? fns.packNk : fns.packKn)(b, panels, K, N);
    if (N % PANEL !== 0) packLastPanel(fns.view(), b >>> 2, panels >>> 2, K, N, job.nk ? 'nk' : 'kn');
    fns.mm(job.a + h * M * K * 4, panels, job.out + h * M * NP * PANEL * 4, M, K, NP, 0, NP, K * PANEL * 4, PANEL * 4);
  }
}

/** Runs a job's NH heads: on the kernel's threads (`share`), or on the caller alone. */
export type RunHeads = (job: HeadJob, NH: number) => void;

/** Scratch a call takes at most: longer inputs go a few key/value heads at a time (as multiKernel.ts's products go in blocks of rows). */
const SCRATCH_BYTES = 64 << 20;

/**
 * out (NH, M, N) = a_h (M,K) · B_g for each head h, g = floor(h / (NH / KVH)); b (KVH, K, N) for
 * 'kn', (KVH, N, K) for 'nk'. The operands copied into the kernel's scratch, whole key/value
 * groups at a time, each group's heads run by `run`, the results copied out.
 */
export function matmulHeadsIn(mem: KernelMemory, run: RunHeads, out: Float32Array, a: Float32Array, b: Float32Array, NH: number, KVH: number, M: number, K: number, N: number, bLayout: 'kn' | 'nk'): void {
  if (!(KVH >= 1 && NH % KVH === 0)) throw new RangeError(`matmulHeads: ${NH} heads over ${KVH} key/value heads`);
  if (a.length < NH * M * K || b.length < KVH * K * N || out.length < NH * M * N) {
    throw new RangeError(`matmulHeads: a, b, out of ${a.length}, ${b.length}, ${out.length} values, need ${NH * M * K}, ${KVH * K * N}, ${NH * M * N}`);
  }
  if (NH === 0 || M === 0 || N === 0) return;
  if (K === 0) return void out.fill(0, 0, NH * M * N); // (empty sums: mm walks panels by address and K = 0 has none)
  const group = NH / KVH;
  const NP = Math.ceil(N / PANEL);
  const headBytes = (M * K + M * NP * PANEL + NP * K * PANEL) * 4;
  const groupBytes = group * headBytes + K * N * 4;
  const perCall = Math.max(1, Math.floor(SCRATCH_BYTES / groupBytes)); // key/value heads a call
  for (let g0 = 0; g0 < KVH; g0 += perCall) {
    const g1 = Math.min(KVH, g0 + perCall);
    const heads = (g1 - g0) * group;
    const aBytes = alignUp(heads * M * K * 4);
    const bBytes = alignUp((g1 - g0) * K * N * 4);
    const outBytes = alignUp(heads * M * NP * PANEL * 4);
    const ptr = mem.scratch(aBytes + bBytes + outBytes + heads * NP * K * PANEL * 4);
    const job: HeadJob = { a: ptr, b: ptr + aBytes, out: ptr + aBytes + bBytes, pack: ptr + aBytes + bBytes + outBytes, M, K, N, group, nk: bLayout === 'nk' };
    let f32 = mem.view();
    f32.set(a.subarray(g0 * group * M * K, g1 * group * M * K), job.a >>> 2);
    f32.set(b.subarray(g0 * K * N, g1 * K * N), job.b >>> 2);
    run(job, heads);
    f32 = mem.view();
    const o = job.out >>> 2;
    const at = g0 * group * M * N;
    const stride = NP * PANEL;
    if (stride === N) out.set(f32.subarray(o, o + heads * M * N), at);
    else for (let r = 0; r < heads * M; r++) out.set(f32.subarray(o + r * stride, o + r * stride + N), at + r * N);
  }
}
