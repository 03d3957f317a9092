// What the lens views need from the panel: the theme, and the ways out (ask the worker, open a
// layer, act on a unit of the model file).
import type { LensRequest } from '../../src/protocol/lenses';
import type { ModelSummary } from '../../src/protocol/stages';
import { drawLegend, type Backdrop, type ColormapName } from '../heatmap';
import { h } from '../dom';

export interface LensContext {
  readonly backdrop: () => Backdrop;
  readonly colormap: () => ColormapName;
  readonly maxCells: () => { readonly rows: number; readonly cols: number };
  /** Asks the worker for a lens of the current run. */
  request(req: LensRequest): void;
  /** Scrolls the panel to a layer (opening it). */
  openLayer(layer: number): void;
  /** A head or a neuron clicked: the host offers to ablate or scale it in the model file. */
  unit(text: string): void;
  /** Runs activation patching (a command with VS Code's progress and cancel). */
  runPatching(views: 'resid' | 'heads'): void;
  /** The model shown (null before the first render). */
  summary(): ModelSummary | null;
  /** A stage's numbers, if the panel has them. */
  stage(id: string): { readonly shape: readonly number[]; readonly data: Float32Array } | null;
  /** The stages a view needs besides the cards shown (the worker sends them, and again after each edit). */
  want(ids: readonly string[]): void;
}

/** A word as the panel shows it, with its id. */
export function wordLabel(words: Readonly<Record<number, string>>, id: number): string {
  return words[id] ?? `#${id}`;
}

export function pct(p: number): string {
  return p >= 0.995 ? `${Math.round(p * 100)}%` : p >= 0.0995 ? `${(p * 100).toFixed(0)}%` : `${(p * 100).toFixed(1)}%`;
}

export function signed(v: number, digits = 3): string {
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}`;
}

/** A color scale under a lens' heatmap: what the colors mean. */
export function legend(caption: string, colormap: ColormapName, range: readonly [number, number], backdrop: Backdrop): HTMLElement {
  const box = h('div', { class: 'lens-legend' });
  drawLegend(box, { colormap, range, backdrop });
  return h('div', { class: 'lens-legend-row' }, h('span', { class: 'lens-note' }, caption), box);
}
