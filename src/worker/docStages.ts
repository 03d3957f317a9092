// What the worker's explanations read (DocStages: a document's model as read and its latest
// computed stages, never recomputed to answer a hover), and small helpers to quote their numbers
// in Markdown tables.
import type { Stage } from '../core/stages';
import type { JsonNode } from '../model/jsonc';
import type { ModelFile } from '../model/read';
import type { StageDef } from '../core/graph';
import { formatValue, plural } from '../common/numberFormat';
import { STAGE, stageId } from '../core/ids';

export interface DocStages {
  readonly file: ModelFile;
  readonly root: JsonNode | null;
  /** The model's stages, as the block graph lists them. */
  readonly plan: readonly StageDef[];
  readonly stages: ReadonlyMap<string, Stage>;
  /** The stages are from an older text than the one hovered. */
  readonly stale: boolean;
}

const MAX_TOKENS = 8;

/** A value as hovers quote it: 4 significant digits. */
export const fmt = (v: number): string => formatValue(v, 4);

export function stage(c: DocStages, id: string): Stage | undefined {
  return c.stages.get(id);
}

/** The value at row t, column j of a stage (its last axis is the column). */
export function col(s: Stage | undefined, t: number, j: number): number {
  if (!s) return NaN;
  const n = s.shape[s.shape.length - 1];
  return s.data[t * n + j];
}

/** The stage a stage reads first (the FFN's up-projection reads its input: ln2, a residual, …). */
export function inputOf(c: DocStages, id: string): string | undefined {
  return c.plan.find((s) => s.id === id)?.inputs[0];
}

export function tokenRows<T>(c: DocStages, f: (t: number, tok: string) => T): { rows: T[]; more: number } {
  const T = c.file.model.spec.T;
  const shown = Math.min(T, MAX_TOKENS);
  return { rows: Array.from({ length: shown }, (_, t) => f(t, c.file.tokens[t] ?? `t${t}`)), more: T - shown };
}

export function table(head: string[], rows: string[][], more: number): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const lines = [`| ${head.map(esc).join(' | ')} |`, `|${head.map(() => '---:').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)];
  if (more > 0) lines.push('', `… and ${plural(more, 'more token')}`);
  return lines.join('\n');
}

/** Dead: zero for every token after the activation (ReLU-like), for one neuron. */
export function isDead(act: Stage | undefined, j: number, T: number): boolean {
  if (!act) return false;
  const F = act.shape[1];
  for (let t = 0; t < T; t++) if (act.data[t * F + j] !== 0) return false;
  return true;
}

/** Activations that can leave a neuron exactly zero for every token. */
export function canDie(activation: string): boolean {
  return activation === 'relu' || activation === 'reglu';
}

export function deadNeurons(c: DocStages, layer: number): { dead: number; total: number } | null {
  const f = c.file.model.spec.layers[layer]?.ffn;
  const act = stage(c, stageId(layer, STAGE.act));
  if (!f || !act) return null;
  let dead = 0;
  for (let j = 0; j < f.F; j++) if (isDead(act, j, c.file.model.spec.T)) dead++;
  return { dead, total: f.F };
}

export function countNonzero(act: Stage | undefined, j: number, T: number): number {
  let n = 0;
  for (let t = 0; t < T; t++) if (col(act, t, j) !== 0) n++;
  return n;
}
