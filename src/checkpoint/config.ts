// A checkpoint's config.json, in Hugging Face's field names and defaults, for the architectures
// FFN Lens computes (checkpoints-v1: gpt2, llama, qwen2), as the core's dimensions. Settings that
// would change the computation in a way the core does not follow (scaled RoPE, sliding windows,
// GPT-2's unscaled attention) are errors rather than silently wrong numbers.

import type { RopeScaling } from '../core/spec';
import type { Activation } from '../core/activation';
import { describeValue } from '../shared/quote';
import { CheckpointError } from './errors';

export type ModelType = 'gpt2' | 'llama' | 'qwen2';
export const MODEL_TYPES: readonly ModelType[] = ['gpt2', 'llama', 'qwen2'];

export interface ArchConfig {
  readonly modelType: ModelType;
  /** d_model, d_ff, layers, heads, key/value heads, head size, vocabulary (the core's dimension key). */
  readonly C: number;
  readonly F: number;
  readonly L: number;
  readonly NH: number;
  readonly KVH: number;
  readonly HS: number;
  readonly V: number;
  /** gpt2's learned positions (n_positions); llama/qwen2's max_position_embeddings. */
  readonly maxPositions: number;
  /** bos_token_id, where it names a word of the vocabulary (the induction test starts with it), else null. */
  readonly bos: number | null;
  /** Of every norm (layer_norm_epsilon, rms_norm_eps). */
  readonly eps: number;
  /** The FFN's activation as the core names it: gpt2's gelu_new is 'gelu_tanh'; llama/qwen2's silu MLP is 'swiglu'. */
  readonly activation: Activation;
  /** RoPE θ (llama, qwen2), else null. */
  readonly ropeTheta: number | null;
  /** RoPE's frequencies rescaled (`rope_scaling` of type linear or llama3), or null. */
  readonly ropeScaling: RopeScaling | null;
  /**
   * `rope_scaling` of type dynamic (NTK): Hugging Face's frequencies are the default ones up to
   * max_position_embeddings tokens and rescaled past them, so the input is held to that length.
   */
  readonly dynamicRope: boolean;
  /** The head is the embedding (tie_word_embeddings). */
  readonly tied: boolean;
  /** Biases on q/k/v (gpt2, qwen2; llama's attention_bias), on o (gpt2; llama's attention_bias), on the MLP (gpt2; llama's mlp_bias). */
  readonly qkvBias: boolean;
  readonly oBias: boolean;
  readonly mlpBias: boolean;
}

/** GPT-2's activation_function values (Hugging Face's ACT2FN) the core computes exactly. */
const GPT2_ACTIVATIONS: Readonly<Record<string, Activation>> = { gelu_new: 'gelu_tanh', gelu_pytorch_tanh: 'gelu_tanh', gelu: 'gelu', relu: 'relu' };

