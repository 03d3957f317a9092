// The generator's options (generate.ts): the presets, and every option checked with its default
// filled in.

import { ACTIVATIONS, type Activation } from '../core/activation';

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
export interface ResolvedOptions {
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
export function resolveOptions(opts: GenerateOptions = {}): ResolvedOptions {
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
