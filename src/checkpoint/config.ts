// A checkpoint's config.json, in Hugging Face's field names and defaults, for the architectures
// FFN Lens computes (checkpoints-v1: gpt2, llama, qwen2), as the core's dimensions.

import { CheckpointError } from './safetensors';

export type ModelType = 'gpt2' | 'llama' | 'qwen2';
export const MODEL_TYPES: readonly ModelType[] = ['gpt2', 'llama', 'qwen2'];

export interface ArchConfig {
  readonly modelType: ModelType;
  /** d_model, d_ff, layers, heads, key/value heads, head size, vocabulary. */
  readonly C: number;
  readonly F: number;
  readonly L: number;
  readonly NH: number;
  readonly KVH: number;
  readonly HS: number;
  readonly V: number;
  /** gpt2's learned positions (n_positions); llama/qwen2's max_position_embeddings. */
  readonly maxPositions: number;
  readonly eps: number;
  /** RoPE θ (llama, qwen2), else null. */
  readonly ropeTheta: number | null;
  readonly tied: boolean;
  /** Biases on q/k/v (qwen2; llama's attention_bias), on o (llama's attention_bias), on the MLP (mlp_bias). */
  readonly qkvBias: boolean;
  readonly oBias: boolean;
  readonly mlpBias: boolean;
}

export function parseConfig(text: string, shown = 'config.json'): ArchConfig {
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CheckpointError(`${shown} is not JSON`, shown);
  }
  if (!c || typeof c !== 'object' || Array.isArray(c)) throw new CheckpointError(`${shown} is not a JSON object`, shown);
  const type = c.model_type;
  if (typeof type !== 'string') throw new CheckpointError(`${shown} has no "model_type"; FFN Lens reads ${MODEL_TYPES.join(', ')}`, shown);
  if (!(MODEL_TYPES as readonly string[]).includes(type)) throw new CheckpointError(`${shown}: model_type "${type}" is not supported; FFN Lens reads ${MODEL_TYPES.join(', ')}`, shown);
  const int = (key: string, dflt?: number): number => {
    const v = c[key] ?? dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new CheckpointError(`${shown}: "${key}" must be a positive whole number${c[key] === undefined ? ' (it is missing)' : `, found ${JSON.stringify(c[key])}`}`, shown);
    return v;
  };
  const num = (key: string, dflt: number): number => {
    const v = c[key] ?? dflt;
    if (typeof v !== 'number' || !(v > 0)) throw new CheckpointError(`${shown}: "${key}" must be a positive number, found ${JSON.stringify(c[key])}`, shown);
    return v;
  };
  const bool = (key: string, dflt: boolean): boolean => {
    const v = c[key] ?? dflt;
    if (typeof v !== 'boolean') throw new CheckpointError(`${shown}: "${key}" must be true or false, found ${JSON.stringify(c[key])}`, shown);
    return v;
  };
  if (type === 'gpt2') {
    const C = int('n_embd');
    const NH = int('n_head');
    if (C % NH) throw new CheckpointError(`${shown}: n_embd ${C} is not a multiple of n_head ${NH}`, shown);
    const act = c.activation_function ?? 'gelu_new';
    if (act !== 'gelu_new' && act !== 'gelu_pytorch_tanh') throw new CheckpointError(`${shown}: activation_function "${String(act)}" is not supported; FFN Lens computes GPT-2's "gelu_new"`, shown);
    return {
      modelType: 'gpt2', C, F: c.n_inner == null ? 4 * C : int('n_inner'), L: int('n_layer'), NH, KVH: NH, HS: C / NH, V: int('vocab_size'),
      maxPositions: int('n_positions', 1024), eps: num('layer_norm_epsilon', 1e-5), ropeTheta: null,
      tied: bool('tie_word_embeddings', true), qkvBias: true, oBias: true, mlpBias: true,
    };
  }
  const C = int('hidden_size');
  const NH = int('num_attention_heads');
  const KVH = int('num_key_value_heads', NH);
  const HS = c.head_dim == null ? C / NH : int('head_dim');
  if (!Number.isInteger(HS)) throw new CheckpointError(`${shown}: hidden_size ${C} is not a multiple of num_attention_heads ${NH}`, shown);
  if (NH % KVH) throw new CheckpointError(`${shown}: num_attention_heads ${NH} is not a multiple of num_key_value_heads ${KVH}`, shown);
  if (HS % 2) throw new CheckpointError(`${shown}: the head size ${HS} is odd; RoPE pairs dimensions`, shown);
  const act = c.hidden_act ?? 'silu';
  if (act !== 'silu') throw new CheckpointError(`${shown}: hidden_act "${String(act)}" is not supported; FFN Lens computes the SwiGLU MLP ("silu")`, shown);
  if (c.rope_scaling != null) throw new CheckpointError(`${shown}: "rope_scaling" is not supported yet (FFN Lens computes plain RoPE)`, shown);
  const attentionBias = bool('attention_bias', false);
  return {
    modelType: type as ModelType, C, F: int('intermediate_size'), L: int('num_hidden_layers'), NH, KVH, HS, V: int('vocab_size'),
    maxPositions: int('max_position_embeddings', 2048), eps: num('rms_norm_eps', 1e-6), ropeTheta: num('rope_theta', 10000),
    tied: bool('tie_word_embeddings', false),
    qkvBias: type === 'qwen2' ? true : attentionBias, oBias: type === 'qwen2' ? false : attentionBias, mlpBias: bool('mlp_bias', false),
  };
}
