// The attention context: each head's weights applied to its values, heads side by side, each
// head's slice scaled by its unit scale (0 for a head switched off by `ablate`, the factor of
// `scale`; 1 without either).
//   context[:, h·HS … (h+1)·HS-1] = (weights_h · V_g) · u_h       (T, NH·HS), g = kvHead(h)
// After an edit of the unit scales alone, only those heads' slices are scaled again. Tokens
// appended to a causal input: their rows alone (appendContext).

import type { StageOp } from './graph';
import { headRows, mergeHeads } from './heads';
import { matmulHeads, type MatmulKernel } from './kernel';
import type { Cols } from './params';

// ctx (T,NH·HS) = [weights_h (T,T) · v_g (T,HS) for each head h], before the unit scales
export function attentionContextForward(ctx: Float32Array, weights: Float32Array, v: Float32Array, NH: number, KVH: number, T: number, HS: number, kernel: MatmulKernel): void {
  const perHead = new Float32Array(NH * T * HS);
  matmulHeads(kernel, perHead, weights, v, NH, KVH, T, T, HS, 'kn'); // (every head at once: shared over the kernel's threads)
  mergeHeads(ctx, perHead, T, NH, HS);
}

// out (T,NH·HS) = pre with head h's columns times units[h], for the heads in `heads` (all: null)
export function scaleHeads(out: Float32Array, pre: Float32Array, units: Float32Array, T: number, NH: number, HS: number, heads: Iterable<number> | null): void {
  const W = NH * HS;
  for (const h of heads ?? Array.from({ length: NH }, (_, i) => i)) {
    const u = units[h];
    for (let t = 0; t < T; t++) for (let d = h * HS; d < (h + 1) * HS; d++) out[t * W + d] = pre[t * W + d] * u;
  }
}

/**
 * Queries T0 … T−1 appended to a causal input (see StageOp.append): their rows, weights (NH,T,T)
 * rows T0… · v, scaled; the rows before are `previous`'s. A row before's full sum goes on past its
 * T0 terms with weight 0 for each new key: acc + 0·v is acc exactly (the sums start at +0, so
 * never −0), the bits of the shorter sum. A new value that is not finite (0·∞ is NaN) has every
 * row computed.
 */
export function appendContext(weights: Float32Array, v: Float32Array, units: Float32Array | null, a: ContextArgs, T: number, T0: number, previous: Float32Array, kernel: MatmulKernel): Float32Array {
  const { NH, KVH, HS } = a;
  const n = T - T0;
  const W = NH * HS;
  if (!headRows(v, KVH, T, HS, T0, T).every(Number.isFinite)) {
    const all = new Float32Array(T * W);
    attentionContextForward(all, weights, v, NH, KVH, T, HS, kernel);
    if (units) scaleHeads(all, all, units, T, NH, HS, null);
    return all;
  }
  const perHead = new Float32Array(NH * n * HS);
  matmulHeads(kernel, perHead, headRows(weights, NH, T, T, T0, T), v, NH, KVH, n, T, HS, 'kn');
  const out = new Float32Array(T * W);
  out.set(previous.subarray(0, T0 * W));
  const fresh = out.subarray(T0 * W);
  mergeHeads(fresh, perHead, n, NH, HS);
  if (units) scaleHeads(fresh, fresh, units, n, NH, HS, null);
  return out;
}

export interface ContextArgs {
  readonly weights: string;
  readonly v: string;
  readonly units: string;
  readonly NH: number;
  readonly KVH: number;
  readonly HS: number;
}

export const attentionContextOp: StageOp<ContextArgs> = {
  name: 'attention-context',
  run(ctx, a) {
    const { T } = ctx;
    const units = ctx.param(a.units)?.data ?? null;
    let pre = ctx.kept('pre');
    let changed: Cols;
    if (ctx.full || pre === null || ctx.changed(a.weights) !== null || ctx.changed(a.v) !== null) {
      pre = new Float32Array(T * a.NH * a.HS);
      attentionContextForward(pre, ctx.input(a.weights), ctx.input(a.v), a.NH, a.KVH, T, a.HS, ctx.kernel);
      ctx.keep('pre', pre);
      if (!units) return { data: pre, changed: 'all' };
      const out = new Float32Array(pre.length);
      scaleHeads(out, pre, units, T, a.NH, a.HS, null);
      return { data: out, changed: 'all' };
    }
    // only the unit scales changed: scale those heads again
    const heads = ctx.paramChanged(a.units);
    if (!units || heads === 'all' || ctx.previous === null) {
      const out = new Float32Array(pre.length);
      if (units) scaleHeads(out, pre, units, T, a.NH, a.HS, null);
      else out.set(pre);
      changed = 'all';
      return { data: out, changed };
    }
    const out = ctx.previous.slice();
    scaleHeads(out, pre, units, T, a.NH, a.HS, heads ?? []);
    const cols = new Set<number>();
    for (const h of heads ?? []) for (let d = h * a.HS; d < (h + 1) * a.HS; d++) cols.add(d);
    return { data: out, changed: cols };
  },
  append: (ctx, a, T0, previous) => appendContext(ctx.input(a.weights), ctx.input(a.v), ctx.param(a.units)?.data ?? null, a, ctx.T, T0, previous, ctx.kernel),
};
