// A linear layer: y = x·Wᵀ + b (layout out_in, as torch.nn.Linear) or y = x·W + b (in_out, as
// GPT-2's Conv1D). A missing weight is the identity (the bare attention of the blog posts has no
// matrices); a missing bias is zeros.
//
// As a stage it keeps its product x·W' before the bias, so that after an edit:
//   - of rows of an out_in W (output units: neurons of W1): only those columns are multiplied
//     again (matmulColumns is bit-identical to the full matmul);
//   - of the bias only: the bias is added again to the kept product, nothing is multiplied.
// Anything else (the input changed, an in_out row, which feeds every output) multiplies it all.

import { biasAdd } from './bias';
import type { StageContext, StageOp } from './graph';
import { matmulOnce, type MatmulKernel } from './kernel';
import { rowsAreOutputs, unionCols, type Cols } from './params';
import type { Layout } from './spec';

export type { Layout } from './spec';

// out (T,OC) = inp (T,C) · W' + bias (OC); weight (OC,C) in out_in, (C,OC) in in_out, or null (OC = C)
export function linearForward(
  out: Float32Array, inp: Float32Array, weight: Float32Array | null, bias: Float32Array | null,
  T: number, C: number, OC: number, layout: Layout, kernel: MatmulKernel,
): void {
  if (weight === null) out.set(inp.subarray(0, T * C));
  else matmulOnce(kernel, out, inp, weight, T, C, OC, layout === 'out_in' ? 'nk' : 'kn');
  if (bias !== null) biasAdd(out, bias, T, OC);
}

export interface LinearArgs {
  /** The input stage (T,C). */
  readonly x: string;
  readonly W: string;
  readonly b: string;
  readonly C: number;
  readonly OC: number;
}

/**
 * y (T,OC) = x·W' + b for a stage, from its kept product where an edit allows; the columns that
 * changed. `key` names the kept product (a stage with several products keeps each apart).
 */
export function linearStage(ctx: StageContext, a: LinearArgs, key = 'pre'): { y: Float32Array; changed: Cols } {
  const { T } = ctx;
  const W = ctx.param(a.W);
  const x = ctx.input(a.x);
  const wChanged = ctx.paramChanged(a.W);
  let pre = ctx.kept(key);
  let changed: Cols;
  const partial = W !== null && rowsAreOutputs(W) && wChanged !== 'all';
  const b = ctx.param(a.b)?.data ?? null;
  let y: Float32Array | null = null;
  if (ctx.full || pre === null || ctx.changed(a.x) !== null || (wChanged !== null && !partial)) {
    // (the stage's own numbers: the product without a bias, else the sum; rows(): room for a token appended)
    pre = b === null ? ctx.rows(a.OC) : new Float32Array(T * a.OC);
    if (W === null) pre.set(x.subarray(0, T * a.C));
    else if (b !== null) ctx.kernel.matmul(pre, x, T, ctx.packed(a.W, a.C, a.OC), { b, out: (y = ctx.rows(a.OC)) }); // (the kernel adds the bias too)
    else ctx.kernel.matmul(pre, x, T, ctx.packed(a.W, a.C, a.OC));
    changed = 'all';
  } else if (wChanged !== null) {
    pre = pre.slice();
    ctx.kernel.matmulColumns(pre, x, T, ctx.packed(a.W, a.C, a.OC), [...(wChanged as ReadonlySet<number>)]);
    changed = wChanged;
  } else changed = null;
  ctx.keep(key, pre);
  changed = unionCols(changed, ctx.full ? 'all' : ctx.paramChanged(a.b));
  // (no bias, as every Llama linear and GPT-2's head: the product is the stage itself, no copy;
  // neither is written again, since an edit makes a new product)
  return { y: b === null ? pre : y ?? addBias(pre, b, T, a.OC), changed };
}

export const linearOp: StageOp<LinearArgs> = {
  name: 'linear',
  append: 'rows',
  run(ctx, a) {
    const { y, changed } = linearStage(ctx, a);
    return { data: y, changed };
  },
};

// out (T,N) = pre (T,N) + b (N): exactly what biasAdd does after the matmul
export function addBias(pre: Float32Array, b: Float32Array | null, T: number, N: number): Float32Array {
  const out = pre.slice(0, T * N);
  if (b) biasAdd(out, b, T, N);
  return out;
}
