// Which stages a part of the panel draws, read from what the plan says of each (StageView.show,
// src/core/stageShow.ts): never from a stage's name, so a new stage or op changes nothing here.
import type { ModelSummary, StageGroup, StageView } from '../src/protocol/stages';
import { streamStages } from '../src/core/shownFirst';

/** The groups in the order the panel lays out their sections (an attention sublayer before its FFN). */
const GROUP_ORDER: readonly StageGroup[] = ['input', 'attention', 'ffn', 'layer', 'output', 'head', 'lens'];

/**
 * The overview of a model with few layers: the block at a glance, each sublayer's picks from the
 * first layer that has that sublayer (the attention scores, then the FFN expanding, activating and
 * projecting back), in the order the panel lays them out.
 */
export function overviewPicks(s: Pick<ModelSummary, 'stages'>): StageView[] {
  const block = s.stages.filter((x) => x.show.overview === 'block');
  const first = new Map<StageGroup, number>();
  for (const x of block) if (!first.has(x.group) || x.layer < first.get(x.group)!) first.set(x.group, x.layer);
  return block
    .filter((x) => first.get(x.group) === x.layer)
    .sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group));
}

/** The stage that is layer `layer`'s output (its residual stream): what the stream map reads, and a closed layer's place. */
export function streamStage(s: Pick<ModelSummary, 'stages'>, layer: number): StageView | undefined {
  return streamStages(s.stages).find((x) => x.layer === layer);
}

/** The attention weights of every layer that has them, by layer: what the attention lens draws. */
export function attentionPatterns(s: Pick<ModelSummary, 'stages'>): StageView[] {
  return s.stages.filter((x) => x.show.attentionPattern).sort((a, b) => a.layer - b.layer);
}

/** The stage whose columns are layer `layer`'s units of this kind (its neurons; its heads' slices). */
export function unitsStage(s: Pick<ModelSummary, 'stages'>, kind: 'neuron' | 'head', layer: number): StageView | undefined {
  return s.stages.find((x) => x.show.units === kind && x.layer === layer);
}

/**
 * The head size of layer `layer`'s attention, read off the plan's shapes (its heads' slices of the
 * context, NH × head size wide): gemma's and qwen3's heads are not d_model / heads wide.
 */
export function headSize(s: Pick<ModelSummary, 'stages' | 'layers' | 'C'>, layer: number): number {
  const NH = s.layers[layer]?.attention?.NH ?? 0;
  if (!NH) return 0;
  const ctx = unitsStage(s, 'head', layer);
  const width = ctx?.shape[ctx.shape.length - 1];
  return width !== undefined && width % NH === 0 ? width / NH : s.C / NH;
}

/** The sliding window of layer `layer`'s attention (the plan's `show.window` on its weights), or undefined. */
export function slidingWindow(s: Pick<ModelSummary, 'stages'>, layer: number): number | undefined {
  return s.stages.find((x) => x.layer === layer && x.show.window !== undefined)?.show.window;
}
