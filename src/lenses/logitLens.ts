// The logit lens grid (nostalgebraist 2020): for every layer and token, what the model would
// predict if it stopped after that layer: softmax of `layers.i.lens.logits` (the head read off the
// final norm of `layers.i.out`), its top words, and the probability and rank of a chosen target.
// The last layer's row is the model's own prediction (its lens logits equal head.logits).

import { STAGE, stageId } from '../core/ids';
import { LensError, type Run } from './cache';

export interface LensCell {
  /** The top words, most probable first: [id, probability]. */
  readonly top: readonly (readonly [number, number])[];
  /** The target word's probability and rank (0 = top), when a target is given. */
  readonly target?: { readonly p: number; readonly rank: number };
}

export interface LensGrid {
  readonly L: number;
  readonly T: number;
  /** [layer][token] */
  readonly cells: LensCell[][];
}

// top k of softmax(row) (N): [index, p] by p descending (ties: the smaller index), and p/rank of `target`
export function softmaxTop(row: ArrayLike<number>, k: number, target: number | null): LensCell {
  const N = row.length;
  let max = -Infinity;
  for (let j = 0; j < N; j++) if (row[j] > max) max = row[j];
  let sum = 0;
  for (let j = 0; j < N; j++) sum += Math.exp(row[j] - max);
  // a running top k (k is small): insertion into a sorted list
  const top: [number, number][] = [];
  for (let j = 0; j < N; j++) {
    const v = row[j];
    if (top.length === k && v <= top[k - 1][1]) continue;
    let i = top.length;
    while (i > 0 && top[i - 1][1] < v) i--;
    top.splice(i, 0, [j, v]);
    if (top.length > k) top.pop();
  }
  const p = (v: number): number => Math.exp(v - max) / sum;
  const cell: LensCell = { top: top.map(([j, v]) => [j, p(v)] as const) };
  if (target === null) return cell;
  const tv = row[target];
  let rank = 0;
  for (let j = 0; j < N; j++) if (row[j] > tv || (row[j] === tv && j < target)) rank++;
  return { ...cell, target: { p: p(tv), rank } };
}

/** The grid, from a run with the lens stages (`"lens": true`, or the worker asked for them). */
export function logitLensGrid(run: Run, k = 5, target: number | null = null): LensGrid {
  const { spec } = run.model;
  if (!spec.head) throw new LensError('the logit lens needs a prediction head (this model has no "head")');
  const { T } = spec;
  const V = spec.head.V;
  const L = spec.layers.length;
  if (target !== null && (!Number.isInteger(target) || target < 0 || target >= V)) throw new LensError(`word ${target} is outside the vocabulary 0…${V - 1}`);
  const cells: LensCell[][] = [];
  for (let l = 0; l < L; l++) {
    const logits = run.stage(stageId(l, STAGE.lens));
    const row: LensCell[] = [];
    for (let t = 0; t < T; t++) row.push(softmaxTop(logits.subarray(t * V, (t + 1) * V), k, target));
    cells.push(row);
  }
  return { L, T, cells };
}
