// config.json → ArchConfig with Hugging Face's field names and defaults, for configs as the Hub
// has them (GPT-2, SmolLM2-135M, Qwen2.5-0.5B) and minimal ones; and one clear error naming the
// field and what is expected for each way a config can be wrong or beyond the core.
import * as assert from 'node:assert/strict';
import { configError as error, parse } from '../../test/helpers/archTesting';

// as on the Hub (fields the loader does not read kept, as they are there)
const GPT2 = {
  activation_function: 'gelu_new', architectures: ['GPT2LMHeadModel'], attn_pdrop: 0.1, bos_token_id: 50256, embd_pdrop: 0.1, eos_token_id: 50256,
  initializer_range: 0.02, layer_norm_epsilon: 1e-5, model_type: 'gpt2', n_ctx: 1024, n_embd: 768, n_head: 12, n_layer: 12, n_positions: 1024,
  resid_pdrop: 0.1, summary_activation: null, vocab_size: 50257,
};
const SMOLLM2 = {
  architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 0, eos_token_id: 0, hidden_act: 'silu',
  hidden_size: 576, initializer_range: 0.041666666666666664, intermediate_size: 1536, max_position_embeddings: 8192, mlp_bias: false,
  model_type: 'llama', num_attention_heads: 9, num_hidden_layers: 30, num_key_value_heads: 3, pretraining_tp: 1, rms_norm_eps: 1e-5,
  rope_scaling: null, rope_theta: 100000, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_cache: true, vocab_size: 49152,
};
const QWEN25 = {
  architectures: ['Qwen2ForCausalLM'], attention_dropout: 0.0, bos_token_id: 151643, eos_token_id: 151643, hidden_act: 'silu', hidden_size: 896,
  initializer_range: 0.02, intermediate_size: 4864, max_position_embeddings: 32768, max_window_layers: 24, model_type: 'qwen2',
  num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1000000.0, sliding_window: 32768,
  tie_word_embeddings: true, torch_dtype: 'bfloat16', use_cache: true, use_sliding_window: false, vocab_size: 151936,
};

