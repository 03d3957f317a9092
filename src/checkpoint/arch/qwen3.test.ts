// qwen3: Qwen3-0.6B's config.json as on the Hub; Qwen3Config's defaults (head_dim 128, 32 kv
// heads); attention_bias; use_sliding_window refused; q_norm / k_norm names.
import * as assert from 'node:assert/strict';
import { expectedTensors } from '../tensorNames';
import { configError, parse, tensorRow } from './testing';

export const QWEN3_06B = {
  architectures: ['Qwen3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 151643, eos_token_id: 151645, head_dim: 128,
  hidden_act: 'silu', hidden_size: 1024, initializer_range: 0.02, intermediate_size: 3072, max_position_embeddings: 40960, max_window_layers: 28,
  model_type: 'qwen3', num_attention_heads: 16, num_hidden_layers: 28, num_key_value_heads: 8, rms_norm_eps: 1e-6, rope_scaling: null,
  rope_theta: 1000000, sliding_window: null, tie_word_embeddings: true, torch_dtype: 'bfloat16', transformers_version: '4.51.0', use_cache: true,
  use_sliding_window: false, vocab_size: 151936,
};
const MIN = { model_type: 'qwen3', hidden_size: 16, intermediate_size: 40, num_hidden_layers: 1, num_attention_heads: 4, vocab_size: 80 };

describe('arch qwen3', () => {
  it('Qwen3-0.6B as on the Hub: head_dim 128 ≠ 1024/16, GQA 16/8, plain q/k norms, tied, no biases', () => {
    assert.deepEqual(parse(QWEN3_06B), {
      modelType: 'qwen3', C: 1024, F: 3072, L: 28, NH: 16, KVH: 8, HS: 128, V: 151936, bos: 151643, maxPositions: 40960, eps: 1e-6,
      activation: 'swiglu', ropeTheta: 1e6, ropeScaling: null, dynamicRope: false, tied: true, qkvBias: false, oBias: false, mlpBias: false, qkNorm: 'plain',
    });
  });

  it("Qwen3Config's defaults: head_dim 128 (null: hidden/heads), 32 kv heads (null: heads), untied, 32768 positions; attention_bias on q/k/v/o", () => {
    const a = parse({ ...MIN, num_attention_heads: 32 });
    assert.deepEqual([a.HS, a.KVH, a.tied, a.maxPositions, a.bos], [128, 32, false, 32768, null]);
    const b = parse({ ...MIN, head_dim: null, num_key_value_heads: null, attention_bias: true });
    assert.deepEqual([b.HS, b.KVH, b.qkvBias, b.oBias, b.mlpBias], [4, 4, true, true, false]);
  });

  it('refuses a sliding window (which layers slide depends on max_window_layers), other activations, other RoPE', () => {
    assert.equal(configError({ ...QWEN3_06B, use_sliding_window: true, sliding_window: 4096 }), 'config.json: "use_sliding_window": true is not supported (FFN Lens computes full causal attention)');
    assert.equal(configError({ ...QWEN3_06B, hidden_act: 'gelu' }), 'config.json: hidden_act "gelu" is not supported; FFN Lens computes the SwiGLU MLP ("silu")');
    assert.equal(configError({ ...QWEN3_06B, rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 32768 } }), 'config.json: "rope_scaling" of type "yarn" is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"');
  });

  it('tensor names: q_norm and k_norm [head_dim] after the projections (and their biases with attention_bias)', () => {
    assert.deepEqual(expectedTensors(parse({ ...MIN, head_dim: 6, num_key_value_heads: 2, attention_bias: true })).map(tensorRow).slice(1, 12), [
      'layers.0.input_layernorm.weight [16] → layers.0.ln1.gamma',
      'layers.0.self_attn.q_proj.weight [24, 16] → layers.0.attn.Wq out_in',
      'layers.0.self_attn.k_proj.weight [12, 16] → layers.0.attn.Wk out_in',
      'layers.0.self_attn.v_proj.weight [12, 16] → layers.0.attn.Wv out_in',
      'layers.0.self_attn.q_proj.bias [24] → layers.0.attn.bq',
      'layers.0.self_attn.k_proj.bias [12] → layers.0.attn.bk',
      'layers.0.self_attn.v_proj.bias [12] → layers.0.attn.bv',
      'layers.0.self_attn.q_norm.weight [6] → layers.0.attn.q_norm.gamma',
      'layers.0.self_attn.k_norm.weight [6] → layers.0.attn.k_norm.gamma',
      'layers.0.self_attn.o_proj.weight [16, 24] → layers.0.attn.Wo out_in',
      'layers.0.self_attn.o_proj.bias [16] → layers.0.attn.bo',
    ]);
  });
});
