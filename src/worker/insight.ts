// What the numbers in the file mean, told from the latest computation (never recomputed here):
// hover text, code lenses, the panel highlight for the cursor, and the warnings that only the
// computed stages can give (every neuron dead, NaN produced, an attention row with nothing to see).
import { activationLabel, isGated } from '../core/activation';
import type { Stage } from '../core/stages';
import type { CursorTarget, Lens } from '../compute/protocol';
import { sourceSlice, type JsonNode, type Source } from '../model/jsonc';
import { pathAt } from '../model/pathAt';
import { formatPath, type PathSegment } from '../model/problems';
import type { ModelFile } from '../model/read';
import { matrixMeaning, roleOf, type MatrixParam, type Role } from '../model/roles';
import { child, layerPath, nodeAt } from '../model/tree';

const MAX_TOKENS = 8;

export interface Computed {
  readonly model: ModelFile;
  readonly root: JsonNode | null;
  readonly stages: ReadonlyMap<string, Stage>;
  /** The stages are from an older text than the one hovered. */
  readonly stale: boolean;
}

/** Rounded for reading: 4 significant digits, no exponent unless tiny or huge. */
export function fmt(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = a >= 1e-3 && a < 1e6 ? String(Number(v.toPrecision(4))) : v.toExponential(2);
  return s.replace('-', '−');
}

/** The stage that feeds layer i's FFN (pre-LN: ln2; else what the attention sublayer left). */
export function ffnInputId(m: ModelFile, i: number): string {
  const w = m.weights;
  const p = `layers.${i}.`;
  if (w.norm === 'pre') return p + 'ln2';
  if (w.layers[i]?.attention) return w.norm === 'post' ? p + 'ln1' : w.residual ? p + 'attn.residual' : p + 'attn.out';
  return i === 0 ? 'input' : `layers.${i - 1}.out`;
}

function get(c: Computed, id: string): Stage | undefined {
  return c.stages.get(id);
}

function col(s: Stage | undefined, t: number, j: number): number {
  if (!s) return NaN;
  const n = s.shape[s.shape.length - 1];
  return s.data[t * n + j];
}

function tokenRows<T>(m: ModelFile, f: (t: number, tok: string) => T): { rows: T[]; more: number } {
  const T = m.weights.T;
  const shown = Math.min(T, MAX_TOKENS);
  return { rows: Array.from({ length: shown }, (_, t) => f(t, m.tokens[t] ?? `t${t}`)), more: T - shown };
}

function table(head: string[], rows: string[][], more: number): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const lines = [`| ${head.map(esc).join(' | ')} |`, `|${head.map(() => '---:').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)];
  if (more > 0) lines.push('', `… and ${more} more token${more === 1 ? '' : 's'}`);
  return lines.join('\n');
}

/** Dead: zero for every token after the activation (ReLU-like), for one neuron. */
function isDead(act: Stage | undefined, j: number, T: number): boolean {
  if (!act) return false;
  const F = act.shape[1];
  for (let t = 0; t < T; t++) if (act.data[t * F + j] !== 0) return false;
  return true;
}

export function deadNeurons(c: Computed, layer: number): { dead: number; total: number } | null {
  const f = c.model.weights.layers[layer]?.ffn;
  const act = get(c, `layers.${layer}.ffn.act`);
  if (!f || !act) return null;
  let dead = 0;
  for (let j = 0; j < f.F; j++) if (isDead(act, j, c.model.weights.T)) dead++;
  return { dead, total: f.F };
}

function neuronTable(c: Computed, layer: number, j: number, contrib?: { label: string; value: (t: number) => number }): string {
  const m = c.model;
  const f = m.weights.layers[layer].ffn!;
  const p = `layers.${layer}.ffn.`;
  const up = get(c, p + 'up');
  const gate = get(c, p + 'gate');
  const act = get(c, p + 'act');
  const gated = isGated(f.activation);
  const aname = activationLabel(f.activation);
  const head = ['token', ...(contrib ? [contrib.label] : []), 'up (pre-act)', ...(gated ? ['gate'] : []), aname];
  const { rows, more } = tokenRows(m, (t, tok) => [tok, ...(contrib ? [fmt(contrib.value(t))] : []), fmt(col(up, t, j)), ...(gated ? [fmt(col(gate, t, j))] : []), fmt(col(act, t, j))]);
  let s = table(head, rows, more);
  if (f.activation === 'relu' || f.activation === 'reglu') {
    s += isDead(act, j, m.weights.T)
      ? `\n\nNeuron ${j} is **dead** for this input: 0 for every token after ${aname}.`
      : `\n\nNeuron ${j} fires for ${countNonzero(act, j, m.weights.T)} of ${plural(m.weights.T, 'token')}.`;
  }
  return s;
}

function countNonzero(act: Stage | undefined, j: number, T: number): number {
  let n = 0;
  for (let t = 0; t < T; t++) if (col(act, t, j) !== 0) n++;
  return n;
}

function headWeights(c: Computed, layer: number, h: number): string {
  const m = c.model;
  const w = get(c, `layers.${layer}.attn.weights`);
  if (!w) return '';
  const T = m.weights.T;
  const shown = Math.min(T, 6);
  const names = (i: number): string => m.tokens[i] ?? `t${i}`;
  const causal = m.weights.layers[layer].attention!.causal;
  const rows = Array.from({ length: shown }, (_, i) => [names(i), ...Array.from({ length: shown }, (_, k) => (causal && k > i ? '·' : fmt(w.data[(h * T + i) * T + k])))]);
  return `Head ${h}'s attention weights (row: query, column: key):\n\n${table(['', ...Array.from({ length: shown }, (_, k) => names(k))], rows, T - shown)}`;
}

