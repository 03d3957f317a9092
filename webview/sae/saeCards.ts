// The SAE stages' own cards (the layout asks here first, webview/layout.ts): `.acts` drawn sparse
// (saeActsCard.ts), `.error` with the SAE's fit (saeErrorCard.ts); and the worker's answers for
// them, routed from the panel's lens messages.
import type { LensResult } from '../../src/protocol/lenses';
import type { StageView } from '../../src/protocol/stages';
import { parseSaeId, SAE_PART } from '../../src/core/ids';
import type { CardContext, StageCard } from '../views/stageCard';
import { SaeActsCard } from './saeActsCard';
import { SaeErrorCard } from './saeErrorCard';

const acts = new Map<string, SaeActsCard>();
const errors = new Map<string, SaeErrorCard>();

/** The card of an SAE stage that is not a plain heatmap, else null. */
export function saeCard(info: StageView, ctx: CardContext): StageCard | null {
  const n = parseSaeId(info.id);
  if (!n || !('part' in n)) return null;
  if (n.part === SAE_PART.acts) {
    const c = new SaeActsCard(info, info.shape, ctx, n.site);
    acts.set(n.site, c);
    return c;
  }
  if (n.part === SAE_PART.error) {
    const c = new SaeErrorCard(info, info.shape, ctx, n.site);
    errors.set(n.site, c);
    return c;
  }
  return null;
}

/** The layout is built anew: the cards go. */
export function clearSaeCards(): void {
  acts.clear();
  errors.clear();
}

/** A render is complete: the SAE cards ask for their answers again. */
export function onSaeRendered(): void {
  for (const c of acts.values()) c.onRendered();
  for (const c of errors.values()) c.onRendered();
}

/** Shows an SAE answer; false for a lens result that is not one. */
export function showSaeLens(r: LensResult): boolean {
  switch (r.kind) {
    case 'saeFeature': acts.get(r.site)?.showFeature(r); return true;
    case 'saeFit':
      errors.get(r.site)?.showFit(r);
      acts.get(r.site)?.setEdits(r.edits);
      return true;
    case 'error':
      if (r.lens === 'saeFeature') for (const c of acts.values()) c.featureError(r.message);
      else if (r.lens === 'saeFit') for (const c of errors.values()) c.fitError(r.message);
      else return false;
      return true;
    default: return false;
  }
}