export function parseConfig(text: string, shown = 'config.json'): ArchConfig {
  const fail = (message: string): never => {
    throw new CheckpointError(`${shown}: ${message}`, { file: shown });
  };
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CheckpointError(`${shown} is not JSON`, { file: shown });
  }
  if (!c || typeof c !== 'object' || Array.isArray(c)) fail('expected a JSON object');
  const type = c.model_type;
  if (type === undefined) fail(`"model_type" is missing; FFN Lens reads ${MODEL_TYPES.join(', ')}`);
  if (!(MODEL_TYPES as readonly unknown[]).includes(type)) fail(`model_type ${describeValue(type)} is not supported; FFN Lens reads ${MODEL_TYPES.join(', ')}`);
  const found = (key: string): string => (c[key] === undefined ? ' (it is missing)' : `, found ${describeValue(c[key])}`);
  // null is absent, as Hugging Face's config classes treat it
  const int = (key: string, dflt?: number): number => {
    const v = c[key] ?? dflt;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) fail(`"${key}" must be a positive whole number${found(key)}`);
    return v as number;
  };
  const num = (key: string, dflt: number): number => {
    const v = c[key] ?? dflt;
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) fail(`"${key}" must be a positive number${found(key)}`);
    return v as number;
  };
  const bool = (key: string, dflt: boolean): boolean => {
    const v = c[key] ?? dflt;
    if (typeof v !== 'boolean') fail(`"${key}" must be true or false${found(key)}`);
    return v as boolean;
  };

  // (a missing, null or odd bos_token_id only leaves the induction test without its BOS)
  const bosOf = (V: number): number | null => {
    const b = c.bos_token_id;
    return typeof b === 'number' && Number.isSafeInteger(b) && b >= 0 && b < V ? b : null;
  };

  if (type === 'gpt2') {
    const C = int('n_embd');
    const NH = int('n_head');
    if (C % NH) fail(`n_embd ${C} must be a multiple of n_head ${NH}`);
    const actName = c.activation_function ?? 'gelu_new';
    // (own names only: "__proto__" or "toString" are no activation)
    const activation = typeof actName === 'string' && Object.hasOwn(GPT2_ACTIVATIONS, actName) ? GPT2_ACTIVATIONS[actName] : undefined;
    if (!activation) fail(`activation_function ${describeValue(actName)} is not supported; FFN Lens computes ${Object.keys(GPT2_ACTIVATIONS).join(', ')}`);
    if (!bool('scale_attn_weights', true)) fail('"scale_attn_weights": false is not supported (FFN Lens divides attention scores by √head_size, as GPT-2 does)');
    if (bool('scale_attn_by_inverse_layer_idx', false)) fail('"scale_attn_by_inverse_layer_idx": true is not supported (FFN Lens divides attention scores by √head_size only)');
    return {
      modelType: 'gpt2', C, F: int('n_inner', 4 * C), L: int('n_layer'), NH, KVH: NH, HS: C / NH, V: int('vocab_size'), bos: bosOf(int('vocab_size')),
      maxPositions: int('n_positions', 1024), eps: num('layer_norm_epsilon', 1e-5), activation: activation!, ropeTheta: null, ropeScaling: null, dynamicRope: false,
      tied: bool('tie_word_embeddings', true), qkvBias: true, oBias: true, mlpBias: true,
    };
  }

  const qwen2 = type === 'qwen2';
  const C = int('hidden_size');
  const NH = int('num_attention_heads');
  // Qwen2Config's default is 32 heads (null: as many as the query heads); LlamaConfig's is the query heads
  const KVH = c.num_key_value_heads === undefined && qwen2 ? 32 : int('num_key_value_heads', NH);
  if (NH % KVH) fail(`num_attention_heads ${NH} must be a multiple of num_key_value_heads ${KVH}${c.num_key_value_heads === undefined ? ' (its default)' : ''}`);
  const HS = c.head_dim == null ? Math.floor(C / NH) : int('head_dim');
  if (HS === 0) fail(`hidden_size ${C} is smaller than num_attention_heads ${NH}`);
  if (HS % 2) fail(`the head size ${HS} is odd; RoPE rotates pairs of dimensions`);
  const act = c.hidden_act ?? 'silu';
  if (act !== 'silu') fail(`hidden_act ${describeValue(act)} is not supported; FFN Lens computes the SwiGLU MLP ("silu")`);
  const { theta: ropeTheta, scaling: ropeScaling, dynamic: dynamicRope } = ropeOf(c, num, fail);
  if (qwen2 && bool('use_sliding_window', false)) fail('"use_sliding_window": true is not supported (FFN Lens computes full causal attention)');
  const attentionBias = bool('attention_bias', false);
  return {
    modelType: type as ModelType, C, F: int('intermediate_size'), L: int('num_hidden_layers'), NH, KVH, HS, V: int('vocab_size'), bos: bosOf(int('vocab_size')),
    maxPositions: int('max_position_embeddings', qwen2 ? 32768 : 2048), eps: num('rms_norm_eps', 1e-6), activation: 'swiglu', ropeTheta, ropeScaling, dynamicRope,
    tied: bool('tie_word_embeddings', false),
    qkvBias: qwen2 ? true : attentionBias, oBias: qwen2 ? false : attentionBias, mlpBias: qwen2 ? false : bool('mlp_bias', false),
  };
}

/**
 * RoPE's θ: `rope_theta` (default 10000), or in `rope_parameters` (transformers 5); and its
 * scaling, from `rope_scaling` or `rope_parameters`: none ("default"), "linear" or "llama3" (Llama
 * 3.1–3.3, as Hugging Face's `_compute_llama3_parameters`), or "dynamic" (the default frequencies
 * within max_position_embeddings, as Hugging Face's `_compute_dynamic_ntk_parameters` gives them
 * there). Other types (yarn, longrope…) would give other positions than the core's: an error that
 * names the supported ones.
 */
function ropeOf(c: Record<string, unknown>, num: (key: string, dflt: number) => number, fail: (m: string) => never): { theta: number; scaling: RopeScaling | null; dynamic: boolean } {
  let theta: number | null = null;
  let scaling: RopeScaling | null = null;
  let dynamic = false;
  for (const key of ['rope_scaling', 'rope_parameters']) {
    const r = c[key];
    if (r == null) continue;
    if (typeof r !== 'object' || Array.isArray(r)) fail(`"${key}" must be an object or null, found ${describeValue(r)}`);
    const o = r as Record<string, unknown>;
    const kind = o.rope_type ?? o.type ?? 'default';
    const positive = (name: string, dflt?: number): number => {
      const v = o[name] ?? dflt;
      if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) fail(`"${key}.${name}" must be a positive number${o[name] === undefined ? ' (it is missing)' : `, found ${describeValue(o[name])}`}`);
      return v;
    };
    if (kind === 'linear') scaling = { type: 'linear', factor: positive('factor') };
    else if (kind === 'llama3') {
      const s = { type: 'llama3' as const, factor: positive('factor'), lowFreqFactor: positive('low_freq_factor'), highFreqFactor: positive('high_freq_factor'), originalMaxPositions: positive('original_max_position_embeddings') };
      if (!(s.highFreqFactor > s.lowFreqFactor)) fail(`"${key}.high_freq_factor" (${s.highFreqFactor}) must be greater than "low_freq_factor" (${s.lowFreqFactor})`);
      scaling = s;
    } else if (kind === 'dynamic') {
      positive('factor');
      dynamic = true;
    } else if (kind !== 'default') fail(`"${key}" of type ${describeValue(kind)} is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"`);
    if (o.rope_theta != null) theta = positive('rope_theta');
  }
  return { theta: theta ?? num('rope_theta', 10000), scaling, dynamic };
}
