// mistral: Mistral-7B-v0.1 (sliding_window 4096) and v0.3 (null) as on the Hub; MistralConfig's
// defaults (a window of 4096 when absent, 8 kv heads); refusals; llama's tensor names.
import * as assert from 'node:assert/strict';
import { expectedTensors } from '../tensorNames';
import { configError, parse, tensorRow } from './testing';

const MISTRAL_7B_V01 = {
  architectures: ['MistralForCausalLM'], bos_token_id: 1, eos_token_id: 2, hidden_act: 'silu', hidden_size: 4096, initializer_range: 0.02,
  intermediate_size: 14336, max_position_embeddings: 32768, model_type: 'mistral', num_attention_heads: 32, num_hidden_layers: 32,
  num_key_value_heads: 8, rms_norm_eps: 1e-5, rope_theta: 10000.0, sliding_window: 4096, tie_word_embeddings: false, torch_dtype: 'bfloat16',
  transformers_version: '4.34.0.dev0', use_cache: true, vocab_size: 32000,
};
const MIN = { model_type: 'mistral', hidden_size: 16, intermediate_size: 40, num_hidden_layers: 2, num_attention_heads: 8, vocab_size: 80 };

describe('arch mistral', () => {
  it('Mistral-7B-v0.1 as on the Hub: llama\'s block with a window of 4096 on every layer', () => {
    assert.deepEqual(parse(MISTRAL_7B_V01), {
      modelType: 'mistral', C: 4096, F: 14336, L: 32, NH: 32, KVH: 8, HS: 128, V: 32000, bos: 1, maxPositions: 32768, eps: 1e-5,
      activation: 'swiglu', ropeTheta: 10000, ropeScaling: null, dynamicRope: false, tied: false, qkvBias: false, oBias: false, mlpBias: false,
      slidingWindow: Array.from({ length: 32 }, () => 4096),
    });
    // v0.2 and later: no window, and then exactly llama's block
    const v03 = parse({ ...MISTRAL_7B_V01, sliding_window: null, rope_theta: 1e6, vocab_size: 32768 });
    assert.equal(v03.slidingWindow, undefined);
  });

  it("MistralConfig's defaults: a window of 4096 when absent, 8 kv heads when absent (null: heads), head_dim given or hidden/heads", () => {
    const a = parse(MIN);
    assert.deepEqual([a.slidingWindow, a.KVH, a.HS, a.maxPositions, a.eps, a.bos], [[4096, 4096], 8, 2, 131072, 1e-6, 1]);
    assert.equal(parse({ ...MIN, hidden_size: 32, num_attention_heads: 16, num_key_value_heads: null }).KVH, 16);
    assert.equal(configError({ ...MIN, num_attention_heads: 4 }), 'config.json: num_attention_heads 4 must be a multiple of num_key_value_heads 8 (its default)');
    assert.equal(parse({ ...MIN, head_dim: 8 }).HS, 8);
  });

  it('refuses a window that is no whole number, other activations, other RoPE', () => {
    assert.equal(configError({ ...MIN, sliding_window: -1 }), 'config.json: "sliding_window" must be a positive whole number or null, found -1');
    assert.equal(configError({ ...MIN, hidden_act: 'relu' }), 'config.json: hidden_act "relu" is not supported; FFN Lens computes the SwiGLU MLP ("silu")');
    assert.equal(configError({ ...MIN, rope_scaling: { type: 'longrope' } }), 'config.json: "rope_scaling" of type "longrope" is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"');
  });

  it("tensor names: llama's, no biases", () => {
    const rows = expectedTensors(parse({ ...MIN, num_hidden_layers: 1 })).map(tensorRow);
    assert.equal(rows.length, 11);
    assert.ok(!rows.some((r) => r.includes('.bias')));
    assert.equal(rows[2], 'layers.0.self_attn.q_proj.weight [16, 16] → layers.0.attn.Wq out_in');
  });
});
