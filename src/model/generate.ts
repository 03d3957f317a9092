// Model files with seeded random weights, from a tiny teaching block to one GPT-2-small block.
//
// The text is made as real exported weights look: every matrix row on its own indented line
// (so the incremental parser, hovers and lenses find one row per line), numbers printed with a
// fixed number of significant digits and no exponent unless a value needs one. It is produced
// in chunks by a generator, so an 80 MB file is written to disk without ever being one string,
// and the same options and seed give the same bytes on every machine.
//
// Each tensor draws from its own stream, seeded by (seed, tensor path): changing seq changes
// the input only, adding a head leaves the block's weights as they were.
//
// Initialization (GPT-2-like, scaled so activations stay near unit size):
//   weight matrices  N(0, 1/fan_in)        (std 1/sqrt of the matrix's input size)
//   biases           N(0, 0.02^2)
//   LayerNorm        gamma = 1 + N(0, 0.05^2), beta N(0, 0.02^2)
//   input            N(0, 1)
//
// Pure TypeScript, no `vscode`: used by the "New Model File" command and by the tests.

import { ACTIVATIONS, isGated, type Activation } from '../core/activation';
import type { ParamCounts } from '../core/paramCounts';

export type PresetId = 'tiny' | 'd64' | 'd256' | 'd512' | 'gpt2-small';

export interface GenerateOptions {
  /** Start from a preset (default 'tiny'); any explicit dimension below overrides it. */
  readonly preset?: PresetId;
  readonly seq?: number;
  readonly dModel?: number;
  readonly dFf?: number;
  readonly heads?: number;
  readonly layers?: number;
  readonly activation?: Activation;
  readonly causal?: boolean;
  /** Prediction head: a vocabulary size (words "v0", "v1", …), the words themselves, or 0 for none. */
  readonly vocab?: number | readonly string[];
  /** One label per input row; default the preset's (tiny: a short sentence), else "t0", "t1", …. */
  readonly tokens?: readonly string[];
  /** A whole number 0 … 2^32−1; default 1. */
  readonly seed?: number;
  /** Significant digits of every number, 1 … 17; default 6. */
  readonly digits?: number;
  /** The file's "name"; default "<preset> block (random, seed N)". */
  readonly name?: string;
}

/** Options with every default filled in and checked. */
export interface ModelSpec {
  readonly preset: PresetId | null;
  readonly seq: number;
  readonly dModel: number;
  readonly dFf: number;
  readonly heads: number;
  readonly layers: number;
  readonly activation: Activation;
  readonly causal: boolean;
  /** Empty: no head. */
  readonly vocab: readonly string[];
  readonly tokens: readonly string[];
  readonly seed: number;
  readonly digits: number;
  readonly name: string;
}

export interface PresetInfo {
  readonly id: PresetId;
  readonly label: string;
  readonly detail: string;
  readonly options: Required<Pick<GenerateOptions, 'seq' | 'dModel' | 'dFf' | 'heads' | 'layers' | 'activation' | 'causal'>> & {
    readonly vocab: readonly string[];
    readonly tokens?: readonly string[];
  };
}

const TINY_TOKENS = ['the', 'cat', 'sat', 'on'];
const TINY_VOCAB = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'dog', 'ran'];

const block = (seq: number, dModel: number, heads: number, dFf: number) =>
  ({ seq, dModel, dFf, heads, layers: 1, activation: 'gelu' as Activation, causal: true, vocab: [] as readonly string[] });

export const PRESETS: readonly PresetInfo[] = [
  {
    id: 'tiny', label: 'Tiny, with a head',
    detail: 'Small enough to read every number: 4 tokens ("the cat sat on"), GELU, a final norm and a head over 8 words.',
    options: { ...block(4, 8, 2, 32), vocab: TINY_VOCAB, tokens: TINY_TOKENS },
  },
  { id: 'd64', label: 'd64', detail: '32 tokens. A small block: every neuron is its own heatmap column.', options: block(32, 64, 4, 256) },
  { id: 'd256', label: 'd256', detail: '32 tokens. A mid-size block, still quick to edit.', options: block(32, 256, 4, 1024) },
  { id: 'd512', label: 'd512', detail: '32 tokens. The width of the base Transformer (Attention Is All You Need).', options: block(32, 512, 8, 2048) },
  { id: 'gpt2-small', label: 'GPT-2 small', detail: '32 tokens. One block the size of GPT-2 small\'s (124M in all): 12 heads of 64. Over 50 MB: the panel reads it from disk.', options: block(32, 768, 12, 3072) },
];

