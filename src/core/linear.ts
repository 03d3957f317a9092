// A linear layer: y = x·Wᵀ + b (layout out_in, as torch.nn.Linear) or y = x·W + b (in_out, as
// GPT-2's Conv1D). A missing weight is the identity (the bare attention of the blog posts has no
// matrices); a missing bias is zeros.
//
// As a stage it keeps its product x·W' before the bias, so that after an edit:
//   - of rows of an out_in W (output units: neurons of W1): only those columns are multiplied
//     again (matmulColumns is bit-identical to the full matmul);
//   - of the bias only: the bias is added again to the kept product, nothing is multiplied.
// Anything else (the input changed, an in_out row, which feeds every output) multiplies it all.
// Such a run keeps the product only where there is no bias (it is the stage itself); with a bias
// the first edit after it multiplies the product again, whole (linearStage says why).

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
 * changed. `key` names the kept product (a stage with several products keeps each apart); `own`:
 * y is the stage's output (else the caller's to split or cap: no room for rows appended).
 */
export function linearStage(ctx: StageContext, a: LinearArgs, key = 'pre', own = true): { y: Float32Array; changed: Cols } {
  const { T } = ctx;
  const W = ctx.param(a.W);
  const x = ctx.input(a.x);
  const wChanged = ctx.paramChanged(a.W);
  const partial = W !== null && rowsAreOutputs(W) && wChanged !== 'all';
  const b = ctx.param(a.b)?.data ?? null;
  const product = (out: Float32Array, biased?: { b: Float32Array; out: Float32Array }): void => {
    if (W !== null) ctx.kernel.matmul(out, x, T, ctx.packed(a.W, a.C, a.OC), biased);
    else {
      out.set(x.subarray(0, T * a.C));
      if (biased) biasAdd(biased.out, biased.b, T, a.OC);
    }
  };
  if (ctx.full || ctx.changed(a.x) !== null || (wChanged !== null && !partial)) {
    // (the stage's own numbers, with room for a token appended: rows())
    const y = own ? ctx.rows(a.OC) : new Float32Array(T * a.OC);
    if (b === null) {
      product(y);
      ctx.keep(key, y); // (no bias, as every Llama linear and GPT-2's head: the product is the stage itself)
    } else {
      product(y, { b, out: y }); // (the sum alone: the product is made again by the first edit that needs it, below)
      ctx.keep(key, null);
    }
    return { y, changed: 'all' };
  }
  // An edit of W's output rows or of the bias alone: from the product before the bias. A run that
  // multiplied everything with a bias kept only its sum (its product was a tenth of a GPT-2
  // forward's fresh memory, written on one thread): then the whole product again, whose columns
  // not edited are those of before, bit for bit.
  let pre = ctx.kept(key);
  let changed: Cols;
  if (pre === null) {
    pre = new Float32Array(T * a.OC);
    product(pre);
    changed = wChanged;
  } else if (wChanged !== null) {
    pre = pre.slice();
    ctx.kernel.matmulColumns(pre, x, T, ctx.packed(a.W, a.C, a.OC), [...(wChanged as ReadonlySet<number>)]);
    changed = wChanged;
  } else changed = null;
  ctx.keep(key, pre);
  changed = unionCols(changed, ctx.paramChanged(a.b));
  // (neither is written again, since an edit makes a new product)
  return { y: b === null ? pre : addBias(pre, b, T, a.OC), changed };
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
