// The hover over a number (or a key) of a model file: what it is in the model, the stages it
// feeds (from the block graph), and the values it leads to, quoted from the latest computation.
import { activationLabel, isGated } from '../core/activation';
import { normParams, PARAM, paramId, STAGE, stageId } from '../core/ids';
import { layerParamAt } from '../core/paramTable';
import { sourceSlice, type Source } from '../model/jsonc';
import { pathAt } from '../model/pathAt';
import { formatPath } from '../model/problems';
import { matrixMeaning, roleOf, type MatrixParam, type Role } from '../model/roles';
import { child } from '../model/tree';
import { plural } from '../common/numberFormat';
import { quote } from '../common/quote';
import { canDie, col, countNonzero, deadNeurons, fmt, inputOf, isDead, stage, table, tokenRows, type DocStages } from './docStages';

/** Markdown for a hover at `offset`, or null when the place has nothing to say. */
export function hoverMarkdown(text: Source, c: DocStages, offset: number): { markdown: string; start: number; end: number } | null {
  const hit = pathAt(text, c.root, offset);
  if (!hit || hit.path.length === 0) return null;
  const role = roleOf(hit.path, c.file.layout, !!child(c.root, 'layers'));
  if (!role) return null;
  const where = formatPath(hit.path);
  const valueText = sourceSlice(text, hit.start, hit.end);
  const isNumber = /^-?\d/.test(valueText) && !hit.onKey;
  const head = isNumber ? `**${where} = ${valueText}**` : `**${where}**`;
  const body = describeRole(c, role, isNumber ? Number(valueText) : NaN);
  if (body === null) return null;
  const feeds = feedsNote(c, role);
  const staleNote = c.stale ? '\n\n_Values from the last computation, before your latest edit._' : '';
  return { markdown: `${head} · ${body}${feeds}${staleNote}`, start: hit.start, end: hit.end };
}

/** The param a role is part of, under the core's ids (`layers.0.ffn.W1`). */
function paramOf(role: Role): string | null {
  // a layer's matrix or bias by its key in the model file (the param table's)
  const block = (layer: number, key: string): string | null => {
    const row = layerParamAt('attention', key) ?? layerParamAt('ffn', key);
    return row ? paramId(layer, row.kind) : null;
  };
  switch (role.kind) {
    case 'weight': case 'matrix':
      return role.param === 'W' ? PARAM.headW : block(role.layer, role.param);
    case 'bias':
      return role.param === 'b' ? PARAM.headB : block(role.layer, role.param);
    case 'norm':
      return normParams(normStage(role))[role.param];
    case 'input': case 'input-matrix':
      return PARAM.input;
    default:
      return null;
  }
}

/** The stage a norm computes, whose id is also its params' prefix (`layers.0.ln1`, `ln_f`). */
function normStage(role: Extract<Role, { kind: 'norm' }>): string {
  return role.which === 'ln_f' ? STAGE.lnF : stageId(role.layer, role.which === 'ln1' ? STAGE.ln1 : STAGE.ln2);
}

