// gpt_neox: Pythia-160M's config.json as on the Hub; GPTNeoXConfig's defaults; transformers 5's
// rope_parameters; the refusals; the tensor names (query_key_value fused per head, embed_out).
import * as assert from 'node:assert/strict';
import { expectedTensors, headTensor, modelPrefix } from '../tensorNames';
import { configError, parse, tensorRow } from './testing';

export const PYTHIA_160M = {
  architectures: ['GPTNeoXForCausalLM'], bos_token_id: 0, eos_token_id: 0, hidden_act: 'gelu', hidden_size: 768, initializer_range: 0.02,
  intermediate_size: 3072, layer_norm_eps: 1e-5, max_position_embeddings: 2048, model_type: 'gpt_neox', num_attention_heads: 12,
  num_hidden_layers: 12, rotary_emb_base: 10000, rotary_pct: 0.25, tie_word_embeddings: false, torch_dtype: 'float16',
  transformers_version: '4.24.0', use_cache: true, use_parallel_residual: true, vocab_size: 50304,
};
const MIN = { model_type: 'gpt_neox', hidden_size: 16, intermediate_size: 48, num_hidden_layers: 1, num_attention_heads: 2, vocab_size: 80 };

describe('arch gpt_neox', () => {
  it('Pythia-160M as on the Hub: LayerNorm, exact GELU, parallel residual, rotary on 16 of 64 dims, per-head fused qkv, biases, untied', () => {
    assert.deepEqual(parse(PYTHIA_160M), {
      modelType: 'gpt_neox', C: 768, F: 3072, L: 12, NH: 12, KVH: 12, HS: 64, V: 50304, bos: 0, maxPositions: 2048, eps: 1e-5,
      activation: 'gelu', ropeTheta: 10000, ropeScaling: null, dynamicRope: false, tied: false, qkvBias: true, oBias: true, mlpBias: true,
      normKind: 'layernorm', fusedQkv: 'qkv_per_head', parallelResidual: true,
      layerRope: Array.from({ length: 12 }, () => ({ theta: 10000, scaling: null, rotaryDims: 16 })),
    });
  });

  it("GPTNeoXConfig's defaults: rotary_pct 0.25, base 10000, parallel, eps 1e-5, 2048 positions, bos 0, attention_bias true", () => {
    const a = parse(MIN);
    assert.deepEqual([a.layerRope?.[0].rotaryDims, a.ropeTheta, a.parallelResidual, a.eps, a.maxPositions, a.bos, a.qkvBias, a.oBias, a.tied, a.activation], [2, 10000, true, 1e-5, 2048, 0, true, true, false, 'gelu']);
    const seq = parse({ ...MIN, use_parallel_residual: false, attention_bias: false, rotary_pct: 1, hidden_act: 'gelu_new' });
    assert.deepEqual([seq.parallelResidual, seq.qkvBias, seq.oBias, seq.mlpBias, seq.layerRope, seq.activation], [undefined, false, false, true, undefined, 'gelu_tanh']);
  });

  it("transformers 5's names: rope_parameters' rope_theta and partial_rotary_factor, or rope_theta at the top", () => {
    const a = parse({ ...MIN, rope_parameters: { rope_type: 'default', rope_theta: 500, partial_rotary_factor: 0.5 } });
    assert.deepEqual(a.layerRope?.[0], { theta: 500, scaling: null, rotaryDims: 4 });
    assert.equal(parse({ ...MIN, rope_theta: 777 }).ropeTheta, 777);
    assert.equal(parse({ ...MIN, rotary_emb_base: 99, rope_theta: 777 }).ropeTheta, 99);
    assert.deepEqual(parse({ ...MIN, rope_scaling: { type: 'linear', factor: 2 } }).layerRope?.[0].scaling, { type: 'linear', factor: 2 });
  });

  it('refuses what it would compute wrongly, naming the field', () => {
    assert.equal(configError({ ...MIN, hidden_act: 'gelu_fast' }), 'config.json: hidden_act "gelu_fast" is not supported; FFN Lens computes gelu_new, gelu_pytorch_tanh, gelu, relu');
    assert.equal(configError({ ...MIN, rotary_pct: 0.4 }), 'config.json: "rotary_pct" 0.4 rotates 3 of each head\'s 8 dims, an odd number; RoPE rotates pairs of dimensions');
    assert.equal(parse({ ...MIN, rotary_pct: 0.3 }).layerRope?.[0].rotaryDims, 2, 'int(8 · 0.3) = 2');
    assert.equal(configError({ ...MIN, num_attention_heads: 4, hidden_size: 24 }), 'config.json: "rotary_pct" 0.25 (its default) rotates 1 of each head\'s 6 dims, an odd number; RoPE rotates pairs of dimensions');
    assert.equal(configError({ ...MIN, rotary_pct: 1.5 }), 'config.json: "rotary_pct" must be a number above 0 and at most 1, found 1.5');
    assert.equal(configError({ ...MIN, hidden_size: 15 }), 'config.json: hidden_size 15 must be a multiple of num_attention_heads 2');
    assert.equal(configError({ ...MIN, rope_scaling: { type: 'yarn', factor: 4 } }), 'config.json: "rope_scaling" of type "yarn" is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"');
    assert.equal(configError({ ...MIN, use_parallel_residual: 'yes' }), 'config.json: "use_parallel_residual" must be true or false, found "yes"');
  });

  it('tensor names: gpt_neox. prefix, LayerNorms with bias, query_key_value fused per head with its bias, dense, the MLP with biases, embed_out', () => {
    const a = parse(MIN);
    assert.deepEqual(expectedTensors(a).map(tensorRow), [
      'embed_in.weight [80, 16] → embed out_in',
      'layers.0.input_layernorm.weight [16] → layers.0.ln1.gamma',
      'layers.0.input_layernorm.bias [16] → layers.0.ln1.beta',
      'layers.0.post_attention_layernorm.weight [16] → layers.0.ln2.gamma',
      'layers.0.post_attention_layernorm.bias [16] → layers.0.ln2.beta',
      'layers.0.attention.query_key_value.weight [48, 16] → qkv_per_head 0',
      'layers.0.attention.query_key_value.bias [48] → qkv_per_head bias 0',
      'layers.0.attention.dense.weight [16, 16] → layers.0.attn.Wo out_in',
      'layers.0.attention.dense.bias [16] → layers.0.attn.bo',
      'layers.0.mlp.dense_h_to_4h.weight [48, 16] → layers.0.ffn.W1 out_in',
      'layers.0.mlp.dense_h_to_4h.bias [48] → layers.0.ffn.b1',
      'layers.0.mlp.dense_4h_to_h.weight [16, 48] → layers.0.ffn.W2 out_in',
      'layers.0.mlp.dense_4h_to_h.bias [16] → layers.0.ffn.b2',
      'final_layer_norm.weight [16] → ln_f.gamma',
      'final_layer_norm.bias [16] → ln_f.beta',
    ]);
    assert.equal(tensorRow(headTensor(a)), 'embed_out.weight [80, 16] → head.W out_in');
    assert.equal(modelPrefix('gpt_neox'), 'gpt_neox.');
    assert.ok(!expectedTensors(parse({ ...MIN, attention_bias: false })).some((t) => /query_key_value.bias|dense.bias$/.test(t.name)));
  });
});