describe('checkpoint config.json', () => {
  it('gpt2 as on the Hub: n_inner defaults to 4·n_embd, gelu_new is gelu_tanh, tied, every bias', () => {
    assert.deepEqual(parse(GPT2), {
      modelType: 'gpt2', C: 768, F: 3072, L: 12, NH: 12, KVH: 12, HS: 64, V: 50257, bos: 50256, maxPositions: 1024, eps: 1e-5,
      activation: 'gelu_tanh', ropeTheta: null, ropeScaling: null, dynamicRope: false, tied: true, qkvBias: true, oBias: true, mlpBias: true,
    });
  });

  it('gpt2 defaults: layer_norm_epsilon 1e-5, n_positions 1024, gelu_new; n_inner null is 4·n_embd; activations the core computes exactly', () => {
    const min = { model_type: 'gpt2', n_embd: 8, n_head: 2, n_layer: 1, vocab_size: 10 };
    const a = parse({ ...min, n_inner: null });
    assert.deepEqual([a.F, a.eps, a.maxPositions, a.activation, a.tied], [32, 1e-5, 1024, 'gelu_tanh', true]);
    assert.equal(parse({ ...min, n_inner: 12 }).F, 12);
    assert.equal(parse({ ...min, layer_norm_epsilon: 1e-6 }).eps, 1e-6);
    assert.equal(parse({ ...min, activation_function: 'gelu_pytorch_tanh' }).activation, 'gelu_tanh');
    assert.equal(parse({ ...min, activation_function: 'gelu' }).activation, 'gelu');
    assert.equal(parse({ ...min, activation_function: 'relu' }).activation, 'relu');
    assert.equal(parse({ ...min, tie_word_embeddings: false }).tied, false);
  });

  it('llama as on the Hub (SmolLM2-135M): GQA, head_dim = hidden/heads, rope_theta, tied', () => {
    assert.deepEqual(parse(SMOLLM2), {
      modelType: 'llama', C: 576, F: 1536, L: 30, NH: 9, KVH: 3, HS: 64, V: 49152, bos: 0, maxPositions: 8192, eps: 1e-5,
      activation: 'swiglu', ropeTheta: 100000, ropeScaling: null, dynamicRope: false, tied: true, qkvBias: false, oBias: false, mlpBias: false,
    });
  });

  it('llama defaults: kv heads = heads, rms_norm_eps 1e-6, rope_theta 10000, untied, no biases; head_dim, attention_bias and mlp_bias read', () => {
    const min = { model_type: 'llama', hidden_size: 64, intermediate_size: 100, num_hidden_layers: 2, num_attention_heads: 4, vocab_size: 32 };
    const a = parse(min);
    assert.deepEqual([a.KVH, a.HS, a.eps, a.ropeTheta, a.tied, a.maxPositions, a.qkvBias, a.oBias, a.mlpBias], [4, 16, 1e-6, 10000, false, 2048, false, false, false]);
    assert.equal(parse({ ...min, num_key_value_heads: null }).KVH, 4);
    assert.equal(parse({ ...min, head_dim: 32 }).HS, 32, 'head_dim need not be hidden/heads');
    const b = parse({ ...min, attention_bias: true, mlp_bias: true });
    assert.deepEqual([b.qkvBias, b.oBias, b.mlpBias], [true, true, true]);
  });

  it('qwen2 as on the Hub (Qwen2.5-0.5B): q/k/v biases, no o or MLP bias', () => {
    assert.deepEqual(parse(QWEN25), {
      modelType: 'qwen2', C: 896, F: 4864, L: 24, NH: 14, KVH: 2, HS: 64, V: 151936, bos: 151643, maxPositions: 32768, eps: 1e-6,
      activation: 'swiglu', ropeTheta: 1000000, ropeScaling: null, dynamicRope: false, tied: true, qkvBias: true, oBias: false, mlpBias: false,
    });
  });

  it("qwen2 defaults as Qwen2Config's: 32 kv heads when absent (null: as many as heads), untied, max_position_embeddings 32768", () => {
    const min = { model_type: 'qwen2', hidden_size: 256, intermediate_size: 100, num_hidden_layers: 2, num_attention_heads: 64, vocab_size: 32 };
    const a = parse(min);
    assert.deepEqual([a.KVH, a.HS, a.tied, a.maxPositions, a.ropeTheta], [32, 4, false, 32768, 10000]);
    assert.equal(parse({ ...min, num_key_value_heads: null }).KVH, 64);
    assert.equal(error({ ...min, num_attention_heads: 8 }), 'config.json: num_attention_heads 8 must be a multiple of num_key_value_heads 32 (its default)');
  });

  it('transformers 5 configs: rope_theta inside rope_parameters; rope_scaling of the default type is plain RoPE', () => {
    const base = { ...SMOLLM2, rope_theta: undefined, rope_scaling: undefined };
    assert.equal(parse({ ...base, rope_parameters: { rope_type: 'default', rope_theta: 500000 } }).ropeTheta, 500000);
    assert.equal(parse({ ...base, rope_scaling: { rope_type: 'default' }, rope_theta: 1234 }).ropeTheta, 1234);
  });

  it('bos_token_id: read where it names a word; missing, null, negative, fractional or past the vocabulary: none', () => {
    for (const [v, want] of [[undefined, null], [null, null], [-1, null], [1.5, null], [50257, null], ['1', null], [0, 0], [50256, 50256]] as const) {
      assert.equal(parse({ ...GPT2, bos_token_id: v }).bos, want, String(v));
    }
  });

  it('an unsupported model_type names the supported ones', () => {
    assert.equal(error({ model_type: 'bert' }), 'config.json: model_type "bert" is not supported; FFN Lens reads gpt2, llama, qwen2, gpt_neox, gemma2, gemma3_text, qwen3, mistral, phi3');
    assert.equal(error({ n_embd: 8 }), 'config.json: "model_type" is missing; FFN Lens reads gpt2, llama, qwen2, gpt_neox, gemma2, gemma3_text, qwen3, mistral, phi3');
    assert.equal(error({ model_type: 7 }), 'config.json: model_type 7 is not supported; FFN Lens reads gpt2, llama, qwen2, gpt_neox, gemma2, gemma3_text, qwen3, mistral, phi3');
  });

  it('not JSON, not an object', () => {
    assert.equal(error('{"model_type": '), 'config.json is not JSON');
    assert.equal(error('[1]'), 'config.json: expected a JSON object');
  });

  it('a missing or invalid field is named with what is expected', () => {
    assert.equal(error({ model_type: 'gpt2', n_embd: 8, n_layer: 1, vocab_size: 9 }), 'config.json: "n_head" must be a positive whole number (it is missing)');
    assert.equal(error({ ...GPT2, n_layer: '12' }), 'config.json: "n_layer" must be a positive whole number, found "12"');
    assert.equal(error({ ...GPT2, n_embd: 7.5 }), 'config.json: "n_embd" must be a positive whole number, found 7.5');
    assert.equal(error({ ...GPT2, vocab_size: 0 }), 'config.json: "vocab_size" must be a positive whole number, found 0');
    assert.equal(error({ ...GPT2, layer_norm_epsilon: -1 }), 'config.json: "layer_norm_epsilon" must be a positive number, found -1');
    assert.equal(error({ ...SMOLLM2, intermediate_size: undefined }), 'config.json: "intermediate_size" must be a positive whole number (it is missing)');
    assert.equal(error({ ...SMOLLM2, tie_word_embeddings: 'yes' }), 'config.json: "tie_word_embeddings" must be true or false, found "yes"');
    assert.equal(error({ ...SMOLLM2, rms_norm_eps: 'small' }), 'config.json: "rms_norm_eps" must be a positive number, found "small"');
  });

  it('dimensions that do not fit together', () => {
    assert.equal(error({ ...GPT2, n_head: 5 }), 'config.json: n_embd 768 must be a multiple of n_head 5');
    assert.equal(error({ ...SMOLLM2, num_key_value_heads: 2 }), 'config.json: num_attention_heads 9 must be a multiple of num_key_value_heads 2');
    assert.equal(error({ ...SMOLLM2, head_dim: 63 }), 'config.json: the head size 63 is odd; RoPE rotates pairs of dimensions');
  });

  it('Llama 3.x\'s rope_scaling (llama3) and the linear one: read into the RoPE the core computes', () => {
    const llama32 = { ...SMOLLM2, rope_theta: 500000, rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' } };
    const a = parse(llama32);
    assert.equal(a.ropeTheta, 500000);
    assert.deepEqual(a.ropeScaling, { type: 'llama3', factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8192 });
    assert.deepEqual(parse({ ...SMOLLM2, rope_scaling: { type: 'linear', factor: 2 } }).ropeScaling, { type: 'linear', factor: 2 });
    assert.equal(parse({ ...SMOLLM2, rope_scaling: { rope_type: 'default' } }).ropeScaling, null);
  });

  it('dynamic (NTK) rope_scaling: the default frequencies, the input held to max_position_embeddings (past it Hugging Face rescales them)', () => {
    const a = parse({ ...SMOLLM2, rope_scaling: { type: 'dynamic', factor: 2 } });
    assert.equal(a.ropeScaling, null);
    assert.equal(a.dynamicRope, true);
    assert.equal(parse(SMOLLM2).dynamicRope, false);
  });

  it('what the core does not compute is an error, not silently wrong numbers', () => {
    assert.equal(error({ ...SMOLLM2, rope_parameters: { rope_type: 'yarn', rope_theta: 1e4 } }), 'config.json: "rope_parameters" of type "yarn" is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"');
    assert.equal(error({ ...SMOLLM2, rope_scaling: { type: 'dynamic', factor: 0 } }), 'config.json: "rope_scaling.factor" must be a positive number, found 0');
    assert.equal(error({ ...SMOLLM2, rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4 } }), 'config.json: "rope_scaling.original_max_position_embeddings" must be a positive number (it is missing)');
    assert.equal(error({ ...SMOLLM2, rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 4, high_freq_factor: 4, original_max_position_embeddings: 8192 } }), 'config.json: "rope_scaling.high_freq_factor" (4) must be greater than "low_freq_factor" (4)');
    assert.equal(error({ ...SMOLLM2, rope_scaling: { type: 'linear', factor: -2 } }), 'config.json: "rope_scaling.factor" must be a positive number, found -2');
    assert.equal(error({ ...SMOLLM2, rope_scaling: 2 }), 'config.json: "rope_scaling" must be an object or null, found 2');
    assert.equal(error({ ...SMOLLM2, hidden_act: 'gelu' }), 'config.json: hidden_act "gelu" is not supported; FFN Lens computes the SwiGLU MLP ("silu")');
    assert.equal(error({ ...GPT2, activation_function: 'quick_gelu' }), 'config.json: activation_function "quick_gelu" is not supported; FFN Lens computes gelu_new, gelu_pytorch_tanh, gelu, relu');
    assert.equal(error({ ...GPT2, scale_attn_weights: false }), 'config.json: "scale_attn_weights": false is not supported (FFN Lens divides attention scores by √head_size, as GPT-2 does)');
    assert.equal(error({ ...GPT2, scale_attn_by_inverse_layer_idx: true }), 'config.json: "scale_attn_by_inverse_layer_idx": true is not supported (FFN Lens divides attention scores by √head_size only)');
    assert.equal(error({ ...QWEN25, use_sliding_window: true }), 'config.json: "use_sliding_window": true is not supported (FFN Lens computes full causal attention)');
  });
});
