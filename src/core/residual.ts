// The residual connection: the stream plus what a sublayer wrote.
import type { StageOp } from './graph';
import { unionCols } from './params';

// out (N) = a (N) + b (N)
export function residualForward(out: Float32Array, a: Float32Array, b: Float32Array, n: number): void {
  for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
}

export interface ResidualArgs { readonly a: string; readonly b: string; readonly C: number }

/** Elementwise: after an edit that changed some columns of either side, only those columns. */
export const residualOp: StageOp<ResidualArgs> = {
  name: 'residual',
  append: 'rows',
  run(ctx, r) {
    const { T } = ctx;
    const a = ctx.input(r.a);
    const b = ctx.input(r.b);
    const cols = ctx.full ? 'all' : unionCols(ctx.changed(r.a), ctx.changed(r.b));
    if (cols === 'all' || ctx.previous === null) {
      const out = ctx.rows(r.C);
      residualForward(out, a, b, T * r.C);
      return { data: out, changed: 'all' };
    }
    const out = ctx.previous.slice();
    for (const j of cols ?? []) for (let t = 0; t < T; t++) out[t * r.C + j] = a[t * r.C + j] + b[t * r.C + j];
    return { data: out, changed: cols };
  },
};
