// A computed stage: its id (stageId.ts), shape and numbers.

import type { Tensor } from './tensor';

export interface Stage extends Tensor {
  readonly id: string;
  /** Set by the incremental engine: the same numbers as in its previous run (not recomputed). */
  readonly kept?: true;
}

export type StageSink = (stage: Stage) => void;
