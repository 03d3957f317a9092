// The model file format, version 1, as data: the keys each object may hold, their types,
// defaults and meaning. The reader checks unknown keys against it, and the JSON schema that
// VS Code's own JSON support uses is generated from it, so the two cannot drift.

import { ACTIVATIONS } from '../core/activation';

export type FieldType =
  | 'integer' | 'number' | 'boolean' | 'string' | 'enum'
  | 'matrix' | 'vector' | 'strings' | 'object' | 'objects';

export interface FieldSpec {
  readonly type: FieldType;
  readonly description: string;
  readonly values?: readonly string[];
  readonly default?: string | number | boolean;
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly required?: boolean;
  readonly fields?: Readonly<Record<string, FieldSpec>>;
}

export type Fields = Readonly<Record<string, FieldSpec>>;

const matrix = (description: string): FieldSpec => ({ type: 'matrix', description });
const vector = (description: string): FieldSpec => ({ type: 'vector', description });

export const LAYERNORM_FIELDS: Fields = {
  gamma: vector('Scale, one per dimension (d_model). Default: ones.'),
  beta: vector('Shift, one per dimension (d_model). Default: zeros.'),
  eps: { type: 'number', exclusiveMinimum: 0, default: 1e-5, description: 'Added to the variance before the square root. Default 1e-5, as torch.nn.LayerNorm.' },
};

export const ATTENTION_FIELDS: Fields = {
  heads: { type: 'integer', minimum: 1, default: 1, description: 'Number of heads; must divide d_model. Head h uses columns h·d_head … (h+1)·d_head−1 of Q, K and V.' },
  causal: { type: 'boolean', default: false, description: 'Mask the future: a token attends only to itself and the tokens before it.' },
  Wq: matrix('Query projection, d_model × d_model. Missing: the identity.'),
  bq: vector('Query bias (d_model). Missing: zeros.'),
  Wk: matrix('Key projection, d_model × d_model. Missing: the identity.'),
  bk: vector('Key bias (d_model). Missing: zeros.'),
  Wv: matrix('Value projection, d_model × d_model. Missing: the identity.'),
  bv: vector('Value bias (d_model). Missing: zeros.'),
  Wo: matrix('Output projection, d_model × d_model. Missing: the identity.'),
  bo: vector('Output bias (d_model). Missing: zeros.'),
};

export const FFN_FIELDS: Fields = {
  activation: { type: 'enum', values: ACTIVATIONS, default: 'relu', description: 'relu, gelu (exact, with erf), gelu_tanh, silu, linear (no activation), or the gated swiglu, geglu, reglu (which need Wg).' },
  W1: { ...matrix('Up-projection d_model → d_ff: [d_ff][d_model] in layout out_in, [d_model][d_ff] in in_out.'), required: true },
  b1: vector('Up-projection bias (d_ff). Missing: zeros.'),
  Wg: matrix('Gate projection d_model → d_ff, gated activations only; same shape as W1.'),
  bg: vector('Gate bias (d_ff). Missing: zeros.'),
  W2: { ...matrix('Down-projection d_ff → d_model: [d_model][d_ff] in layout out_in, [d_ff][d_model] in in_out.'), required: true },
  b2: vector('Down-projection bias (d_model). Missing: zeros.'),
};

export const HEAD_FIELDS: Fields = {
  W: { ...matrix('Unembedding d_model → vocab: [vocab][d_model] in layout out_in, [d_model][vocab] in in_out.'), required: true },
  b: vector('Logit bias (vocab). Missing: zeros.'),
  vocab: { type: 'strings', description: 'One word per output row, shown on the probability bars. Default: "v0", "v1", …' },
  temperature: { type: 'number', exclusiveMinimum: 0, default: 1, description: 'probs = softmax(logits / temperature). Below 1 sharpens, above 1 flattens.' },
};

export const LAYER_FIELDS: Fields = {
  attention: { type: 'object', fields: ATTENTION_FIELDS, description: 'Multi-head self-attention sublayer (runs before the FFN).' },
  ffn: { type: 'object', fields: FFN_FIELDS, description: 'Feed-forward sublayer: up-projection, activation, down-projection.' },
  ln1: { type: 'object', fields: LAYERNORM_FIELDS, description: 'LayerNorm of the attention sublayer (used when norm is "pre" or "post").' },
  ln2: { type: 'object', fields: LAYERNORM_FIELDS, description: 'LayerNorm of the FFN sublayer (used when norm is "pre" or "post").' },
};

export const MODEL_FIELDS: Fields = {
  version: { type: 'integer', required: true, minimum: 1, description: 'Format version: 1.' },
  name: { type: 'string', description: 'Title shown in the panel. Default: the file name.' },
  layout: { type: 'enum', values: ['out_in', 'in_out'], default: 'out_in', description: 'How every weight matrix is stored. out_in: [out][in], as torch.nn.Linear.weight, y = x·Wᵀ + b. in_out: [in][out], y = x·W + b.' },
  tokens: { type: 'strings', description: 'One label per input row, for heatmap axes and hovers. Default: "t0", "t1", …' },
  input: { ...matrix('The token vectors entering the first layer: [seq][d_model].'), required: true },
  positional: { type: 'enum', values: ['none', 'sinusoidal'], default: 'none', description: 'sinusoidal: add sin/cos positions (Attention Is All You Need) to input.' },
  residual: { type: 'boolean', default: false, description: 'Add each sublayer\'s input to its output.' },
  norm: { type: 'enum', values: ['none', 'post', 'pre'], default: 'none', description: 'post: LN(x + sublayer(x)), as the original Transformer. pre: x + sublayer(LN(x)), as GPT-2.' },
  ...LAYER_FIELDS,
  layers: { type: 'objects', fields: LAYER_FIELDS, description: 'The layers, in order; each may have attention, ffn, ln1, ln2. Instead of the single-layer shorthand.' },
  final_norm: { type: 'boolean', default: false, description: 'Apply ln_f to the last layer\'s output (with norm "pre", as GPT-2).' },
  ln_f: { type: 'object', fields: LAYERNORM_FIELDS, description: 'The final LayerNorm\'s parameters.' },
  head: { type: 'object', fields: HEAD_FIELDS, description: 'Prediction head: logits = output·Wᵀ + b, probs = softmax(logits / temperature).' },
};

/** Edit distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[n];
}

/** The valid key closest to `key`, if it is close enough to be a likely typo. */
export function nearestKey(key: string, valid: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const exact = valid.find((v) => v.toLowerCase() === lower);
  if (exact) return exact;
  let best: string | undefined;
  let bestD = Infinity;
  let tie = false;
  for (const v of valid) {
    const d = editDistance(lower, v.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = v;
      tie = false;
    } else if (d === bestD) tie = true;
  }
  if (tie) return undefined; // Wx: Wq, Wk, Wv or Wo? we do not guess
  const limit = Math.max(1, Math.min(3, Math.floor(Math.max(key.length, 2) / 3)));
  return bestD <= limit ? best : undefined;
}
