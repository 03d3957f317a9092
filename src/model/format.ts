// The model file format, version 1, as data: the keys each object may hold, their types,
// defaults and meaning. The reader checks unknown keys against it, and the JSON schema that
// VS Code's own JSON support uses is generated from it, so the two cannot drift.

import { ACTIVATIONS } from '../core/activation';

export type FieldType =
  | 'integer' | 'number' | 'boolean' | 'string' | 'enum'
  | 'matrix' | 'vector' | 'integers' | 'strings' | 'object' | 'objects'
  /** An object whose keys the user chooses (`scale`, `weights`), values as `values` says. */
  | 'map'
  /** "all", "last" or a list of token indices (`steer`'s positions). */
  | 'positions';

export interface FieldSpec {
  readonly type: FieldType;
  readonly description: string;
  readonly values?: readonly string[];
  readonly default?: string | number | boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly required?: boolean;
  readonly fields?: Readonly<Record<string, FieldSpec>>;
  /** Of a map: what its values are (one number, or a number or numbers, or objects of `fields`). */
  readonly mapOf?: 'number' | 'numbers' | 'object';
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

/** An SAE a checkpoint model file attaches (`saes`). */
export const SAE_FIELDS: Fields = {
  path: { type: 'string', required: true, description: 'The SAE\'s folder, relative to this file or absolute: SAELens\' layout (cfg.json + sae_weights.safetensors) or Gemma Scope\'s (params.npz).' },
  at: { type: 'string', required: true, description: 'The stage it reads: the residual stream ("layers.12.out", "layers.12.attn.residual", "input"), an attention output ("layers.12.attn.out") or an MLP output ("layers.12.ffn.down"). Its stages are "layers.12.sae.acts", ".recon", ".error" (for "layers.12.out"; "<stage>.sae.acts" for the others).' },
  norm_scaling_factor: { type: 'number', exclusiveMinimum: 0, description: 'For normalize_activations "expected_average_only_in": the factor the input is multiplied by before encoding (SAELens\' norm_scaling_factor), where cfg.json does not give it. Default: cfg.json\'s, else 1.' },
};

/**
 * `generate`: decode tokens after the input (src/core/decode.ts defines each step exactly). A
 * checkpoint's model only: it reads token ids, so a chosen token can be fed back.
 */
export const GENERATE_FIELDS: Fields = {
  tokens: { type: 'integer', minimum: 1, default: 24, description: 'How many tokens to generate after the input (the model\'s positions bound it: input + tokens − 1 of them are read). Generation does not stop at an end-of-text token.' },
  temperature: { type: 'number', minimum: 0, default: 0, description: '0: greedy (the top logit; ties: the smaller id). Above 0: a seeded draw from softmax(logit / temperature) over the top_k logits.' },
  top_k: { type: 'integer', minimum: 1, default: 5, description: 'The alternatives kept at each step: the draw is among them, and each step lists them with their probabilities.' },
  seed: { type: 'integer', minimum: 0, maximum: 4294967295, default: 1, description: 'The seed of the draws (mulberry32, one draw per step; src/core/rng.ts): the same seed gives the same text. A whole number 0 … 4294967295.' },
};

/** How a stage is steered (`steer`: { "layers.6.out": { … } }). */
export const STEER_FIELDS: Fields = {
  vector: { type: 'vector', description: 'The direction v itself: d_model numbers.' },
  feature: { type: 'string', description: 'v = the decoder row W_dec[f] of an SAE feature, "layers.12.sae.1234" (the SAE attached in "saes"), as SAELens stores it.' },
  contrast: { type: 'strings', description: 'ActAdd\'s v from two prompts, ["Love", "Hate"]: each tokenized as "prompt" is and run through this model (its ablate, scale, weights and SAE edits applied, no steer); v = the first\'s row at this stage at its last token − the second\'s at its last token.' },
  alpha: { type: 'number', default: 1, description: 'The factor: the stage becomes x + alpha·v.' },
  positions: { type: 'positions', default: 'all', description: '"all" (every token, the default), "last" (the input\'s last token), or a list of token indices [0, 3].' },
};

/** The keys of a model file that points at a checkpoint (the weights come from there). */
export const CHECKPOINT_FIELDS: Fields = {
  version: MODEL_FIELDS.version,
  name: MODEL_FIELDS.name,
  checkpoint: { type: 'string', required: true, description: 'A Hugging Face model folder (config.json, model.safetensors or its shards with model.safetensors.index.json), relative to this file or absolute. Architectures: gpt2, llama, qwen2.' },
  tokenizer: { type: 'string', description: 'A tokenizer.json (Hugging Face tokenizers format). Default: tokenizer.json in the checkpoint folder.' },
  prompt: { type: 'string', description: 'The input text, tokenized with the tokenizer (special tokens added as its post-processor says). Instead of token_ids.' },
  token_ids: { type: 'integers', description: 'The input as token ids, used as they are (needs no tokenizer). Instead of prompt.' },
  tokens: { type: 'strings', description: 'Labels for the rows. Default: the tokenizer\'s strings for the ids, else "#id".' },
  ablate: { type: 'strings', description: 'Units switched off: "layers.i.ffn.neuron.j" zeroes neuron j\'s activation before the down-projection; "layers.i.attn.head.h" zeroes head h\'s slice of the context before the output projection.' },
  scale: { type: 'map', mapOf: 'number', description: 'The same units, multiplied by the number instead of zeroed: { "layers.0.ffn.neuron.3": 2.5 }.' },
  weights: { type: 'map', mapOf: 'numbers', description: 'Overrides of the checkpoint\'s numbers, in out_in layout whatever the checkpoint stores: "layers.0.ffn.W1[3]" (row 3: neuron 3\'s input weights), "layers.0.ffn.W1[3][5]" (one number), "layers.0.ffn.b1" (a vector), likewise Wg, W2, attn.Wq…Wo, biases, ln1/ln2/ln_f gamma and beta; "embed[5]" (token 5\'s embedding row).' },
  temperature: { type: 'number', exclusiveMinimum: 0, default: 1, description: 'Of the head\'s softmax: probs = softmax(logits / temperature).' },
  lens: { type: 'boolean', default: false, description: 'Also compute the logit lens: the head applied to the final norm of every layer\'s output (layers.i.lens.logits).' },
  corrupted_prompt: { type: 'string', description: 'A second input for activation patching ("FFN Lens: Activation Patching"): the prompt changed where it matters, with as many tokens as the prompt. Instead of corrupted_token_ids.' },
  corrupted_token_ids: { type: 'integers', description: 'The second input for activation patching as token ids, as many as the input\'s. Instead of corrupted_prompt.' },
  saes: { type: 'objects', fields: SAE_FIELDS, description: 'Sparse autoencoders, each reading one stage: [{ "path": "./sae", "at": "layers.6.out" }]. Observation only unless a feature is edited (sae_ablate, sae_scale, sae_clamp).' },
  sae_ablate: { type: 'strings', description: 'SAE features switched off: "layers.6.sae.1234". The stream after the SAE becomes the reconstruction of the edited features + the SAE\'s error (SAELens\' splice).' },
  sae_scale: { type: 'map', mapOf: 'number', description: 'SAE features multiplied by the number: { "layers.6.sae.1234": 0.5 }.' },
  sae_clamp: { type: 'map', mapOf: 'number', description: 'SAE features held at the number on every token: { "layers.6.sae.1234": 8.0 }.' },
  generate: { type: 'object', fields: GENERATE_FIELDS, description: 'Generate text after the input: { "tokens": 24, "temperature": 0, "top_k": 5, "seed": 1 }. Every ablate, scale and weights entry applies at every step. `ffn-lens generate FILE` prints the tokens and their top-k.' },
  steer: { type: 'map', mapOf: 'object', fields: STEER_FIELDS, description: 'Steering: a stage (the residual stream "layers.6.out", "layers.6.attn.residual", "input"; an attention output "layers.6.attn.out"; an MLP output "layers.6.ffn.down") becomes x + alpha·v at the positions given, and every later stage reads it. v is one of "vector" (d_model numbers), "feature" (an SAE feature\'s decoder row) or "contrast" (ActAdd: two prompts\' activations at the stage, at their last tokens, one minus the other): { "layers.6.out": { "contrast": ["Love", "Hate"], "alpha": 4 } }. Its stage is "layers.6.steer" ("<stage>.steer" for the others). The panel offers the same file without its steer to compare with.' },
};

/**
 * Edit distance counting a swap of two neighbours as one edit ("fnn" for "ffn"), for "did you
 * mean". Only ever run on short strings: nearestKey bounds the lengths first.
 */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n];
}