export function presetInfo(id: PresetId): PresetInfo {
  const p = PRESETS.find((x) => x.id === id);
  if (!p) throw new RangeError(`unknown preset "${id}"; the presets are ${PRESETS.map((x) => x.id).join(', ')}`);
  return p;
}

// --- options -----------------------------------------------------------------------------------

function wholeNumber(name: string, v: number, min: number, max = 1 << 30): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`${name} must be a whole number from ${min} to ${max}, not ${v}`);
  return v;
}

/** Fills in the defaults and checks every option; throws a RangeError saying what is wrong. */
export function resolveOptions(opts: GenerateOptions = {}): ModelSpec {
  const p = presetInfo(opts.preset ?? 'tiny').options;
  const seq = wholeNumber('seq', opts.seq ?? p.seq, 1, 1 << 16);
  const dModel = wholeNumber('dModel', opts.dModel ?? p.dModel, 1, 1 << 16);
  const dFf = wholeNumber('dFf', opts.dFf ?? p.dFf, 1, 1 << 18);
  const heads = wholeNumber('heads', opts.heads ?? p.heads, 1, dModel);
  if (dModel % heads !== 0) throw new RangeError(`heads = ${heads} does not divide dModel = ${dModel}`);
  const layers = wholeNumber('layers', opts.layers ?? p.layers, 1, 1024);
  const activation = opts.activation ?? p.activation;
  if (!ACTIVATIONS.includes(activation)) throw new RangeError(`activation must be one of ${ACTIVATIONS.join(', ')}, not "${String(activation)}"`);
  const causal = opts.causal ?? p.causal;
  const seed = wholeNumber('seed', opts.seed ?? 1, 0, 0xffffffff);
  const digits = wholeNumber('digits', opts.digits ?? 6, 1, 17);

  let vocab: readonly string[];
  if (opts.vocab === undefined) vocab = p.vocab;
  else if (typeof opts.vocab === 'number') vocab = Array.from({ length: wholeNumber('vocab', opts.vocab, 0, 1 << 20) }, (_, i) => `v${i}`);
  else vocab = [...opts.vocab];

  let tokens: readonly string[];
  if (opts.tokens) {
    if (opts.tokens.length !== seq) throw new RangeError(`tokens has ${opts.tokens.length} labels but seq is ${seq}: give one per input row`);
    tokens = [...opts.tokens];
  } else if (p.tokens && p.tokens.length === seq) tokens = p.tokens;
  else tokens = Array.from({ length: seq }, (_, i) => `t${i}`);

  // Once a dimension is given, the file is no longer the preset's: its header and name say so.
  const dimsGiven = [opts.seq, opts.dModel, opts.dFf, opts.heads, opts.layers].some((v) => v !== undefined);
  const preset = dimsGiven ? null : (opts.preset ?? 'tiny');
  const name = opts.name ?? `${preset ?? `d${dModel}`} block (random, seed ${seed})`;
  return { preset, seq, dModel, dFf, heads, layers, activation, causal, vocab, tokens, seed, digits, name };
}

export function countParams(spec: ModelSpec): ParamCounts {
  const C = spec.dModel;
  const F = spec.dFf;
  const L = spec.layers;
  const V = spec.vocab.length;
  const attention = L * (4 * C * C + 4 * C);
  const ffn = L * (2 * C * F + F + C + (isGated(spec.activation) ? C * F + F : 0));
  const norm = L * 4 * C + (V > 0 ? 2 * C : 0);
  const head = V > 0 ? V * C : 0;
  return { attention, ffn, norm, head, total: attention + ffn + norm + head };
}

// --- random numbers ----------------------------------------------------------------------------

