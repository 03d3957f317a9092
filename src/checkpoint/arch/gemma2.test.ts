// gemma2: Gemma-2-2B's config.json as on the Hub; Gemma2Config's defaults (soft-caps 50 and 30,
// window 4096 on even layers, query_pre_attn_scalar 256, head_dim 256); layer_types; refusals;
// tensor names (the four norms a layer, tied head).
import * as assert from 'node:assert/strict';
import { expectedTensors } from '../tensorNames';
import { configError, parse, tensorRow } from './testing';

export const GEMMA2_2B = {
  architectures: ['Gemma2ForCausalLM'], attention_bias: false, attention_dropout: 0.0, attn_logit_softcapping: 50.0, bos_token_id: 2,
  cache_implementation: 'hybrid', eos_token_id: 1, final_logit_softcapping: 30.0, head_dim: 256, hidden_act: 'gelu_pytorch_tanh',
  hidden_activation: 'gelu_pytorch_tanh', hidden_size: 2304, initializer_range: 0.02, intermediate_size: 9216, max_position_embeddings: 8192,
  model_type: 'gemma2', num_attention_heads: 8, num_hidden_layers: 26, num_key_value_heads: 4, pad_token_id: 0, query_pre_attn_scalar: 256,
  rms_norm_eps: 1e-6, rope_theta: 10000.0, sliding_window: 4096, torch_dtype: 'float32', transformers_version: '4.42.4', use_cache: true, vocab_size: 256000,
};
const MIN = { model_type: 'gemma2', hidden_size: 16, intermediate_size: 40, num_hidden_layers: 3, num_attention_heads: 4, vocab_size: 80 };

describe('arch gemma2', () => {
  it('Gemma-2-2B as on the Hub: every option of its block', () => {
    assert.deepEqual(parse(GEMMA2_2B), {
      modelType: 'gemma2', C: 2304, F: 9216, L: 26, NH: 8, KVH: 4, HS: 256, V: 256000, bos: 2, maxPositions: 8192, eps: 1e-6,
      activation: 'geglu_tanh', ropeTheta: 10000, ropeScaling: null, dynamicRope: false, tied: true, qkvBias: false, oBias: false, mlpBias: false,
      normOnePlus: true, postNorms: true, attnScale: 1 / 16, embedScale: Math.fround(48), attnSoftcap: 50, finalSoftcap: 30,
      slidingWindow: Array.from({ length: 26 }, (_, i) => (i % 2 === 0 ? 4096 : null)),
    });
  });

  it("Gemma2Config's defaults: head_dim 256, 4 kv heads, soft-caps 50 / 30, window 4096 on even layers, scalar 256, tied, bos 2", () => {
    const a = parse({ ...MIN, hidden_size: 48 });
    assert.deepEqual([a.HS, a.KVH, a.attnSoftcap, a.finalSoftcap, a.slidingWindow, a.attnScale, a.tied, a.bos, a.maxPositions], [256, 4, 50, 30, [4096, null, 4096], 1 / 16, true, 2, 8192]);
    assert.equal(a.embedScale, Math.fround(Math.sqrt(48)));
    const b = parse({ ...MIN, head_dim: 8, attn_logit_softcapping: null, final_logit_softcapping: null, sliding_window: null, query_pre_attn_scalar: 12, hidden_activation: 'gelu' });
    assert.deepEqual([b.attnSoftcap, b.finalSoftcap, b.slidingWindow, b.attnScale, b.activation], [undefined, undefined, undefined, 12 ** -0.5, 'geglu']);
    assert.deepEqual(parse({ ...MIN, layer_types: ['full_attention', 'sliding_attention', 'full_attention'], sliding_window: 3 }).slidingWindow, [null, 3, null]);
    const biased = parse({ ...MIN, attention_bias: true });
    assert.deepEqual([biased.qkvBias, biased.oBias, biased.mlpBias], [true, true, false]);
  });

  it('refuses what it would compute wrongly, naming the field', () => {
    assert.equal(configError({ ...MIN, hidden_activation: 'silu' }), 'config.json: hidden_activation "silu" is not supported; FFN Lens computes the gated MLP of gelu_pytorch_tanh, gelu_new, gelu');
    assert.equal(configError({ ...MIN, sliding_window: 2.5 }), 'config.json: "sliding_window" must be a positive whole number or null, found 2.5');
    assert.equal(configError({ ...MIN, attn_logit_softcapping: 0 }), 'config.json: "attn_logit_softcapping" must be a positive number or null, found 0');
    assert.equal(configError({ ...MIN, layer_types: ['sliding_attention'] }), 'config.json: "layer_types" must list "sliding_attention" or "full_attention" for each of the 3 layers, found ["sliding_attention"]');
    assert.equal(configError({ ...MIN, rope_scaling: { rope_type: 'yarn', factor: 8 } }), 'config.json: "rope_scaling" of type "yarn" is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"');
    assert.equal(configError({ ...MIN, head_dim: 7 }), 'config.json: the head size 7 is odd; RoPE rotates pairs of dimensions');
  });

  it('tensor names: input_layernorm ln1, post_attention_layernorm ln1_post, pre_feedforward_layernorm ln2, post_feedforward_layernorm ln2_post', () => {
    const rows = expectedTensors(parse({ ...MIN, num_hidden_layers: 1, head_dim: 8, num_key_value_heads: 2 })).map(tensorRow);
    assert.deepEqual(rows, [
      'embed_tokens.weight [80, 16] → embed out_in',
      'layers.0.input_layernorm.weight [16] → layers.0.ln1.gamma',
      'layers.0.self_attn.q_proj.weight [32, 16] → layers.0.attn.Wq out_in',
      'layers.0.self_attn.k_proj.weight [16, 16] → layers.0.attn.Wk out_in',
      'layers.0.self_attn.v_proj.weight [16, 16] → layers.0.attn.Wv out_in',
      'layers.0.self_attn.o_proj.weight [16, 32] → layers.0.attn.Wo out_in',
      'layers.0.post_attention_layernorm.weight [16] → layers.0.ln1_post.gamma',
      'layers.0.pre_feedforward_layernorm.weight [16] → layers.0.ln2.gamma',
      'layers.0.mlp.gate_proj.weight [40, 16] → layers.0.ffn.Wg out_in',
      'layers.0.mlp.up_proj.weight [40, 16] → layers.0.ffn.W1 out_in',
      'layers.0.mlp.down_proj.weight [16, 40] → layers.0.ffn.W2 out_in',
      'layers.0.post_feedforward_layernorm.weight [16] → layers.0.ln2_post.gamma',
      'norm.weight [16] → ln_f.gamma',
    ]);
  });
});
