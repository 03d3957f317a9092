// What the editor says about a model file that names a checkpoint: a lens above "checkpoint"
// (architecture, layers, parameters, dtype) and above the input (its tokens), and hovers over each
// `ablate`, `scale` and `weights` entry: the unit's values per token, and what the entry changes
// in the top prediction (the model computed once more without it).

import { forward } from '../core/forward';
import { PARAM, paramId, parseParamId, STAGE, stageId, unitId } from '../core/ids';
import { layerParam } from '../core/paramTable';
import type { MatmulKernel } from '../core/kernel';
import type { Stage } from '../core/stages';
import { CheckpointResolver, overriddenValues } from '../checkpoint/resolve';
import type { At, CheckpointRequest } from '../model/checkpointRequest';
import type { CellUnit, CodeLens } from '../protocol/worker';
import type { Model } from '../core/model';
import { outputsInputs, readOutputRow } from '../core/params';
import type { StageView } from '../protocol/stages';
import { formatCount, formatValue, plural } from '../common/numberFormat';
import { fmt, table, tokenRows, type DocStages } from './docStages';
import { saeEditHover, saeIdHover } from './saeFeatureInfo';

export function checkpointCodeLenses(c: DocStages): CodeLens[] {
  const facts = c.file.checkpoint;
  if (!facts) return [];
  const { spec } = c.file.model;
  const req = facts.request;
  const src = facts.source;
  const attn = spec.layers.find((l) => l.attention)?.attention;
  const ffn = spec.layers.find((l) => l.ffn)?.ffn;
  const heads = attn ? `${attn.NH} heads${attn.KVH !== attn.NH ? ` (${attn.KVH} key/value)` : ''}` : 'no attention';
  const parts = [
    src.modelType, plural(spec.layers.length, 'layer'), `d_model ${spec.C}`, heads, ffn ? `d_ff ${ffn.F}` : 'no FFN',
    `vocab ${formatCount(spec.head?.V ?? 0)}`, `${formatCount(src.paramCount)} params`, src.dtypes.join('/'),
  ];
  const out: CodeLens[] = [{ start: req.folderAt.start, end: req.folderAt.end, title: parts.join(' · ') }];
  const inputAt = req.promptAt ?? req.tokenIdsAt;
  if (inputAt) {
    const shown = c.file.tokens.slice(0, 12).join(' ');
    out.push({ start: inputAt.start, end: inputAt.end, title: `${plural(spec.T, 'token')}: ${shown}${spec.T > 12 ? ' …' : ''}` });
  }
  return out;
}

/** The per-head stages drawn one query head at a time (K and V are key/value heads, which query heads share). */
const QUERY_HEADS: ReadonlySet<string> = new Set([STAGE.q, STAGE.scores, STAGE.weights]);

/** The neuron or head a cell of a stage belongs to (the panel offers to switch it off), or null. */
export function cellUnit(model: Model, def: StageView, index: readonly number[]): CellUnit | null {
  const L = def.layer;
  const layer = model.spec.layers[L];
  if (L < 0 || !layer) return null;
  if (def.cols === 'neuron' && layer.ffn) {
    const j = index[index.length - 1];
    const W1 = model.params.get(paramId(L, PARAM.W1));
    let w1: number[] | null = null;
    if (W1 && W1.shape.length === 2) {
      const [N, K] = outputsInputs(W1);
      w1 = new Array<number>(K);
      readOutputRow(W1, j, K, N, w1);
    }
    return { text: unitId('neuron', L, j), kind: 'neuron', layer: L, index: j, w1 };
  }
  const a = layer.attention;
  if (!a) return null;
  // query heads: Q, the scores and weights (K and V are key/value heads, shared), and the context's columns
  const head = (h: number): CellUnit => ({ text: unitId('head', L, h), kind: 'head', layer: L, index: h, w1: null });
  if (def.perHead && QUERY_HEADS.has(def.kind)) return head(index[0]);
  if (def.kind === STAGE.context) return head(Math.floor(index[index.length - 1] / a.HS));
  return null;
}

/** A hover over an `ablate`, `scale` or `weights` entry of a checkpoint file, or null. */
export function checkpointHover(c: DocStages, offset: number, kernel: MatmulKernel): { markdown: string; start: number; end: number } | null {
  const facts = c.file.checkpoint;
  if (!facts) return null;
  const req = facts.request;
  const inside = (at: At): boolean => offset >= at.start && offset <= at.end;
  const saeEdit = req.saeEdits.find((e) => inside(e.at));
  if (saeEdit) return saeEditHover(c, saeEdit);
  const feature = saeIdHover(c, offset);
  if (feature) return feature;
  const unit = [...req.ablate.map((u) => ({ ...u, what: 'ablate' as const })), ...req.scale.map((u) => ({ ...u, what: 'scale' as const }))].find((u) => inside(u.at));
  const weight = unit ? null : req.weights.find((w) => inside(w.at));
  if (!unit && !weight) return null;
  const at = (unit ?? weight)!.at;
  const lines: string[] = [];
  if (unit) {
    const verb = unit.what === 'ablate' ? 'switched off' : `scaled by ${fmt((unit as { factor: number }).factor)}`;
    if (unit.kind === 'neuron') {
      lines.push(`**${unit.text}** · neuron ${unit.index} of layer ${unit.layer}'s FFN, ${verb}`);
      lines.push('', neuronTable(c, unit.layer, unit.index));
    } else {
      lines.push(`**${unit.text}** · head ${unit.index} of layer ${unit.layer}'s attention, ${verb}`);
      lines.push('', headTable(c, unit.layer, unit.index));
    }
  } else {
    const w = weight!;
    lines.push(`**weights["${w.text}"]** · ${w.values.length === 1 ? 'one number' : plural(w.values.length, 'number')} of ${w.param} replaced`);
    const own = facts.source.params.get(w.param);
    if (own) lines.push('', `In the checkpoint: ${numbers(overriddenValues(own, w))}; in this entry: ${numbers(w.values)}`);
    // a neuron's input weights (its row of W1 or Wg: a matrix with an output per neuron): that neuron's values per token, as its hover in "ablate"
    const n = parseParamId(w.param);
    const row = n.layer >= 0 ? layerParam(n.kind) : undefined;
    if (row?.role === 'matrix' && row.shape[0] === 'F' && w.row !== null) lines.push('', `Neuron ${w.row} of layer ${n.layer}'s FFN, with the entry:`, '', neuronTable(c, n.layer, w.row));
  }
  const change = predictionChange(c, req, at, kernel);
  if (change) lines.push('', change);
  if (c.stale) lines.push('', '_Values from the last computation, before your latest edit._');
  return { markdown: lines.join('\n'), start: at.start, end: at.end };
}

