// What the panel does with a stage beyond drawing its heatmap, said by the plan (plan.ts) for each
// stage: the panel reads these and never a stage's name, so a new op or stage touches src/core
// only. Each field is absent where it does not apply (most stages carry `{}`: the layout crosses
// the wire with every new layout, 190 stages for GPT-2-small).

/** Another stage's number at the same cell, quoted in a cell's tooltip under `label`. */
export interface StageQuote {
  readonly label: string;
  readonly stage: string;
}

export interface StageShow {
  /**
   * The activation function's curve, drawn after this stage, with the values of stage `input` on
   * it (the pre-activation: `ffn.up`, or `ffn.gate` of a gated FFN). `fn`: an Activation (activation.ts).
   */
  readonly activationChart?: { readonly fn: string; readonly input: string };
  /** Never negative (probabilities): on a diverging map the legend shows only its upper half, 0 … m. */
  readonly nonNegative?: true;
  /** What a cell's tooltip calls its value (absent: `value`). */
  readonly valueName?: string;
  /** Other stages' numbers at the same cell the tooltip quotes first (what went into an activation). */
  readonly quotes?: readonly StageQuote[];
  /**
   * The overview's pick: 'block', the block at a glance of a model with few layers (from the first
   * layer that has the stage's sublayer); 'stream', a layer's output, whose ‖x‖ per token the
   * residual-stream map of a deep model draws (and which a new panel shows first: shownFirst.ts).
   */
  readonly overview?: 'block' | 'stream';
  /** the sliding window of an attention stage's mask (keys j with i − window < j ≤ i are seen) */
  readonly window?: number;
  /** Attention weights [heads, T, T]: the attention lens draws its head view and model view from them. */
  readonly attentionPattern?: true;
  /** Its columns are units (ids.ts): a neuron each, or a head's slice (head size wide) each; the tokens lens colours one. */
  readonly units?: 'neuron' | 'head';
  /** Under it the panel draws what a neuron highlighted from the editor writes into it (the FFN's down-projection). */
  readonly neuronWrites?: true;
}
