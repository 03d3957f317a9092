// Stage ids, as the model file spec names them. Layer i's ids begin `layers.i.`.

import type { Tensor } from './tensor';

export interface Stage extends Tensor {
  readonly id: string;
  /** Set by the incremental engine: the same numbers as in its previous run (not recomputed). */
  readonly kept?: true;
}

export type StageSink = (stage: Stage) => void;

/** The part of an id after `layers.i.` (`attn.q`, `ffn.up`, …), or the id itself. */
export function stageKind(id: string): string {
  const m = /^layers\.\d+\.(.*)$/.exec(id);
  return m ? m[1] : id;
}

/** The layer index of a `layers.i.…` id, or -1. */
export function stageLayer(id: string): number {
  const m = /^layers\.(\d+)\./.exec(id);
  return m ? Number(m[1]) : -1;
}