/** A few numbers of a list, and how many there are in all. */
function numbers(v: Float32Array): string {
  const shown = Array.from(v.subarray(0, 6), (x) => fmt(x)).join(', ');
  return v.length > 6 ? `${shown}, … (${v.length} in all)` : shown;
}

function neuronTable(c: DocStages, layer: number, j: number): string {
  const gate = c.stages.get(stageId(layer, STAGE.gate));
  const up = c.stages.get(stageId(layer, STAGE.up));
  const act = c.stages.get(stageId(layer, STAGE.act));
  const v = (s: Stage | undefined, t: number): string => (s ? fmt(s.data[t * s.shape[1] + j]) : '–');
  const { rows, more } = tokenRows(c, (t, tok) => [tok, ...(gate ? [v(gate, t)] : []), v(up, t), v(act, t)]);
  return table(['token', ...(gate ? ['gate'] : []), 'up', 'act (after the edit)'], rows, more);
}

function headTable(c: DocStages, layer: number, h: number): string {
  const w = c.stages.get(stageId(layer, STAGE.weights));
  if (!w) return '';
  const T = w.shape[1];
  const { rows, more } = tokenRows(c, (t, tok) => {
    let best = 0;
    for (let k = 1; k < T; k++) if (w.data[(h * T + t) * T + k] > w.data[(h * T + t) * T + best]) best = k;
    return [tok, c.file.tokens[best] ?? `t${best}`, fmt(w.data[(h * T + t) * T + best])];
  });
  return table(['token', 'attends most to', 'weight'], rows, more);
}

/** The top prediction at the last token with the entry at `at`, and without it. */
function predictionChange(c: DocStages, req: CheckpointRequest, at: At, kernel: MatmulKernel): string | null {
  const probs = c.stages.get(STAGE.probs);
  const facts = c.file.checkpoint!;
  if (!probs || c.stale) return null;
  const without: CheckpointRequest = {
    ...req,
    ablate: req.ablate.filter((u) => u.at !== at),
    scale: req.scale.filter((u) => u.at !== at),
    weights: req.weights.filter((w) => w.at !== at),
  };
  const r = new CheckpointResolver().resolve(without, facts.source, facts.tokenizer);
  if (!r.file) return null;
  const baseStages = forward(r.file.model, kernel);
  const base = baseStages.find((s) => s.id === STAGE.probs);
  if (!base) return null;
  const V = probs.shape[1];
  const last = probs.shape[0] - 1;
  const top = (s: Stage): number => {
    let best = 0;
    for (let k = 1; k < V; k++) if (s.data[last * V + k] > s.data[last * V + best]) best = k;
    return best;
  };
  const p = (s: Stage, k: number): number => s.data[last * V + k];
  const label = (k: number): string => `\`${c.file.vocab[k] ?? `#${k}`}\``;
  const a = top(probs);
  const b = top(base);
  const tok = c.file.tokens[last] ?? `t${last}`;
  // the logit of the top word with and without the entry: what a small effect shows as
  const logits = c.stages.get(STAGE.logits);
  const baseLogits = baseStages.find((s) => s.id === STAGE.logits);
  const dl = logits && baseLogits ? logits.data[last * V + a] - baseLogits.data[last * V + a] : null;
  const logit = dl === null ? '' : dl === 0 ? ' Its logit is unchanged.' : ` The entry changes its logit by ${dl > 0 ? '+' : '−'}${formatValue(Math.abs(dl))} (Δ logit).`;
  if (a === b) {
    const [w, wo] = percents(p(probs, a), p(base, a));
    return `Next after ${tok}: ${label(a)} ${w} with this entry, ${wo} without it.${logit}`;
  }
  const [wa, woa] = percents(p(probs, a), p(base, a));
  const [, wob] = percents(p(probs, b), p(base, b));
  return `Next after ${tok}: ${label(a)} ${wa} with this entry; without it ${label(b)} ${wob} (and ${label(a)} ${woa}).${logit}`;
}

/**
 * Two probabilities as percentages with as many decimals as tell them apart (at least two
 * significant digits, at most six more): 0.019 % and 0.021 %, not 0.0 % and 0.0 %.
 */
export function percents(x: number, y: number): [string, string] {
  const smallest = Math.min(...[x, y].filter((v) => v > 0).map((v) => 100 * v), 100);
  const d0 = Math.max(1, Math.ceil(-Math.log10(smallest)) + 1);
  for (let d = d0; ; d++) {
    const a = (100 * x).toFixed(d);
    const b = (100 * y).toFixed(d);
    if (a !== b || x === y || d >= d0 + 6) return [`${a} %`, `${b} %`];
  }
}