/** How many edits a key may be from a valid one to be taken for a typo of it (1 to 3, by length). */
function allowedEdits(length: number): number {
  return Math.max(1, Math.min(3, Math.floor(Math.max(length, 2) / 3)));
}

/** A key as compared: lower case, compatibility forms folded (a fullwidth "１" is "1"), invisible characters dropped. */
function comparable(key: string): string {
  return key.normalize('NFKC').replace(/[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '').toLowerCase();
}

/**
 * The valid key closest to `key`, if it is close enough to be a likely typo. A key whose length
 * alone puts it out of reach is not compared at all (a 5 MB key would take seconds): `distance`
 * is only called for candidates within the allowed number of edits by length.
 */
export function nearestKey(key: string, valid: readonly string[], distance: (a: string, b: string) => number = editDistance): string | undefined {
  const longest = valid.reduce((n, v) => Math.max(n, v.length), 0);
  // (before any work on the key: generous, as invisible characters are dropped below)
  if (key.length > 2 * longest + 3) return undefined;
  const k = comparable(key);
  const exact = valid.find((v) => v.toLowerCase() === k);
  if (exact) return exact;
  const limit = allowedEdits(k.length);
  let best: string | undefined;
  let bestD = Infinity;
  let tie = false;
  for (const v of valid) {
    if (Math.abs(v.length - k.length) > limit) continue; // at least that many insertions or deletions
    const d = distance(k, v.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = v;
      tie = false;
    } else if (d === bestD) tie = true;
  }
  if (tie) return undefined; // Wx: Wq, Wk, Wv or Wo? we do not guess
  return bestD <= limit ? best : undefined;
}
