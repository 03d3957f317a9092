// phi3: Phi-3-mini-4k as on the Hub (sliding_window 2047 on every layer), Phi-3.5-mini's longrope
// refused by name, partial_rotary_factor (Phi-4-mini 0.75); qkv_proj and gate_up_proj names.
import * as assert from 'node:assert/strict';
import { expectedTensors, headTensor } from '../tensorNames';
import { configError, parse, tensorRow } from './testing';

const PHI3_MINI_4K = {
  architectures: ['Phi3ForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 1, embd_pdrop: 0.0, eos_token_id: 32000,
  hidden_act: 'silu', hidden_size: 3072, initializer_range: 0.02, intermediate_size: 8192, max_position_embeddings: 4096, model_type: 'phi3',
  num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, original_max_position_embeddings: 4096, pad_token_id: 32000,
  resid_pdrop: 0.0, rms_norm_eps: 1e-5, rope_scaling: null, rope_theta: 10000.0, sliding_window: 2047, tie_word_embeddings: false,
  torch_dtype: 'bfloat16', transformers_version: '4.40.2', use_cache: true, vocab_size: 32064,
};
const MIN = { model_type: 'phi3', hidden_size: 16, intermediate_size: 40, num_hidden_layers: 1, num_attention_heads: 2, vocab_size: 80 };

describe('arch phi3', () => {
  it('Phi-3-mini-4k as on the Hub: fused storage, a window of 2047 on every layer, whole-head RoPE', () => {
    assert.deepEqual(parse(PHI3_MINI_4K), {
      modelType: 'phi3', C: 3072, F: 8192, L: 32, NH: 32, KVH: 32, HS: 96, V: 32064, bos: 1, maxPositions: 4096, eps: 1e-5,
      activation: 'swiglu', ropeTheta: 10000, ropeScaling: null, dynamicRope: false, tied: false, qkvBias: false, oBias: false, mlpBias: false,
      fusedQkv: 'qkv', fusedGateUp: true, slidingWindow: Array.from({ length: 32 }, () => 2047),
    });
  });

  it("Phi3Config's defaults: no window, kv heads = heads, eps 1e-5, 4096 positions; partial_rotary_factor (Phi-4-mini's 0.75 of 128 = 96)", () => {
    const a = parse(MIN);
    assert.deepEqual([a.slidingWindow, a.KVH, a.eps, a.maxPositions, a.layerRope], [undefined, 2, 1e-5, 4096, undefined]);
    const p = parse({ ...MIN, hidden_size: 3072, num_attention_heads: 24, num_key_value_heads: 8, partial_rotary_factor: 0.75 });
    assert.deepEqual(p.layerRope, [{ theta: 10000, scaling: null, rotaryDims: 96 }]);
  });

  it('refuses longrope (Phi-3-128k, Phi-3.5, Phi-4-mini) naming the field and its type', () => {
    const longrope = { ...PHI3_MINI_4K, rope_scaling: { long_factor: [1, 1], short_factor: [1, 1], type: 'longrope' }, max_position_embeddings: 131072 };
    assert.equal(configError(longrope), 'config.json: "rope_scaling" of type "longrope" is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"');
    assert.equal(configError({ ...MIN, partial_rotary_factor: 0.4 }), 'config.json: "partial_rotary_factor" 0.4 rotates 3 of each head\'s 8 dims, an odd number; RoPE rotates pairs of dimensions');
  });

  it('tensor names: qkv_proj [(heads + 2·kv_heads)·head_dim, hidden] and gate_up_proj [2·intermediate, hidden], cut at load', () => {
    const a = parse({ ...MIN, num_attention_heads: 4, num_key_value_heads: 2 });
    assert.deepEqual(expectedTensors(a).map(tensorRow), [
      'embed_tokens.weight [80, 16] → embed out_in',
      'layers.0.input_layernorm.weight [16] → layers.0.ln1.gamma',
      'layers.0.self_attn.qkv_proj.weight [32, 16] → qkv 0',
      'layers.0.self_attn.o_proj.weight [16, 16] → layers.0.attn.Wo out_in',
      'layers.0.post_attention_layernorm.weight [16] → layers.0.ln2.gamma',
      'layers.0.mlp.gate_up_proj.weight [80, 16] → gate_up 0',
      'layers.0.mlp.down_proj.weight [16, 40] → layers.0.ffn.W2 out_in',
      'norm.weight [16] → ln_f.gamma',
    ]);
    assert.equal(tensorRow(headTensor(a)), 'lm_head.weight [80, 16] → head.W out_in');
  });
});