/** "Feeds: FFN - Projection Up (`layers.0.ffn.up`)": the stages that read the param, from the block graph. */
function feedsNote(c: DocStages, role: Role): string {
  const id = paramOf(role);
  if (!id) return '';
  const readers = c.plan.filter((s) => s.params.includes(id));
  if (!readers.length) return '\n\n_Not used by the model as it is set up._';
  return `\n\nFeeds ${readers.map((s) => `${s.title} (\`${s.id}\`)`).join(', ')}.`;
}

/** A weight's hover: what it connects, with the numbers it makes for this input. */
function describeWeight(c: DocStages, role: Extract<Role, { kind: 'weight' }>, value: number): string | null {
  const m = c.file;
  const { spec } = m.model;
  const L = role.layer;
  const mm = matrixMeaning(role.param);
  if (role.param === 'W1' || role.param === 'Wg') {
    const F = spec.layers[L]?.ffn?.F ?? 0;
    const x = stage(c, inputOf(c, stageId(L, STAGE.up)) ?? '');
    if (role.out === null) return `input dimension ${role.inp}'s weights into all ${F} neurons (layout in_out: a neuron is a column)`;
    const j = role.out;
    const what = role.inp === null
      ? `neuron ${j} (of ${F}): its ${role.param === 'W1' ? 'question' : 'gate'} to every token`
      : `weight from input dimension ${role.inp} into neuron ${j} (of ${F})`;
    const contrib = role.inp === null ? undefined : { label: `w × x[${role.inp}]`, value: (t: number) => Math.fround(value * col(x, t, role.inp!)) };
    return `${what} — layer ${L} ${mm.name}\n\n${neuronTable(c, L, j, contrib)}`;
  }
  if (role.param === 'W2') {
    const F = spec.layers[L]?.ffn?.F ?? 0;
    const act = stage(c, stageId(L, STAGE.act));
    const down = stage(c, stageId(L, STAGE.down));
    if (role.inp === null) return `output dimension ${role.out}'s weights over the ${F} neurons`;
    const j = role.inp;
    if (role.out === null) return `neuron ${j}'s output direction (row ${j} of W2 in layout in_out): what it writes into every output dimension`;
    const i = role.out;
    const { rows, more } = tokenRows(c, (t, tok) => [tok, fmt(col(act, t, j)), fmt(Math.fround(col(act, t, j) * value)), fmt(col(down, t, i))]);
    return `weight from neuron ${j} into output dimension ${i} — column ${j} of W2 is neuron ${j}'s output direction (layer ${L} ${mm.name})\n\n${table(['token', `act of neuron ${j}`, `contribution to dim ${i}`, `down[${i}]`], rows, more)}`;
  }
  if (role.param === 'W') {
    const v = role.out;
    if (v === null) return `dimension ${role.inp}'s weights into every word`;
    return `the weights of the word ${quote(m.vocab[v] ?? String(v))}${role.inp !== null ? `, from dimension ${role.inp}` : ''}\n\n${wordTable(c, v)}`;
  }
  // attention projections
  const a = spec.layers[L]?.attention;
  if (!a) return null;
  const HS = a.HS;
  const unit = role.param === 'Wo' ? role.inp : role.out;
  const h = unit === null ? null : Math.floor(unit / HS);
  const what = role.out !== null && role.inp !== null
    ? `weight from ${mm.inUnit} ${role.inp} into ${mm.outUnit} ${role.out}`
    : role.out !== null ? `${mm.outUnit} ${role.out}` : `${mm.inUnit} ${role.inp}`;
  const headNote = h === null ? '' : ` — head ${h} (columns ${h * HS}…${(h + 1) * HS - 1})`;
  return `${what}, layer ${L} ${mm.name}${headNote}${h === null ? '' : `\n\n${headWeights(c, L, h)}`}`;
}

function describeRole(c: DocStages, role: Role, value: number): string | null {
  const m = c.file;
  const { spec } = m.model;
  const T = spec.T;
  switch (role.kind) {
    case 'weight':
      return describeWeight(c, role, value);
    case 'matrix': {
      const mm = matrixMeaning(role.param);
      return `${mm.name}${role.layer >= 0 ? `, layer ${role.layer}` : ''}${matrixShapeNote(c, role.param, role.layer)}`;
    }
    case 'bias': {
      const L = role.layer;
      const i = role.index;
      if (i === null) return `bias (${role.param})`;
      if (role.param === 'b1' || role.param === 'bg') return `bias of neuron ${i} (layer ${L} ${role.param === 'b1' ? 'up-projection' : 'gate'})\n\n${neuronTable(c, L, i)}`;
      if (role.param === 'b2') {
        const down = stage(c, stageId(L, STAGE.down));
        const { rows, more } = tokenRows(c, (t, tok) => [tok, fmt(col(down, t, i))]);
        return `bias of output dimension ${i} (layer ${L} down-projection)\n\n${table(['token', `down[${i}]`], rows, more)}`;
      }
      if (role.param === 'b') return `logit bias of ${quote(m.vocab[i] ?? String(i))}\n\n${wordTable(c, i)}`;
      const a = spec.layers[L]?.attention;
      if (!a) return null;
      if (role.param === 'bo') return `bias of output dimension ${i} (layer ${L} attention output)`;
      const h = Math.floor(i / a.HS);
      return `bias of ${role.param === 'bq' ? 'query' : role.param === 'bk' ? 'key' : 'value'} dimension ${i}, layer ${L} — head ${h}\n\n${headWeights(c, L, h)}`;
    }
    case 'input': {
      const t = role.token;
      const tok = quote(m.tokens[t] ?? `t${t}`);
      if (role.dim === null) return `the vector of token ${tok} (row ${t})\n\n${tokenJourney(c, t, null)}`;
      return `token ${tok} (row ${t}), dimension ${role.dim}\n\n${tokenJourney(c, t, role.dim)}`;
    }
    case 'input-matrix':
      return `the token vectors: ${plural(T, 'token')} × d_model ${spec.C}`;
    case 'norm': {
      const id = normStage(role);
      const s = stage(c, id);
      if (role.index === null || !s) return `LayerNorm ${role.param}`;
      const { rows, more } = tokenRows(c, (t, tok) => [tok, fmt(col(s, t, role.index!))]);
      return `LayerNorm ${role.param} of dimension ${role.index} (${id})\n\n${table(['token', `${id}[${role.index}]`], rows, more)}`;
    }
    case 'token-label':
      return `label of token ${role.token}\n\n${tokenJourney(c, role.token, null)}`;
    case 'vocab':
      return `vocabulary word ${role.index}\n\n${wordTable(c, role.index)}`;
    case 'sublayer': {
      if (role.what === 'ffn') {
        const f = spec.layers[role.layer]?.ffn;
        if (!f) return null;
        const d = deadNeurons(c, role.layer);
        return `layer ${role.layer} FFN: ${spec.C} → ${f.F} → ${spec.C}, ${activationLabel(f.activation)}${d && canDie(f.activation) ? `; ${d.dead} of ${d.total} neurons dead for this input` : ''}`;
      }
      const a = spec.layers[role.layer]?.attention;
      return a ? `layer ${role.layer} self-attention: ${plural(a.NH, 'head')} of width ${a.HS}${a.causal ? ', causal' : ''}` : null;
    }
  }
}

