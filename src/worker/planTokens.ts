// The plan as a panel is sent it once for every token count: which dims of each stage are T
// (src/core/stageView.ts's tokenDims), found by planning the same model at T + 1. A prompt typed
// then changes T and not the plan the panel holds (GPT-2-small's: ~63 KB of JSON each key).
import { planModel } from '../core/plan';
import type { ModelSpec } from '../core/spec';
import { tokenDims, type StageView } from '../core/stageView';
import { stageView } from './summary';

/** `views` (the plan of `spec`) as dims that follow T; null when the plan does not follow T by its shapes alone. */
export function planTokenDims(views: readonly StageView[], spec: ModelSpec): number[] | null {
  const T = spec.T + 1;
  const e = spec.embedding;
  const embedding = e.kind === 'tokens' ? { ...e, ids: [...e.ids, e.ids[e.ids.length - 1] ?? 0] } : e;
  try {
    return tokenDims(views, spec.T, planModel({ ...spec, T, embedding }).map(stageView), T);
  } catch {
    return null; // (a model that plans only at its own T: the plan goes whole when it changes)
  }
}
