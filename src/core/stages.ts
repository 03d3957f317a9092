// A computed stage: its id (ids.ts), shape and numbers.

import type { Tensor } from './tensor';

export interface Stage extends Tensor {
  readonly id: string;
  /** Set by the incremental engine: the same numbers as in its previous run (not recomputed). */
  readonly kept?: true;
  /**
   * Set by the incremental engine when only these columns (last axis) differ from `base`, the
   * numbers of its previous run: the panel is sent those columns alone.
   */
  readonly cols?: ReadonlySet<number>;
  readonly base?: Float32Array;
}

export type StageSink = (stage: Stage) => void;