function neuronTable(c: DocStages, layer: number, j: number, contrib?: { label: string; value: (t: number) => number }): string {
  const T = c.file.model.spec.T;
  const f = c.file.model.spec.layers[layer].ffn!;
  const up = stage(c, stageId(layer, STAGE.up));
  const gate = stage(c, stageId(layer, STAGE.gate));
  const act = stage(c, stageId(layer, STAGE.act));
  const gated = isGated(f.activation);
  const aname = activationLabel(f.activation);
  const head = ['token', ...(contrib ? [contrib.label] : []), 'up (pre-act)', ...(gated ? ['gate'] : []), aname];
  const { rows, more } = tokenRows(c, (t, tok) => [tok, ...(contrib ? [fmt(contrib.value(t))] : []), fmt(col(up, t, j)), ...(gated ? [fmt(col(gate, t, j))] : []), fmt(col(act, t, j))]);
  let s = table(head, rows, more);
  if (canDie(f.activation)) {
    s += isDead(act, j, T)
      ? `\n\nNeuron ${j} is **dead** for this input: 0 for every token after ${aname}.`
      : `\n\nNeuron ${j} fires for ${countNonzero(act, j, T)} of ${plural(T, 'token')}.`;
  }
  return s;
}

function headWeights(c: DocStages, layer: number, h: number): string {
  const m = c.file;
  const w = stage(c, stageId(layer, STAGE.weights));
  if (!w) return '';
  const T = m.model.spec.T;
  const shown = Math.min(T, 6);
  const names = (i: number): string => m.tokens[i] ?? `t${i}`;
  const causal = m.model.spec.layers[layer].attention!.causal;
  const rows = Array.from({ length: shown }, (_, i) => [names(i), ...Array.from({ length: shown }, (_, k) => (causal && k > i ? '·' : fmt(w.data[(h * T + i) * T + k])))]);
  return `Head ${h}'s attention weights (row: query, column: key):\n\n${table(['', ...Array.from({ length: shown }, (_, k) => names(k))], rows, T - shown)}`;
}

function matrixShapeNote(c: DocStages, param: MatrixParam, layer: number): string {
  const id = paramOf({ kind: 'matrix', param, layer });
  const p = id ? c.file.model.params.get(id) : undefined;
  return p ? ` · [${p.shape[0]} × ${p.shape[1]}] (layout ${c.file.layout})` : '';
}

function wordTable(c: DocStages, v: number): string {
  const logits = stage(c, STAGE.logits);
  const probs = stage(c, STAGE.probs);
  const { rows, more } = tokenRows(c, (t, tok) => [tok, fmt(col(logits, t, v)), `${(col(probs, t, v) * 100).toFixed(1)}%`]);
  return table(['after token', 'logit', 'probability'], rows, more);
}

/** A token's row at each stage after the input: min/max, and the value at one dimension. */
function tokenJourney(c: DocStages, t: number, dim: number | null): string {
  const rows: string[][] = [];
  const C = c.file.model.spec.C;
  for (const s of c.stages.values()) {
    if (s.shape.length !== 2) continue;
    const n = s.shape[1];
    const row = s.data.subarray(t * n, (t + 1) * n);
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of row) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const atDim = dim !== null && n === C ? fmt(row[dim]) : '';
    rows.push([s.id, ...(dim !== null ? [atDim] : []), fmt(lo), fmt(hi)]);
  }
  const shown = rows.slice(0, 14);
  let s = table(['stage', ...(dim !== null ? [`dim ${dim}`] : []), 'min', 'max'], shown, 0);
  if (rows.length > shown.length) s += `\n\n… and ${rows.length - shown.length} more stages`;
  return s;
}
