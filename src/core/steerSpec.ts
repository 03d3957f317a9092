// What a steer computes, as the model's spec holds it (spec.ts; the op: steer.ts). Apart from the
// op so that the spec imports nothing of the graph.

/** What a steer computes, as the spec holds it (alpha·v is the param: an edit of it replans nothing). */
export interface SteerSpec {
  /** The stage steered: a stage an SAE may read (planSae.ts's SAE_SITES). */
  readonly site: string;
  /** Every token, or these positions (0-based; "last" is resolved to T − 1). */
  readonly positions: 'all' | readonly number[];
  /** Where the vector came from, for the stage's meaning: `the vector given`, `feature layers.12.sae.3`, `"Love" − "Hate"`. */
  readonly source: string;
}
