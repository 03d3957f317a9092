// What a panel shows of a model before it has said which stages it wants. A deep model (more than
// two layers) opens with its layers collapsed: the stages outside them and the residual-stream map
// (each layer's `out`). The worker sends only those to a panel that has not said (opening GPT-2-small
// posted 190 pieces, 6.5 MB, where the panel draws 35); the panel (webview/layout.ts) lays itself
// out by the same rule and asks for a layer's stages as it opens it.
import type { StageView } from './stageView';

export function isDeep(layers: number): boolean {
  return layers > 2;
}

/** The stages a new panel shows first; null: all of them. */
export function shownFirst(stages: readonly Pick<StageView, 'id' | 'group' | 'layer' | 'kind'>[], layers: number): ReadonlySet<string> | null {
  if (!isDeep(layers)) return null;
  return new Set(stages.filter((s) => s.group === 'input' || s.group === 'output' || s.group === 'head' || (s.layer >= 0 && s.kind === 'out')).map((s) => s.id));
}