/** Markdown for a hover at `offset`, or null when the place has nothing to say. */
export function hoverMarkdown(text: Source, c: Computed, offset: number): { markdown: string; start: number; end: number } | null {
  const hit = pathAt(text, c.root, offset);
  if (!hit || hit.path.length === 0) return null;
  const m = c.model;
  const w = m.weights;
  const usesLayers = !!child(c.root, 'layers');
  const role = roleOf(hit.path, w.layout, usesLayers);
  if (!role) return null;
  const where = formatPath(hit.path);
  const valueText = sourceSlice(text, hit.start, hit.end);
  const isNumber = /^-?\d/.test(valueText) && !hit.onKey;
  const head = isNumber ? `**${where} = ${valueText}**` : `**${where}**`;
  const body = describeRole(c, role, isNumber ? Number(valueText) : NaN);
  if (body === null) return null;
  const staleNote = c.stale ? '\n\n_Values from the last computation, before your latest edit._' : '';
  return { markdown: `${head} · ${body}${staleNote}`, start: hit.start, end: hit.end };
}

function describeRole(c: Computed, role: Role, value: number): string | null {
  const m = c.model;
  const w = m.weights;
  const T = w.T;
  switch (role.kind) {
    case 'weight': {
      const L = role.layer;
      const mm = matrixMeaning(role.param);
      if (role.param === 'W1' || role.param === 'Wg') {
        const F = w.layers[L]?.ffn?.F ?? 0;
        const x = get(c, ffnInputId(m, L));
        if (role.out === null) return `input dimension ${role.inp}'s weights into all ${F} neurons (layout in_out: a neuron is a column)`;
        const j = role.out;
        const what = role.inp === null
          ? `neuron ${j} (of ${F}): its ${role.param === 'W1' ? 'question' : 'gate'} to every token`
          : `weight from input dimension ${role.inp} into neuron ${j} (of ${F})`;
        const contrib = role.inp === null ? undefined : { label: `w × x[${role.inp}]`, value: (t: number) => Math.fround(value * col(x, t, role.inp!)) };
        return `${what} — layer ${L} ${mm.name}\n\n${neuronTable(c, L, j, contrib)}`;
      }
      if (role.param === 'W2') {
        const F = w.layers[L]?.ffn?.F ?? 0;
        const act = get(c, `layers.${L}.ffn.act`);
        const down = get(c, `layers.${L}.ffn.down`);
        if (role.inp === null) return `output dimension ${role.out}'s weights over the ${F} neurons`;
        const j = role.inp;
        if (role.out === null) return `neuron ${j}'s output direction (row ${j} of W2 in layout in_out): what it writes into every output dimension`;
        const i = role.out;
        const { rows, more } = tokenRows(m, (t, tok) => [tok, fmt(col(act, t, j)), fmt(Math.fround(col(act, t, j) * value)), fmt(col(down, t, i))]);
        return `weight from neuron ${j} into output dimension ${i} — column ${j} of W2 is neuron ${j}'s output direction (layer ${L} ${mm.name})\n\n${table(['token', `act of neuron ${j}`, `contribution to dim ${i}`, `down[${i}]`], rows, more)}`;
      }
      if (role.param === 'W') {
        const v = role.out;
        if (v === null) return `dimension ${role.inp}'s weights into every word`;
        return `the weights of the word "${m.vocab[v] ?? v}"${role.inp !== null ? `, from dimension ${role.inp}` : ''}\n\n${wordTable(c, v)}`;
      }
      // attention projections
      const a = w.layers[L]?.attention;
      if (!a) return null;
      const HS = w.C / a.heads;
      const unit = role.param === 'Wo' ? role.inp : role.out;
      const h = unit === null ? null : Math.floor(unit / HS);
      const what = role.out !== null && role.inp !== null
        ? `weight from ${mm.inUnit} ${role.inp} into ${mm.outUnit} ${role.out}`
        : role.out !== null ? `${mm.outUnit} ${role.out}` : `${mm.inUnit} ${role.inp}`;
      const headNote = h === null ? '' : ` — head ${h} (columns ${h * HS}…${(h + 1) * HS - 1})`;
      return `${what}, layer ${L} ${mm.name}${headNote}${h === null ? '' : `\n\n${headWeights(c, L, h)}`}`;
    }
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
        const down = get(c, `layers.${L}.ffn.down`);
        const { rows, more } = tokenRows(m, (t, tok) => [tok, fmt(col(down, t, i))]);
        return `bias of output dimension ${i} (layer ${L} down-projection)\n\n${table(['token', `down[${i}]`], rows, more)}`;
      }
      if (role.param === 'b') return `logit bias of "${m.vocab[i] ?? i}"\n\n${wordTable(c, i)}`;
      const a = w.layers[L]?.attention;
      if (!a) return null;
      const HS = w.C / a.heads;
      if (role.param === 'bo') return `bias of output dimension ${i} (layer ${L} attention output)`;
      const h = Math.floor(i / HS);
      return `bias of ${role.param === 'bq' ? 'query' : role.param === 'bk' ? 'key' : 'value'} dimension ${i}, layer ${L} — head ${h}\n\n${headWeights(c, L, h)}`;
    }
    case 'input': {
      const t = role.token;
      const tok = m.tokens[t] ?? `t${t}`;
      if (role.dim === null) return `the vector of token "${tok}" (row ${t})\n\n${tokenJourney(c, t, null)}`;
      return `token "${tok}" (row ${t}), dimension ${role.dim}\n\n${tokenJourney(c, t, role.dim)}`;
    }
    case 'input-matrix':
      return `the token vectors: ${plural(T, 'token')} × d_model ${w.C}`;
    case 'norm': {
      const id = role.which === 'ln_f' ? 'ln_f' : `layers.${role.layer}.${role.which}`;
      const s = get(c, id);
      if (role.index === null || !s) return `LayerNorm ${role.param}`;
      const { rows, more } = tokenRows(m, (t, tok) => [tok, fmt(col(s, t, role.index!))]);
      return `LayerNorm ${role.param} of dimension ${role.index} (${id})\n\n${table(['token', `${id}[${role.index}]`], rows, more)}`;
    }
    case 'token-label':
      return `label of token ${role.token}\n\n${tokenJourney(c, role.token, null)}`;
    case 'vocab':
      return `vocabulary word ${role.index}\n\n${wordTable(c, role.index)}`;
    case 'sublayer': {
      if (role.what === 'ffn') {
        const f = w.layers[role.layer]?.ffn;
        if (!f) return null;
        const d = deadNeurons(c, role.layer);
        return `layer ${role.layer} FFN: ${w.C} → ${f.F} → ${w.C}, ${activationLabel(f.activation)}${d && (f.activation === 'relu' || f.activation === 'reglu') ? `; ${d.dead} of ${d.total} neurons dead for this input` : ''}`;
      }
      const a = w.layers[role.layer]?.attention;
      return a ? `layer ${role.layer} self-attention: ${a.heads} head${a.heads === 1 ? '' : 's'} of width ${w.C / a.heads}${a.causal ? ', causal' : ''}` : null;
    }
  }
}

