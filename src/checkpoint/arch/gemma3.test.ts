// gemma3_text: Gemma-3-1B's config.json as on the Hub (sliding_window_pattern 6, local base 10000,
// rope_theta 1e6, no soft-caps); layer_types; transformers 5's rope_parameters by layer type;
// refusals; q_norm / k_norm names.
import * as assert from 'node:assert/strict';
import { expectedTensors } from '../tensorNames';
import { configError, parse, tensorRow } from './testing';

export const GEMMA3_1B = {
  architectures: ['Gemma3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, attn_logit_softcapping: null, bos_token_id: 2,
  cache_implementation: 'hybrid', eos_token_id: 1, final_logit_softcapping: null, head_dim: 256, hidden_activation: 'gelu_pytorch_tanh',
  hidden_size: 1152, initializer_range: 0.02, intermediate_size: 6912, max_position_embeddings: 32768, model_type: 'gemma3_text',
  num_attention_heads: 4, num_hidden_layers: 26, num_key_value_heads: 1, pad_token_id: 0, query_pre_attn_scalar: 256, rms_norm_eps: 1e-6,
  rope_local_base_freq: 10000, rope_scaling: null, rope_theta: 1000000, sliding_window: 512, sliding_window_pattern: 6,
  torch_dtype: 'bfloat16', transformers_version: '4.50.0.dev0', use_cache: true, vocab_size: 262144,
};
const MIN = { model_type: 'gemma3_text', hidden_size: 16, intermediate_size: 40, num_hidden_layers: 3, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 8, vocab_size: 80 };

describe('arch gemma3_text', () => {
  it('Gemma-3-1B as on the Hub: every sixth layer full (θ 1e6), the others sliding over 512 (θ 10000), (1+w) q/k norms, no soft-caps', () => {
    const slides = (i: number): boolean => (i + 1) % 6 !== 0;
    assert.deepEqual(parse(GEMMA3_1B), {
      modelType: 'gemma3_text', C: 1152, F: 6912, L: 26, NH: 4, KVH: 1, HS: 256, V: 262144, bos: 2, maxPositions: 32768, eps: 1e-6,
      activation: 'geglu_tanh', ropeTheta: 1e6, ropeScaling: null, dynamicRope: false, tied: true, qkvBias: false, oBias: false, mlpBias: false,
      normOnePlus: true, postNorms: true, attnScale: 1 / 16, embedScale: Math.fround(Math.sqrt(1152)), qkNorm: 'one_plus',
      slidingWindow: Array.from({ length: 26 }, (_, i) => (slides(i) ? 512 : null)),
      layerRope: Array.from({ length: 26 }, (_, i) => ({ theta: slides(i) ? 10000 : 1e6, scaling: null, rotaryDims: 256 })),
    });
  });

  it('layer_types over sliding_window_pattern; rope_scaling on the full layers only; transformers 5 rope_parameters by layer type', () => {
    const a = parse({ ...MIN, sliding_window: 3, sliding_window_pattern: 2, layer_types: ['sliding_attention', 'full_attention', 'sliding_attention'], rope_scaling: { rope_type: 'linear', factor: 8 } });
    assert.deepEqual(a.slidingWindow, [3, null, 3]);
    assert.deepEqual(a.layerRope, [
      { theta: 10000, scaling: null, rotaryDims: 8 }, { theta: 1e6, scaling: { type: 'linear', factor: 8 }, rotaryDims: 8 }, { theta: 10000, scaling: null, rotaryDims: 8 },
    ]);
    assert.deepEqual(parse({ ...MIN, sliding_window_pattern: 2 }).slidingWindow, [4096, null, 4096]);
    assert.deepEqual(parse(MIN).slidingWindow, [4096, 4096, 4096], 'pattern 6: the first five slide');
    const t5 = parse({ ...MIN, rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 123 }, sliding_attention: { rope_type: 'default', rope_theta: 45 } }, sliding_window_pattern: 3 });
    assert.deepEqual(t5.layerRope?.map((r) => r.theta), [45, 45, 123]);
    assert.equal(t5.ropeTheta, 123);
    assert.deepEqual(parse({ ...MIN, attn_logit_softcapping: 20, final_logit_softcapping: 15 }).finalSoftcap, 15);
  });

  it('refuses what it would compute wrongly, naming the field', () => {
    assert.equal(configError({ ...MIN, use_bidirectional_attention: true }), 'config.json: "use_bidirectional_attention": true is not supported (FFN Lens computes causal attention)');
    assert.equal(configError({ ...MIN, sliding_window_pattern: 0 }), 'config.json: "sliding_window_pattern" must be a positive whole number, found 0');
    assert.equal(configError({ ...MIN, rope_parameters: { full_attention: { rope_type: 'yarn', factor: 8 } } }), 'config.json: "rope_parameters.full_attention" of type "yarn" is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"');
    assert.equal(configError({ ...MIN, rope_parameters: { full_attention: {}, chunked_attention: {} } }), 'config.json: "rope_parameters" by layer type has "chunked_attention"; expected "full_attention" and "sliding_attention"');
    assert.equal(configError({ ...MIN, layer_types: ['sliding_attention', 'chunked_attention', 'full_attention'] }), 'config.json: "layer_types" must list "sliding_attention" or "full_attention" for each of the 3 layers, found ["sliding_attention", "chunked_attention", "full_attention"]');
  });

  it('tensor names: q_norm and k_norm [head_dim] beside gemma2\'s', () => {
    const rows = expectedTensors(parse({ ...MIN, num_hidden_layers: 1 })).map(tensorRow);
    assert.deepEqual(rows.filter((r) => r.includes('norm')), [
      'layers.0.input_layernorm.weight [16] → layers.0.ln1.gamma',
      'layers.0.self_attn.q_norm.weight [8] → layers.0.attn.q_norm.gamma',
      'layers.0.self_attn.k_norm.weight [8] → layers.0.attn.k_norm.gamma',
      'layers.0.post_attention_layernorm.weight [16] → layers.0.ln1_post.gamma',
      'layers.0.pre_feedforward_layernorm.weight [16] → layers.0.ln2.gamma',
      'layers.0.post_feedforward_layernorm.weight [16] → layers.0.ln2_post.gamma',
      'norm.weight [16] → ln_f.gamma',
    ]);
  });
});
