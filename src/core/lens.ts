// The logit lens: the prediction head applied to a layer's output through the final norm, as if
// the model stopped there (nostalgebraist's logit lens; TransformerLens' accumulated residual).
//   lens.logits_i = norm_f(layers.i.out) · Wᵀ + b       (T,V); the last layer's equals head.logits
//   then softcap(·, c) where the head has a final soft-cap (gemma2), as head.logits

import type { StageOp } from './graph';
import { layernormForward } from './layernorm';
import { rmsnormForward } from './rmsnorm';
import { softcapForward } from './softcap';
import type { NormKind } from './spec';

export interface LensArgs {
  readonly x: string;
  /** The final norm, or null for a model without one. */
  readonly norm: { readonly kind: NormKind; readonly gamma: string; readonly beta: string | null; readonly eps: number; readonly onePlus?: boolean } | null;
  readonly W: string;
  readonly b: string;
  readonly C: number;
  readonly V: number;
  /** The head's final soft-cap (ModelSpec.head.softcap); absent or null: none. */
  readonly softcap?: number | null;
}

export const lensOp: StageOp<LensArgs> = {
  name: 'lens',
  append: 'rows',
  run(ctx, a) {
    const { T } = ctx;
    let x = ctx.input(a.x);
    if (a.norm) {
      const n = new Float32Array(T * a.C);
      const gamma = ctx.param(a.norm.gamma)?.data ?? null;
      if (a.norm.kind === 'rmsnorm') rmsnormForward(n, x, gamma, a.norm.eps, T, a.C, a.norm.onePlus ?? false);
      else layernormForward(n, x, gamma, a.norm.beta === null ? null : ctx.param(a.norm.beta)?.data ?? null, a.norm.eps, T, a.C);
      x = n;
    }
    // (as the head computes its logits, so the last layer's lens equals them bit for bit)
    const out = ctx.rows(a.V);
    const b = ctx.param(a.b)?.data;
    ctx.kernel.matmul(out, x, T, ctx.packed(a.W, a.C, a.V), b ? { b, out } : undefined); // (out + b, written over the product)
    if (a.softcap !== undefined && a.softcap !== null) softcapForward(out, out, a.softcap);
    return { data: out, changed: 'all' };
  },
};
