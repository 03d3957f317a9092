// The head's logits soft-capped (gemma2's final_logit_softcapping): a linear layer, then
// tanh(l / c) · c of each number (softcap.ts). Elementwise after the product, so an edit that
// changed some columns of the product changes only those of the capped logits.
//   out (T,V) = softcap(x (T,C) · W' + b, c)

import type { StageOp } from './graph';
import { linearStage, type LinearArgs } from './linear';
import { softcapForward } from './softcap';

export interface CappedLinearArgs extends LinearArgs {
  /** The cap c. */
  readonly cap: number;
}

export const cappedLinearOp: StageOp<CappedLinearArgs> = {
  name: 'capped-linear',
  append: 'rows',
  run(ctx, a) {
    const { y, changed } = linearStage(ctx, a, 'pre', false);
    // (a new array: y may be the kept product itself)
    const out = ctx.rows(a.OC);
    softcapForward(out, y, a.cap);
    return { data: out, changed };
  },
};
