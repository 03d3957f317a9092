// How many parameters a model has, by part: what the reader counts, the generator plans and the
// panel's summary shows (src/protocol/stages.ts carries it).

/** How many parameters a model has, by part (the FFN's share of a GPT-style block is about two thirds). */
export interface ParamCounts {
  readonly attention: number;
  readonly ffn: number;
  /** Norm gains and biases. */
  readonly norm: number;
  /** The prediction head's matrix; 0 without a head (or tied to the embedding). */
  readonly head: number;
  readonly total: number;
}
