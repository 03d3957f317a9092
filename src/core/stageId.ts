// Stage ids, as the model file spec names them: `input`, `layers.3.attn.q`, `ln_f`, `output`,
// `head.probs`, `layers.3.lens.logits`. The one place that takes an id apart.

export interface StageName {
  /** The layer of a `layers.i.…` id, else -1. */
  readonly layer: number;
  /** The id without `layers.i.`: `attn.q`, `ffn.up`, `out`, `input`, `head.logits`. */
  readonly kind: string;
}

const LAYER_ID = /^layers\.(\d+)\.(.+)$/;

export function parseStageId(id: string): StageName {
  const m = LAYER_ID.exec(id);
  return m ? { layer: Number(m[1]), kind: m[2] } : { layer: -1, kind: id };
}

export function stageId(layer: number, kind: string): string {
  return layer < 0 ? kind : `layers.${layer}.${kind}`;
}
