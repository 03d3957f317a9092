// Hugging Face names → the core's param ids, shapes and layouts, per architecture; GPT-2's c_attn
// split worked out by hand; names found with or without the model's prefix.
import * as assert from 'node:assert/strict';
import { parseConfig } from './config';
import { expectedTensors, headTensor, modelPrefix, paramsOf, storedName, type ExpectedTensor } from './tensorNames';

const gpt2 = parseConfig(JSON.stringify({ model_type: 'gpt2', n_embd: 4, n_head: 2, n_layer: 1, n_inner: 6, n_positions: 5, vocab_size: 7 }));
const llama = (extra: object = {}) => parseConfig(JSON.stringify({
  model_type: 'llama', hidden_size: 8, intermediate_size: 6, num_hidden_layers: 1, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 4, vocab_size: 9, ...extra,
}));
const row = (t: ExpectedTensor) => {
  const r = t.role;
  const to = r.kind === 'matrix' ? `${r.id} ${r.layout}` : r.kind === 'vector' ? r.id : `${r.kind} ${r.layer}`;
  return `${t.name} [${t.shape.join(', ')}] → ${to}`;
};

describe('checkpoint tensor names', () => {
  it('gpt2: Conv1D weights in_out, c_attn whole (split later), the head apart', () => {
    assert.deepEqual(expectedTensors(gpt2).map(row), [
      'wte.weight [7, 4] → embed out_in',
      'wpe.weight [5, 4] → pos out_in',
      'h.0.ln_1.weight [4] → layers.0.ln1.gamma',
      'h.0.ln_1.bias [4] → layers.0.ln1.beta',
      'h.0.attn.c_attn.weight [4, 12] → qkv 0',
      'h.0.attn.c_attn.bias [12] → qkvBias 0',
      'h.0.attn.c_proj.weight [4, 4] → layers.0.attn.Wo in_out',
      'h.0.attn.c_proj.bias [4] → layers.0.attn.bo',
      'h.0.ln_2.weight [4] → layers.0.ln2.gamma',
      'h.0.ln_2.bias [4] → layers.0.ln2.beta',
      'h.0.mlp.c_fc.weight [4, 6] → layers.0.ffn.W1 in_out',
      'h.0.mlp.c_fc.bias [6] → layers.0.ffn.b1',
      'h.0.mlp.c_proj.weight [6, 4] → layers.0.ffn.W2 in_out',
      'h.0.mlp.c_proj.bias [4] → layers.0.ffn.b2',
      'ln_f.weight [4] → ln_f.gamma',
      'ln_f.bias [4] → ln_f.beta',
    ]);
    assert.equal(row(headTensor(gpt2)), 'lm_head.weight [7, 4] → head.W out_in');
    assert.equal(modelPrefix('gpt2'), 'transformer.');
  });

  it('llama: Linear weights out_in with GQA shapes (head_dim × heads ≠ hidden allowed); no biases', () => {
    assert.deepEqual(expectedTensors(llama()).map(row), [
      'embed_tokens.weight [9, 8] → embed out_in',
      'layers.0.input_layernorm.weight [8] → layers.0.ln1.gamma',
      'layers.0.self_attn.q_proj.weight [16, 8] → layers.0.attn.Wq out_in',
      'layers.0.self_attn.k_proj.weight [8, 8] → layers.0.attn.Wk out_in',
      'layers.0.self_attn.v_proj.weight [8, 8] → layers.0.attn.Wv out_in',
      'layers.0.self_attn.o_proj.weight [8, 16] → layers.0.attn.Wo out_in',
      'layers.0.post_attention_layernorm.weight [8] → layers.0.ln2.gamma',
      'layers.0.mlp.gate_proj.weight [6, 8] → layers.0.ffn.Wg out_in',
      'layers.0.mlp.up_proj.weight [6, 8] → layers.0.ffn.W1 out_in',
      'layers.0.mlp.down_proj.weight [8, 6] → layers.0.ffn.W2 out_in',
      'norm.weight [8] → ln_f.gamma',
    ]);
    assert.equal(expectedTensors(llama())[3].what, '[kv_heads·head_dim, hidden_size]');
    assert.equal(modelPrefix('llama'), 'model.');
    assert.equal(modelPrefix('qwen2'), 'model.');
  });

  it("qwen2's q/k/v biases; llama's attention_bias (q, k, v, o) and mlp_bias", () => {
    const q = parseConfig(JSON.stringify({ model_type: 'qwen2', hidden_size: 8, intermediate_size: 6, num_hidden_layers: 1, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 9 }));
    assert.deepEqual(expectedTensors(q).filter((t) => t.name.endsWith('.bias')).map(row), [
      'layers.0.self_attn.q_proj.bias [8] → layers.0.attn.bq',
      'layers.0.self_attn.k_proj.bias [4] → layers.0.attn.bk',
      'layers.0.self_attn.v_proj.bias [4] → layers.0.attn.bv',
    ]);
    assert.deepEqual(expectedTensors(llama({ attention_bias: true, mlp_bias: true })).filter((t) => t.name.endsWith('.bias')).map(row), [
      'layers.0.self_attn.q_proj.bias [16] → layers.0.attn.bq',
      'layers.0.self_attn.k_proj.bias [8] → layers.0.attn.bk',
      'layers.0.self_attn.v_proj.bias [8] → layers.0.attn.bv',
      'layers.0.self_attn.o_proj.bias [8] → layers.0.attn.bo',
      'layers.0.mlp.gate_proj.bias [6] → layers.0.ffn.bg',
      'layers.0.mlp.up_proj.bias [6] → layers.0.ffn.b1',
      'layers.0.mlp.down_proj.bias [8] → layers.0.ffn.b2',
    ]);
  });

  it("c_attn [C][3C] is split into Wq, Wk, Wv [C, C] in_out, and its bias into bq, bk, bv (by hand, C = 2)", () => {
    const w = Float32Array.from({ length: 12 }, (_, i) => i); // rows [0..5], [6..11]
    const qkv: ExpectedTensor = { name: 'h.3.attn.c_attn.weight', shape: [2, 6], what: '', role: { kind: 'qkv', layer: 3 } };
    const got = paramsOf(qkv, w).map(([id, p]) => [id, Array.from(p.data!), p.shape, p.layout]);
    assert.deepEqual(got, [
      ['layers.3.attn.Wq', [0, 1, 6, 7], [2, 2], 'in_out'],
      ['layers.3.attn.Wk', [2, 3, 8, 9], [2, 2], 'in_out'],
      ['layers.3.attn.Wv', [4, 5, 10, 11], [2, 2], 'in_out'],
    ]);
    const b: ExpectedTensor = { name: 'h.3.attn.c_attn.bias', shape: [6], what: '', role: { kind: 'qkvBias', layer: 3 } };
    assert.deepEqual(paramsOf(b, Float32Array.from([10, 11, 12, 13, 14, 15])).map(([id, p]) => [id, Array.from(p.data!), p.shape]), [
      ['layers.3.attn.bq', [10, 11], [2]], ['layers.3.attn.bk', [12, 13], [2]], ['layers.3.attn.bv', [14, 15], [2]],
    ]);
  });

  it('a matrix or a vector is its data as read (no copy)', () => {
    const d = new Float32Array(6);
    const [[id, p]] = paramsOf({ name: 'x', shape: [2, 3], what: '', role: { kind: 'matrix', id: 'layers.0.ffn.W1', layout: 'out_in' } }, d);
    assert.equal(id, 'layers.0.ffn.W1');
    assert.equal(p.data, d);
    assert.deepEqual(p.shape, [2, 3]);
  });

  it('names are found with the prefix, else without', () => {
    assert.equal(storedName(new Set(['transformer.h.0.ln_1.weight']), 'h.0.ln_1.weight', 'transformer.'), 'transformer.h.0.ln_1.weight');
    assert.equal(storedName(new Set(['h.0.ln_1.weight']), 'h.0.ln_1.weight', 'transformer.'), 'h.0.ln_1.weight');
    assert.equal(storedName(new Set(['model.norm.weight', 'norm.weight']), 'norm.weight', 'model.'), 'model.norm.weight');
    assert.equal(storedName(new Set(['lm_head.weight']), 'lm_head.weight', 'model.'), 'lm_head.weight');
    assert.equal(storedName(new Set(['x']), 'norm.weight', 'model.'), null);
  });
});
