// The parallel residual (gpt_neox use_parallel_residual, GPT-J): both sublayers read the same
// stream, and the layer's output is their sum with it, added as GPTNeoXLayer adds them:
// `mlp_output + attn_output + hidden_states`, i.e. (mlp + attn) + x, rounded to float32 at each step.
//   out (T,C) = (mlp (T,C) + attn (T,C)) + x (T,C)
import type { StageOp } from './graph';
import { unionCols } from './params';

// out (N) = (mlp + attn) + x, over [from, to)
export function parallelResidualForward(out: Float32Array, x: Float32Array, attn: Float32Array, mlp: Float32Array, from = 0, to = out.length): void {
  for (let i = from; i < to; i++) out[i] = Math.fround(mlp[i] + attn[i]) + x[i];
}

export interface ParallelResidualArgs {
  /** The layer's input stream. */
  readonly x: string;
  /** The attention sublayer's output (`attn.out`). */
  readonly attn: string;
  /** The FFN's output (`ffn.down`). */
  readonly mlp: string;
  readonly C: number;
}

/** Elementwise: after an edit that changed some columns of any of the three, only those columns. */
export const parallelResidualOp: StageOp<ParallelResidualArgs> = {
  name: 'parallel-residual',
  append: 'rows',
  run(ctx, r) {
    const { T } = ctx;
    const x = ctx.input(r.x);
    const attn = ctx.input(r.attn);
    const mlp = ctx.input(r.mlp);
    const cols = ctx.full ? 'all' : unionCols(unionCols(ctx.changed(r.x), ctx.changed(r.attn)), ctx.changed(r.mlp));
    if (cols === 'all' || ctx.previous === null) {
      const out = ctx.rows(r.C);
      parallelResidualForward(out, x, attn, mlp);
      return { data: out, changed: 'all' };
    }
    const out = ctx.previous.slice();
    for (const j of cols ?? []) {
      for (let t = 0; t < T; t++) {
        const i = t * r.C + j;
        out[i] = Math.fround(mlp[i] + attn[i]) + x[i];
      }
    }
    return { data: out, changed: cols };
  },
};
