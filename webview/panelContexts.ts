// What the cards and the lens views are given of the panel: its summary and settings, colors,
// the shared head choice and color range, and the ways out to the host.
import type { PanelSettings } from '../src/protocol/panel';
import type { ModelSummary, StageView } from '../src/protocol/stages';
import type { Backdrop, ColormapName } from './heatmap';
import { headKey } from './highlight';
import type { LensContext } from './lenses/lensContext';
import { rangeFor } from './rangePolicy';
import { post, type ViewState } from './viewState';
import type { CardContext, StageCard, StageData } from './views/stageCard';

export interface PanelLook {
  summary(): ModelSummary | null;
  settings(): PanelSettings | null;
  colormap(): ColormapName;
  backdrop(): Backdrop;
  cards(): ReadonlyMap<string, StageCard>;
  state(): ViewState;
  save(): void;
}

export function cardContext(p: PanelLook, headChanged: () => void): CardContext {
  const info = (id: string): StageView | undefined => p.summary()?.stages.find((s) => s.id === id);
  return {
    get summary() { return p.summary()!; },
    get colormap() { return p.colormap(); },
    get backdrop() { return p.backdrop(); },
    get maxRows() { return p.settings()?.maxRows ?? 256; },
    get maxCols() { return p.settings()?.maxCols ?? 1024; },
    range: (id, data, mask) => rangeFor(p.settings(), p.colormap(), data, mask, info(id)?.kind ?? id,
      [...p.cards().values()].map((c) => ({ kind: c.info.kind, masked: c.info.masked, window: c.info.show.window, data: c.data?.data ?? null })), p.summary()?.T ?? 0),
    reveal: (stageId, index) => post({ type: 'reveal', stageId, index }),
    head: (id) => {
      const i = info(id);
      return i ? p.state().head[headKey(i)] ?? 0 : 0;
    },
    setHead: (id, hh) => {
      const i = info(id);
      if (!i) return;
      const key = headKey(i);
      p.state().head[key] = hh;
      p.save();
      // every stage of that layer follows (the one that changed redraws itself), and the overview
      for (const [other, card] of p.cards()) if (other !== id && card.info.perHead && headKey(card.info) === key) card.draw(true);
      headChanged();
    },
    allHeads: (id) => !!p.state().allHeads[id],
    // (numbers of an older T, shown dimmed until the new come, are not the render's: nothing reads them)
    stageData: (id) => {
      const c = p.cards().get(id);
      return c?.current ? c.data!.data : null;
    },
    setAllHeads: (id, on) => {
      p.state().allHeads[id] = on;
      p.save();
    },
  };
}

export function lensContext(p: PanelLook, openLayer: (layer: number) => void, want: (ids: readonly string[]) => void): LensContext {
  return {
    backdrop: () => p.backdrop(),
    colormap: () => p.colormap(),
    maxCells: () => ({ rows: p.settings()?.maxRows ?? 256, cols: p.settings()?.maxCols ?? 1024 }),
    request: (request) => post({ type: 'lens', request }),
    openLayer,
    unit: (text) => post({ type: 'unit', text }),
    runPatching: (views) => post({ type: 'runPatching', views }),
    summary: () => p.summary(),
    stage: (id): StageData | null => p.cards().get(id)?.data ?? null,
    want,
  };
}