function matrixShapeNote(c: Computed, param: MatrixParam, layer: number): string {
  const w = c.model.weights;
  const C = w.C;
  const F = layer >= 0 ? w.layers[layer]?.ffn?.F ?? 0 : 0;
  const V = w.head?.V ?? 0;
  const [o, i] = param === 'W1' || param === 'Wg' ? [F, C] : param === 'W2' ? [C, F] : param === 'W' ? [V, C] : [C, C];
  const [r, cc] = w.layout === 'out_in' ? [o, i] : [i, o];
  return ` · [${r} × ${cc}] (layout ${w.layout})`;
}

function wordTable(c: Computed, v: number): string {
  const m = c.model;
  const logits = get(c, 'head.logits');
  const probs = get(c, 'head.probs');
  const { rows, more } = tokenRows(m, (t, tok) => [tok, fmt(col(logits, t, v)), `${(col(probs, t, v) * 100).toFixed(1)}%`]);
  return table(['after token', 'logit', 'probability'], rows, more);
}

/** A token's row at each stage after the input: min/max, and the value at one dimension. */
function tokenJourney(c: Computed, t: number, dim: number | null): string {
  const rows: string[][] = [];
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
    const atDim = dim !== null && n === c.model.weights.C ? fmt(row[dim]) : '';
    rows.push([s.id, ...(dim !== null ? [atDim] : []), fmt(lo), fmt(hi)]);
  }
  const shown = rows.slice(0, 14);
  let s = table(['stage', ...(dim !== null ? [`dim ${dim}`] : []), 'min', 'max'], shown, 0);
  if (rows.length > shown.length) s += `\n\n… and ${rows.length - shown.length} more stages`;
  return s;
}

