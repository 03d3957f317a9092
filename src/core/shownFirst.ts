// What a panel shows of a model before it has said which stages it wants. A deep model (more than
// two layers) opens with its layers collapsed: the stages outside them and the residual-stream map
// (each layer's output: the stages the plan marks `show.overview: 'stream'`). The worker sends only
// those to a panel that has not said (opening GPT-2-small posted 190 pieces, 6.5 MB, where the
// panel draws 35); the panel (webview/layout.ts) lays itself out by the same rule and asks for a
// layer's stages as it opens it.
import type { StageView } from './stageView';

type Listed = Pick<StageView, 'id' | 'group' | 'layer' | 'show'>;

export function isDeep(layers: number): boolean {
  return layers > 2;
}

/** The residual stream after each layer, by layer (the stream map's rows). */
export function streamStages<S extends Listed>(stages: readonly S[]): S[] {
  return stages.filter((s) => s.show.overview === 'stream' && s.layer >= 0).sort((a, b) => a.layer - b.layer);
}

/** The stages a new panel shows first; null: all of them. */
export function shownFirst(stages: readonly Listed[], layers: number): ReadonlySet<string> | null {
  if (!isDeep(layers)) return null;
  const outside = (s: Listed): boolean => s.group === 'input' || s.group === 'output' || s.group === 'head';
  const stream = (s: Listed): boolean => s.show.overview === 'stream' && s.layer >= 0;
  return new Set(stages.filter((s) => outside(s) || stream(s)).map((s) => s.id));
}
