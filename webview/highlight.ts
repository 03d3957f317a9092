// The band of a stage that the editor's cursor points at: a neuron's column, a token's row, an
// output dimension's column.
import type { HighlightTarget, StageView } from '../src/protocol/stages';
import { stageId } from '../src/core/ids';

export function highlightFor(info: StageView, t: HighlightTarget): { axis: 'row' | 'col'; index: number } | null {
  // (a head's map, [T, …] of the head shown, has the token's row too: an attention map's query)
  if (t.kind === 'token') return { axis: 'row', index: t.index };
  if (info.layer !== t.layer) return null;
  if (t.kind === 'neuron') return info.cols === 'neuron' ? { axis: 'col', index: t.index } : null;
  if (t.kind === 'dim') return info.cols === 'dim' ? { axis: 'col', index: t.index } : null;
  return null;
}

/** The key of a stage's head choice: its layer (`layers.2.`), shared by all its attention stages. */
export function headKey(info: StageView): string {
  // (the layer's prefix, as the view state has always keyed it: a reload keeps the heads chosen)
  return info.layer >= 0 ? stageId(info.layer, '') : info.id;
}