// --- lenses -------------------------------------------------------------------------------------

const LENS_MATRICES: MatrixParam[] = ['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'Wg', 'W2'];

export function lenses(c: Computed): Lens[] {
  const m = c.model;
  const w = m.weights;
  const out: Lens[] = [];
  const keyRange = (path: PathSegment[]): { start: number; end: number } | null => {
    const parent = nodeAt(c.root, path.slice(0, -1));
    if (!parent || parent.kind !== 'object') return null;
    const p = [...parent.props].reverse().find((x) => x.key === path[path.length - 1]);
    return p ? { start: p.keyStart, end: p.keyEnd } : null;
  };
  const inputAt = keyRange(['input']);
  if (inputAt) out.push({ ...inputAt, title: `input · ${plural(w.T, 'token')} × d_model ${w.C}` });
  w.layers.forEach((L, i) => {
    const base = layerPath(c.root, i);
    if (L.ffn) {
      const at = keyRange([...base, 'ffn']);
      const d = deadNeurons(c, i);
      if (at) out.push({ ...at, title: `Visualize layer ${i} FFN${d && (L.ffn.activation === 'relu' || L.ffn.activation === 'reglu') ? ` · ${d.dead} of ${d.total} neurons dead` : ''}`, visualize: `layers.${i}.ffn.up` });
    }
    for (const param of LENS_MATRICES) {
      const sub = param === 'W1' || param === 'Wg' || param === 'W2' ? 'ffn' : 'attention';
      const at = keyRange([...base, sub, param]);
      if (!at) continue;
      const shape = lensShape(w.layout, param, w.C, L.ffn?.F ?? 0);
      const params = shape[0] * shape[1];
      let title = `${param} · ${matrixMeaning(param).name} · [${shape[0]} × ${shape[1]}] · ${params.toLocaleString('en-US')} params`;
      if (sub === 'ffn' && L.ffn && (L.ffn.activation === 'relu' || L.ffn.activation === 'reglu')) {
        const d = deadNeurons(c, i);
        if (d) title += ` · ${d.dead} dead neuron${d.dead === 1 ? '' : 's'}`;
      }
      out.push({ ...at, title });
    }
  });
  if (w.head) {
    const at = keyRange(['head', 'W']);
    if (at) {
      const [r, cc] = w.layout === 'out_in' ? [w.head.V, w.C] : [w.C, w.head.V];
      out.push({ ...at, title: `W · unembedding · [${r} × ${cc}] · ${(r * cc).toLocaleString('en-US')} params` });
    }
  }
  return out;
}

function lensShape(layout: 'out_in' | 'in_out', param: MatrixParam, C: number, F: number): [number, number] {
  const [o, i] = param === 'W1' || param === 'Wg' ? [F, C] : param === 'W2' ? [C, F] : [C, C];
  return layout === 'out_in' ? [o, i] : [i, o];
}

// --- the panel follows the cursor ------------------------------------------------------------------

export function cursorTarget(text: Source, c: Computed, offset: number): CursorTarget | null {
  const hit = pathAt(text, c.root, offset);
  if (!hit) return null;
  const w = c.model.weights;
  const role = roleOf(hit.path, w.layout, !!child(c.root, 'layers'));
  if (!role) return null;
  let neuron: { layer: number; j: number } | null = null;
  if (role.kind === 'weight' && (role.param === 'W1' || role.param === 'Wg') && role.out !== null) neuron = { layer: role.layer, j: role.out };
  else if (role.kind === 'weight' && role.param === 'W2' && role.inp !== null) neuron = { layer: role.layer, j: role.inp };
  else if (role.kind === 'bias' && (role.param === 'b1' || role.param === 'bg') && role.index !== null) neuron = { layer: role.layer, j: role.index };
  if (neuron) {
    const f = w.layers[neuron.layer]?.ffn;
    const act = c.stages.get(`layers.${neuron.layer}.ffn.act`);
    if (!f || neuron.j >= f.F) return null;
    const writes = act ? neuronWrites(act.data, f.W2, w.layout, w.T, w.C, f.F, neuron.j) : undefined;
    return { target: { kind: 'neuron', layer: neuron.layer, index: neuron.j }, ...(writes ? { writes: { data: writes, shape: [w.T, w.C] } } : {}) };
  }
  if ((role.kind === 'input' || role.kind === 'token-label') && role.token < w.T) return { target: { kind: 'token', index: role.token } };
  if (role.kind === 'weight' && role.param === 'W2' && role.out !== null) return { target: { kind: 'dim', layer: role.layer, index: role.out } };
  if (role.kind === 'bias' && role.param === 'b2' && role.index !== null) return { target: { kind: 'dim', layer: role.layer, index: role.index } };
  return null;
}

// out (T,C): act[t, j] · W2[:, j]
function neuronWrites(act: Float32Array, W2: Float32Array, layout: 'out_in' | 'in_out', T: number, C: number, F: number, j: number): Float32Array {
  const out = new Float32Array(T * C);
  for (let i = 0; i < C; i++) {
    const wij = layout === 'out_in' ? W2[i * F + j] : W2[j * C + i];
    for (let t = 0; t < T; t++) out[t * C + i] = act[t * F + j] * wij;
  }
  return out;
}

// --- warnings only the computed stages can give ---------------------------------------------------------

export interface RuntimeProblem {
  readonly code: 'dead-neurons' | 'nan' | 'masked-row';
  readonly message: string;
  readonly path: PathSegment[];
  readonly start: number;
  readonly end: number;
}

export function runtimeProblems(c: Computed): RuntimeProblem[] {
  const m = c.model;
  const w = m.weights;
  const out: RuntimeProblem[] = [];
  const keyAt = (path: PathSegment[]): { start: number; end: number } => {
    const parent = nodeAt(c.root, path.slice(0, -1));
    const p = parent?.kind === 'object' ? [...parent.props].reverse().find((x) => x.key === path[path.length - 1]) : undefined;
    return p ? { start: p.keyStart, end: p.keyEnd } : { start: 0, end: 1 };
  };
  // NaN or ±∞: the first stage that has one, and why.
  for (const s of c.stages.values()) {
    let bad = -1;
    for (let i = 0; i < s.data.length; i++) {
      if (!Number.isFinite(s.data[i])) {
        bad = i;
        break;
      }
    }
    if (bad < 0) continue;
    const layer = /^layers\.(\d+)\./.exec(s.id);
    const path: PathSegment[] = layer ? [...layerPath(c.root, Number(layer[1])), s.id.includes('.attn.') ? 'attention' : s.id.includes('.ffn.') ? 'ffn' : 'input'] : ['input'];
    const v = s.data[bad];
    const why = Number.isNaN(v)
      ? 'a value overflowed float32 earlier (∞ − ∞ or ∞ · 0 gives NaN)'
      : `a value exceeded float32's range (±3.4e38): the inputs or weights are too large`;
    const at = keyAt(path.length ? path : ['input']);
    out.push({ code: 'nan', path, ...at, message: `${Number.isNaN(v) ? 'NaN' : 'Infinity'} produced in stage ${s.id} (first at index ${bad}): ${why}` });
    break;
  }
  w.layers.forEach((L, i) => {
    const base = layerPath(c.root, i);
    if (L.ffn && (L.ffn.activation === 'relu' || L.ffn.activation === 'reglu')) {
      const d = deadNeurons(c, i);
      if (d && d.dead === d.total) {
        out.push({ code: 'dead-neurons', path: [...base, 'ffn'], ...keyAt([...base, 'ffn']), message: `every neuron of layer ${i}'s FFN is dead for this input: ${activationLabel(L.ffn.activation)} gives 0 for all ${d.total} neurons and every token, so the FFN adds only b2` });
      }
    }
    if (L.attention) {
      const wts = c.stages.get(`layers.${i}.attn.weights`);
      if (!wts) return;
      const T = w.T;
      for (let h = 0; h < L.attention.heads; h++) {
        for (let q = 0; q < T; q++) {
          let sum = 0;
          for (let k = 0; k < T; k++) sum += wts.data[(h * T + q) * T + k];
          if (sum === 0) {
            out.push({ code: 'masked-row', path: [...base, 'attention'], ...keyAt([...base, 'attention']), message: `head ${h}, token "${m.tokens[q]}": every key is masked or its scores are −∞, so the attention row is all zeros` });
            return;
          }
        }
      }
    }
  });
  return out;
}

/** "1 token", "5 tokens". */
function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
