// What the panel needs to know about a model before its numbers: names, shapes, the plan.
import { isGated } from '../core/activation';
import { planStages } from '../core/forward';
import type { ModelSummary } from '../preview/protocol';
import type { ModelFile } from '../model/read';

export function summarize(m: ModelFile): ModelSummary {
  const w = m.weights;
  return {
    name: m.name,
    tokens: m.tokens,
    vocab: m.vocab,
    seq: w.T,
    dModel: w.C,
    layout: w.layout,
    norm: w.norm,
    residual: w.residual,
    positional: w.positional,
    finalNorm: w.finalNorm,
    layers: w.layers.map((l) => ({
      attention: l.attention && {
        heads: l.attention.heads,
        causal: l.attention.causal,
        identity: (['Wq', 'Wk', 'Wv', 'Wo'] as const).filter((k) => l.attention![k] === null),
      },
      ffn: l.ffn && { activation: l.ffn.activation, dFf: l.ffn.F, gated: isGated(l.ffn.activation) },
    })),
    head: w.head && { temperature: w.head.temperature, vocabSize: w.head.V },
    params: m.params,
    stages: planStages(w),
  };
}