/** FNV-1a, 32 bits: the seed of one tensor's stream from (seed, its path). */
function hashSeed(seed: number, path: string): number {
  let h = 0x811c9dc5 ^ seed;
  h = Math.imul(h, 0x01000193);
  for (let i = 0; i < path.length; i++) {
    h ^= path.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Normal numbers: mulberry32 uniforms through Box–Muller (both values of each pair used). */
class Normal {
  private a: number;
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number, path: string) {
    this.a = hashSeed(seed, path);
  }

  private uniform(): number {
    this.a = (this.a + 0x6d2b79f5) | 0;
    let t = Math.imul(this.a ^ (this.a >>> 15), 1 | this.a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  next(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    const r = Math.sqrt(-2 * Math.log(1 - this.uniform())); // 1 − u ∈ (0, 1]: no log(0)
    const th = 2 * Math.PI * this.uniform();
    this.spare = r * Math.sin(th);
    this.hasSpare = true;
    return r * Math.cos(th);
  }
}

// --- numbers as text ---------------------------------------------------------------------------

/**
 * x with `digits` significant digits, trailing zeros trimmed, and no exponent unless |x| ≥ 1e21:
 * 0.0441234, -1.5, 0.000000123 (not 1.23e-7).
 */
export function formatNumber(x: number, digits: number): string {
  if (x === 0 || !Number.isFinite(x)) return x === 0 ? '0' : String(x);
  let s = x.toPrecision(digits);
  if (s.indexOf('e') >= 0) {
    const v = Number(s);
    const a = Math.abs(v);
    if (a >= 1e21) return String(v);
    if (a >= 1) return String(v); // 1e6 ≤ |v| < 1e21: String() writes every digit
    s = v.toFixed(Math.min(100, digits - 1 - Math.floor(Math.log10(a))));
  }
  if (s.indexOf('.') < 0) return s;
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--; // '0'
  if (s.charCodeAt(end - 1) === 46) end--; // '.'
  return end === s.length ? s : s.slice(0, end);
}

// --- the text ----------------------------------------------------------------------------------

/** Roughly how many characters of text are gathered before a chunk is handed out. */
const CHUNK = 1 << 20;

interface Dist { readonly mean: number; readonly std: number }
const BIAS: Dist = { mean: 0, std: 0.02 };
const GAMMA: Dist = { mean: 1, std: 0.05 };
const BETA: Dist = { mean: 0, std: 0.02 };
const fanIn = (n: number): Dist => ({ mean: 0, std: 1 / Math.sqrt(n) });

/** The tensors of the file, in file order, with the indentation of their key. */
type Item =
  | { kind: 'line'; text: string }
  | { kind: 'matrix'; key: string; path: string; rows: number; cols: number; dist: Dist; indent: string; last: boolean }
  | { kind: 'vector'; key: string; path: string; length: number; dist: Dist; indent: string; last: boolean };

function json(s: string): string {
  return JSON.stringify(s);
}

function plan(spec: ModelSpec): Item[] {
  const items: Item[] = [];
  const line = (text: string): void => {
    items.push({ kind: 'line', text });
  };
  const C = spec.dModel;
  const F = spec.dFf;
  const hasHead = spec.vocab.length > 0;
  line('{');
  line(`  "version": 1,`);
  line(`  "name": ${json(spec.name)},`);
  line(`  "layout": "out_in",`);
  line(`  "norm": "pre",`);
  line(`  "residual": true,`);
  if (hasHead) line(`  "final_norm": true,`);
  line(`  "tokens": [${spec.tokens.map(json).join(', ')}],`);
  items.push({ kind: 'matrix', key: 'input', path: 'input', rows: spec.seq, cols: C, dist: { mean: 0, std: 1 }, indent: '  ', last: false });

  const shorthand = spec.layers === 1;
  if (!shorthand) line(`  "layers": [`);
  for (let l = 0; l < spec.layers; l++) {
    const ind = shorthand ? '  ' : '    ';
    const p = `layers.${l}.`;
    const lastLayer = l === spec.layers - 1;
    if (!shorthand) line('    {');
    const ln = (key: 'ln1' | 'ln2'): void => {
      line(`${ind}"${key}": {`);
      items.push({ kind: 'vector', key: 'gamma', path: p + key + '.gamma', length: C, dist: GAMMA, indent: ind + '  ', last: false });
      items.push({ kind: 'vector', key: 'beta', path: p + key + '.beta', length: C, dist: BETA, indent: ind + '  ', last: true });
      line(`${ind}},`);
    };
    ln('ln1');
    line(`${ind}"attention": {`);
    line(`${ind}  "heads": ${spec.heads},`);
    line(`${ind}  "causal": ${spec.causal},`);
    for (const k of ['q', 'k', 'v', 'o']) {
      items.push({ kind: 'matrix', key: `W${k}`, path: `${p}attention.W${k}`, rows: C, cols: C, dist: fanIn(C), indent: ind + '  ', last: false });
      items.push({ kind: 'vector', key: `b${k}`, path: `${p}attention.b${k}`, length: C, dist: BIAS, indent: ind + '  ', last: k === 'o' });
    }
    line(`${ind}},`);
    ln('ln2');
    line(`${ind}"ffn": {`);
    line(`${ind}  "activation": ${json(spec.activation)},`);
    const fi = ind + '  ';
    items.push({ kind: 'matrix', key: 'W1', path: p + 'ffn.W1', rows: F, cols: C, dist: fanIn(C), indent: fi, last: false });
    items.push({ kind: 'vector', key: 'b1', path: p + 'ffn.b1', length: F, dist: BIAS, indent: fi, last: false });
    if (isGated(spec.activation)) {
      items.push({ kind: 'matrix', key: 'Wg', path: p + 'ffn.Wg', rows: F, cols: C, dist: fanIn(C), indent: fi, last: false });
      items.push({ kind: 'vector', key: 'bg', path: p + 'ffn.bg', length: F, dist: BIAS, indent: fi, last: false });
    }
    items.push({ kind: 'matrix', key: 'W2', path: p + 'ffn.W2', rows: C, cols: F, dist: fanIn(F), indent: fi, last: false });
    items.push({ kind: 'vector', key: 'b2', path: p + 'ffn.b2', length: C, dist: BIAS, indent: fi, last: true });
    const closeLast = shorthand ? !hasHead : true;
    line(`${ind}}${closeLast ? '' : ','}`);
    if (!shorthand) line(`    }${lastLayer ? '' : ','}`);
  }
  if (!shorthand) line(`  ]${hasHead ? ',' : ''}`);
  if (hasHead) {
    line(`  "ln_f": {`);
    items.push({ kind: 'vector', key: 'gamma', path: 'ln_f.gamma', length: C, dist: GAMMA, indent: '    ', last: false });
    items.push({ kind: 'vector', key: 'beta', path: 'ln_f.beta', length: C, dist: BETA, indent: '    ', last: true });
    line(`  },`);
    line(`  "head": {`);
    line(`    "vocab": [${spec.vocab.map(json).join(', ')}],`);
    items.push({ kind: 'matrix', key: 'W', path: 'head.W', rows: spec.vocab.length, cols: C, dist: fanIn(C), indent: '    ', last: true });
    line(`  }`);
  }
  line('}');
  return items;
}

function header(spec: ModelSpec): string {
  const n = countParams(spec);
  const fmt = (x: number): string => x.toLocaleString('en-US');
  const what = spec.preset ? `preset "${spec.preset}"` : 'custom dimensions';
  const hasHead = spec.vocab.length > 0;
  const gated = isGated(spec.activation);
  const lines = [
    spec.name.replace(/[\r\n\u2028\u2029]+/g, ' '),
    `Generated by FFN Lens (command "FFN Lens: New Model File"), ${what}, seed ${spec.seed}.`,
    `The same preset and seed give this file byte for byte.`,
    ``,
    `seq ${spec.seq}, d_model ${spec.dModel}, ${spec.heads} head${spec.heads === 1 ? '' : 's'} (d_head ${spec.dModel / spec.heads}), d_ff ${spec.dFf}, ` +
      `${spec.layers} layer${spec.layers === 1 ? '' : 's'}; ${spec.activation}, pre-LayerNorm, residual, ${spec.causal ? 'causal' : 'not causal'}` +
      `${hasHead ? `; final LayerNorm and a head over ${spec.vocab.length} words` : ''}.`,
    `${fmt(n.total)} parameters: attention ${fmt(n.attention)}, ffn ${fmt(n.ffn)}, norm ${fmt(n.norm)}${hasHead ? `, head ${fmt(n.head)}` : ''}.`,
    ``,
    `The weights are random and untrained (GPT-2-like init): each matrix N(0, 1/fan_in), biases`,
    `N(0, 0.02^2), LayerNorm gamma 1 + N(0, 0.05^2) and beta N(0, 0.02^2), input rows N(0, 1).`,
    `The predictions mean nothing; the flow of the numbers through the block is the point.`,
    `Matrices are [out][in] ("layout": "out_in", as torch.nn.Linear.weight), one row per line.`,
    ``,
    `What to try:`,
    `  - "FFN Lens: Visualize FFN" and follow input -> ln1 -> attn -> ln2 -> ffn -> out.`,
    spec.causal
      ? `  - layers.0.attn.weights is lower-triangular because "causal" is true: set it to false.`
      : `  - Set "causal": true and layers.0.attn.weights turns lower-triangular: no token sees the future.`,
    gated
      ? `  - ffn.act = ${spec.activation}(gate) * up: change "activation" to "gelu" and drop Wg, bg.`
      : spec.activation === 'relu'
        ? `  - Change "activation" to "gelu" and ffn.act keeps a little of its negative half; "linear" makes the FFN one matrix.`
        : `  - Change "activation" to "relu" and ffn.act loses its negative half; "linear" makes the FFN one matrix.`,
    `  - Edit a number of "input" (row 0, say) and watch which stages change, and which rows.`,
    `  - Set "residual": false, or "norm": "post", and compare the scale of layers.0.out.`,
  ];
  if (hasHead) lines.push(`  - head.probs: each row is the prediction for the word after that token.`);
  return lines.map((l) => (l ? `// ${l}` : '//')).join('\n') + '\n';
}

/**
 * The model file's text, in chunks of about 1 MB (the last one smaller), in order. Concatenated,
 * they are exactly `generateModelText(opts)`. Throws a RangeError on bad options, before any chunk.
 */
export function* modelChunks(opts: GenerateOptions = {}, chunkChars = CHUNK): Generator<string, void, undefined> {
  const spec = resolveOptions(opts);
  const P = spec.digits;
  let parts: string[] = [header(spec)];
  let size = parts[0].length;
  for (const it of plan(spec)) {
    if (it.kind === 'line') {
      parts.push(it.text + '\n');
      size += it.text.length + 1;
      continue;
    }
    const rng = new Normal(spec.seed, it.path);
    const { mean, std } = it.dist;
    const tail = it.last ? '\n' : ',\n';
    // One array of number strings per row, joined: far faster than += on long rows.
    const numbers = (n: number): string => {
      const row = new Array<string>(n);
      for (let j = 0; j < n; j++) row[j] = formatNumber(mean + std * rng.next(), P);
      return row.join(', ');
    };
    if (it.kind === 'vector') {
      const s = `${it.indent}"${it.key}": [${numbers(it.length)}]${tail}`;
      parts.push(s);
      size += s.length;
    } else {
      const head = `${it.indent}"${it.key}": [\n`;
      parts.push(head);
      size += head.length;
      const rowIndent = it.indent + '  ';
      for (let i = 0; i < it.rows; i++) {
        const s = rowIndent + '[' + numbers(it.cols) + (i === it.rows - 1 ? ']\n' : '],\n');
        parts.push(s);
        size += s.length;
        if (size >= chunkChars) {
          yield parts.join('');
          parts = [];
          size = 0;
        }
      }
      const end = `${it.indent}]${tail}`;
      parts.push(end);
      size += end.length;
    }
    if (size >= chunkChars) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield parts.join('');
}

/** Streams the model file's text to `sink`, chunk by chunk (see modelChunks). */
export function writeModel(opts: GenerateOptions, sink: (chunk: string) => void): void {
  for (const chunk of modelChunks(opts)) sink(chunk);
}

/** The whole model file as one string. For big presets prefer modelChunks / writeModel. */
export function generateModelText(opts: GenerateOptions = {}): string {
  return [...modelChunks(opts)].join('');
}

// --- sizes -------------------------------------------------------------------------------------

/** Average characters a number of this distribution takes, with its ", " (sampled, cached). */
const perNumber = new Map<string, number>();
function charsPerNumber(dist: Dist, digits: number): number {
  const key = `${dist.mean}/${dist.std}/${digits}`;
  let v = perNumber.get(key);
  if (v === undefined) {
    const rng = new Normal(0, key);
    const n = 4096;
    let chars = 0;
    for (let i = 0; i < n; i++) chars += formatNumber(dist.mean + dist.std * rng.next(), digits).length + 2;
    v = chars / n;
    perNumber.set(key, v);
  }
  return v;
}

/** The file's size in bytes, estimated within about 1% without generating it. */
export function estimateBytes(opts: GenerateOptions = {}): number {
  const spec = resolveOptions(opts);
  const utf8 = new TextEncoder();
  let bytes = utf8.encode(header(spec)).length;
  for (const it of plan(spec)) {
    if (it.kind === 'line') bytes += utf8.encode(it.text).length + 1;
    else if (it.kind === 'vector') bytes += it.indent.length + it.key.length + 8 + it.length * charsPerNumber(it.dist, spec.digits);
    else bytes += 2 * it.indent.length + it.key.length + 10 + it.rows * (it.indent.length + 6 + it.cols * charsPerNumber(it.dist, spec.digits));
  }
  return Math.round(bytes);
}

/** "35 MB", "410 KB": decimal units, as file managers show sizes. */
export function formatBytes(n: number): string {
  if (n >= 1e6) return `${n >= 1e7 ? Math.round(n / 1e6) : (n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} KB`;
  return `${n} B`;
}

/** "3.1M", "94.5K", "712": parameter counts as model cards write them. */
export function formatCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

/** A preset's one-line description: "d_model 512 · 8 heads · d_ff 2048 · 37 MB · 3.2M params". */
export function describePreset(id: PresetId): string {
  const spec = resolveOptions({ preset: id });
  const parts = [
    `d_model ${spec.dModel}`, `${spec.heads} heads`, `d_ff ${spec.dFf}`,
    formatBytes(estimateBytes({ preset: id })), `${formatCount(countParams(spec).total)} params`,
  ];
  return parts.join(' · ');
}
