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
