// The block graph: every stage a model computes, in order, each with what it reads (stages and
// params), the op that computes it, its shape, and its title and meaning as the panel, the hovers
// and the command line show them. The one place that knows the order of the stages; the
// reference forward (forward.ts) walks it, the engine (engine.ts) re-walks it after an edit
// recomputing only what read something that changed, the panel lays itself out from it.
//
// Adding an op: one file in src/core with its plain forward, its StageOp and its test beside it,
// and its place in planModel below.

import type { MatmulKernel, Packed } from './kernel';
import type { Cols, Param } from './params';
import type { StageView } from './stageView';

export type { AxisKind, StageGroup, StageView } from './stageView';

/** A stage as the engine computes it: its view, its op and the op's arguments. */
export interface StageDef<A = unknown> extends StageView {
  readonly op: StageOp<A>;
  readonly args: A;
}

/**
 * What an op is given to compute its stage. On a first run (or in the reference forward) `full`
 * is true and every input counts as changed; after an edit, `changed` says what changed in each
 * input stage and param, and an op that can may recompute only that.
 */
export interface StageContext {
  readonly T: number;
  readonly kernel: MatmulKernel;
  readonly full: boolean;
  input(id: string): Float32Array;
  changed(id: string): Cols;
  param(id: string): Param | null;
  paramChanged(id: string): Cols;
  /** This stage's output of the last run (same shape), or null. */
  readonly previous: Float32Array | null;
  /** Numbers the stage keeps for itself between runs (a linear layer's product before its bias). */
  kept(name: string): Float32Array | null;
  /** null: none kept (what an earlier run kept is stale). */
  keep(name: string, data: Float32Array | null): void;
  /** Matrix `param` packed for the kernel as the B of out = x·B (K inputs, N outputs), in step with its edits. */
  packed(param: string, K: number, N: number): Packed;
  /**
   * A new [T, width] output of a row-by-row stage: in the engine's runs with room past it, so that
   * a token appended next writes its row there rather than copying these (rowBuffer.ts).
   */
  rows(width: number): Float32Array;
}

export interface StageResult {
  readonly data: Float32Array;
  /** What changed against the previous output ('all' on a first run). */
  readonly changed: Cols;
}

export interface StageOp<A> {
  readonly name: string;
  run(ctx: StageContext, args: A): StageResult;
  /**
   * Tokens appended to a causal model's input (every input stage's first T0 rows and every param
   * as in the last run): how to compute the stage without its first T0 rows again. 'rows': the op
   * works row by row on [T, …] inputs, so the engine runs it on the new rows alone; a function: the
   * whole output, its first T0 rows taken from `previous`. Absent: the stage is computed in full.
   */
  readonly append?: 'rows' | ((ctx: StageContext, args: A, T0: number, previous: Float32Array) => Float32Array);
}

/** The op that hands on another stage's numbers as they are (`layers.i.out`, `output`). */
export const aliasOp: StageOp<{ readonly of: string }> = {
  name: 'alias',
  run: (ctx, a) => ({ data: ctx.input(a.of), changed: ctx.full ? 'all' : ctx.changed(a.of) }),
  append: (ctx, a) => ctx.input(a.of),
};
