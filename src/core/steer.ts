// Steering: a stage of the stream with a vector added, x[t] + alpha·v at the positions steered, the
// stage every later one reads in the site's place (planSteer.ts). The vector comes as the param
// alpha·v (float32, as a PyTorch hook's `x + alpha * v` computes it): [1, C], the same row at
// every position steered, or [n, C], row r at the r-th position listed. Positions past the input
// are left out (a prompt shortened under a steer is no error).

import type { StageOp } from './graph';
import type { SteerSpec } from './steerSpec';
import { floatData } from './params';

export type { SteerSpec };

export interface SteerArgs {
  readonly x: string;
  readonly vector: string;
  readonly positions: 'all' | readonly number[];
  readonly C: number;
}

/** The positions of T steered, each with the vector's row it takes (row r of an [n, C] vector at the r-th listed). */
export function steeredRows(positions: 'all' | readonly number[], T: number, rows: number): Array<[number, number]> {
  const list = positions === 'all' ? Array.from({ length: T }, (_, t) => t) : positions;
  const out: Array<[number, number]> = [];
  list.forEach((t, r) => {
    if (t < T) out.push([t, rows === 1 ? 0 : r]);
  });
  return out;
}

/** x (T × C) with the vector's rows added at the positions steered (a new array). */
export function steerForward(x: Float32Array, T: number, C: number, vector: Float32Array, positions: 'all' | readonly number[]): Float32Array {
  const out = x.slice(0, T * C);
  for (const [t, r] of steeredRows(positions, T, vector.length / C)) {
    for (let c = 0; c < C; c++) out[t * C + c] = x[t * C + c] + vector[r * C + c];
  }
  return out;
}

export const steerOp: StageOp<SteerArgs> = {
  name: 'steer',
  run(ctx, a) {
    const v = ctx.param(a.vector);
    if (!v) throw new Error(`no param ${a.vector}`);
    const data = steerForward(ctx.input(a.x), ctx.T, a.C, floatData(v), a.positions);
    // (column c of the output reads column c of x alone: an edit of x's columns changes those)
    const changed = ctx.full || ctx.paramChanged(a.vector) !== null ? 'all' : ctx.changed(a.x);
    return { data, changed };
  },
  // (positions are of the whole input: the whole stage again, a T × C add)
  append: (ctx, a) => steerForward(ctx.input(a.x), ctx.T, a.C, floatData(ctx.param(a.vector)!), a.positions),
};
