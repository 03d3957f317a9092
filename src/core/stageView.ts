// What the panel, the hovers and the command line know of a stage: the plan (plan.ts) describes
// each; src/protocol/stages.ts carries these types across the wire as they are.

import type { StageShow } from './stageShow';

/** What a stage's columns (its last axis) are. */
export type AxisKind = 'token' | 'dim' | 'neuron' | 'head-dim' | 'key' | 'vocab';

/** Where a stage belongs in the panel. */
export type StageGroup = 'input' | 'attention' | 'ffn' | 'layer' | 'output' | 'head' | 'lens';

/** What the panel, the hovers and the command line know of a stage (src/core/plan.ts describes each). */
export interface StageView {
  readonly id: string;
  readonly shape: readonly number[];
  /** The id without `layers.i.` (`attn.q`, `ffn.up`, `out`, `head.logits`). */
  readonly kind: string;
  /** -1 outside the layers. */
  readonly layer: number;
  readonly group: StageGroup;
  readonly title: string;
  readonly meaning: string;
  readonly cols: AxisKind;
  /** [heads, seq, x]: drawn one head at a time. */
  readonly perHead: boolean;
  /** Scores and weights of causal attention: the masked cells are drawn as masked. */
  readonly masked: boolean;
  /**
   * The numbers in the file a cell is most directly made of: the unit (output row) of the first of
   * `params` the model has, numbered by the cell's last index (plus its head × head size for a
   * per-head stage), else the input cell of the cell's token.
   */
  readonly source: { readonly params: readonly string[]; readonly perHead: boolean } | null;
  /** The stages and params it reads. */
  readonly inputs: readonly string[];
  readonly params: readonly string[];
  /** What the panel does with it beyond its heatmap (the plan says; the panel reads no stage name). */
  readonly show: StageShow;
}

/**
 * Which dims of each stage's shape are the token count T, a bitmask per stage (bit d: shape[d] is
 * T), read off the plan at two Ts (`a` at Ta, `b` at Tb ≠ Ta): null when they differ in anything
 * else (the plan does not follow T by its shapes alone). With it the plan at any T is the plan at
 * one T with those dims set (`stagesAtT`): a prompt typed changes T, not the plan sent.
 */
export function tokenDims(a: readonly StageView[], Ta: number, b: readonly StageView[], Tb: number): number[] | null {
  if (a.length !== b.length || Ta === Tb) return null;
  const dims: number[] = [];
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i].shape, b[i].shape];
    if (x.length !== y.length || x.length > 30) return null;
    let mask = 0;
    for (let d = 0; d < x.length; d++) {
      if (x[d] === y[d]) continue;
      if (x[d] !== Ta || y[d] !== Tb) return null;
      mask |= 1 << d;
    }
    if (JSON.stringify({ ...a[i], shape: [] }) !== JSON.stringify({ ...b[i], shape: [] })) return null;
    dims.push(mask);
  }
  return dims;
}

/** `views` with the dims `dims` marks (see tokenDims) set to T: the plan at T (`views` itself when it is at T). */
export function stagesAtT(views: readonly StageView[], dims: readonly number[], T: number): readonly StageView[] {
  const atT = (v: StageView, i: number): boolean => v.shape.every((n, d) => !((dims[i] ?? 0) & (1 << d)) || n === T);
  if (views.every(atT)) return views;
  return views.map((v, i) => (atT(v, i) ? v : { ...v, shape: v.shape.map((n, d) => ((dims[i] ?? 0) & (1 << d) ? T : n)) }));
}
