// What the panel needs to know about a model before its numbers: names, shapes, every stage.
import { isGated } from '../core/activation';
import type { StageDef } from '../core/graph';
import { paramId } from '../core/ids';
import { sublayerParams } from '../core/paramTable';
import type { ModelFile } from '../model/read';
import type { ModelSummary, StageView } from '../protocol/stages';

/** A stage without its op: what the panel is sent. */
export function stageView(d: StageDef): StageView {
  const { op: _op, args: _args, ...view } = d;
  return view;
}

/**
 * The stages the panel lays out (with the words, compared apart: 50,257 of them for GPT-2): the
 * same key, the same cards. `atT0`: the plan with its dims that are T set to 0, so a prompt typed
 * (another T, other tokens) keeps the cards; the panel sets their shapes and labels to the new T.
 * An SAE's cards are laid out by their tokens: with an SAE the tokens are part of it.
 */
export function layoutSignature(m: ModelFile, atT0: readonly StageView[]): string {
  const sae = atT0.some((s) => s.id.includes('.sae.'));
  return JSON.stringify([atT0.map((s) => [s.id, s.shape, s.title]), sae ? m.tokens : null]);
}

/** The numbers that say what changed since the last summary (ModelSummary's layoutKey, vocabKey, planKey). */
export type SummaryKeys = Pick<ModelSummary, 'layoutKey' | 'vocabKey' | 'planKey'>;

/** `tokenDims`: which dims of each of `stages` are T (ModelSummary.tokenDims; absent: none). */
export function summarize(m: ModelFile, stages: readonly StageView[], keys: SummaryKeys, tokenDims: readonly number[] = stages.map(() => 0)): ModelSummary {
  const { spec, params } = m.model;
  const e = spec.embedding;
  return {
    name: m.name,
    tokens: m.tokens,
    vocab: m.vocab,
    T: spec.T,
    C: spec.C,
    layout: m.layout,
    norm: spec.norm,
    normKind: spec.normKind,
    residual: spec.residual,
    positional: e.positional,
    finalNorm: spec.finalNorm,
    layers: spec.layers.map((l, i) => ({
      attention: l.attention && {
        NH: l.attention.NH,
        KVH: l.attention.KVH,
        causal: l.attention.causal,
        rope: l.attention.rope !== null,
        identity: sublayerParams('attention').filter((r) => r.role === 'matrix' && !params.has(paramId(i, r.kind))).map((r) => r.key!),
      },
      ffn: l.ffn && { activation: l.ffn.activation, F: l.ffn.F, gated: isGated(l.ffn.activation) },
    })),
    head: spec.head && { temperature: spec.head.temperature, V: spec.head.V },
    params: m.paramCounts,
    stages,
    tokenDims,
    ...keys,
  };
}
