// The checkpoint loader: the real stories260K (greedy decoding from BOS gives the continuation
// llama2.c gives), checkpoints written here in every dtype, with and without the model's prefix,
// sharded, and one clear error for each way a folder can be wrong.
import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { forward } from '../core/forward';
import { tsKernel } from '../core/kernel';
import { memoryFiles } from './files';
import { archSpec, CheckpointError, loadCheckpoint } from './load';
import { nodeFiles } from './nodeFiles';
import { f16 } from './safetensors';

const REPO = resolve(__dirname, '../../..');

/** A safetensors file of these tensors (F32 values, stored as `dtype`). */
function safetensors(tensors: Record<string, { shape: number[]; data: number[] }>, dtype: 'F32' | 'F16' | 'BF16' = 'F32'): Uint8Array {
  const per = dtype === 'F32' ? 4 : 2;
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype, shape: t.shape, data_offsets: [at, at + t.data.length * per] };
    at += t.data.length * per;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8);
  const out = new Uint8Array(8 + json.length + at);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  let p = 8 + json.length;
  for (const t of Object.values(tensors)) {
    for (const v of t.data) {
      if (dtype === 'F32') dv.setFloat32(p, v, true);
      else if (dtype === 'BF16') { const f = new Float32Array([v]); dv.setUint16(p, new Uint32Array(f.buffer)[0] >>> 16, true); }
      else dv.setUint16(p, toF16(v), true);
      p += per;
    }
  }
  return out;
}

/** Numbers exactly representable in every dtype used here (small multiples of 1/8). */
function toF16(v: number): number {
  if (v === 0) return 0;
  const s = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const e = Math.floor(Math.log2(a));
  const m = Math.round((a / 2 ** e - 1) * 1024);
  return s | ((e + 15) << 10) | m;
}

function numbers(n: number, seed: number): number[] {
  return Array.from({ length: n }, (_, i) => (((i * 7 + seed * 13) % 17) - 8) / 8);
}

function tinyGpt2(prefix: string): Record<string, { shape: number[]; data: number[] }> {
  const C = 4, F = 8, V = 6, P = 5;
  const t: Record<string, { shape: number[]; data: number[] }> = {};
  const add = (n: string, shape: number[], seed: number): void => void (t[prefix + n] = { shape, data: numbers(shape.reduce((a, b) => a * b, 1), seed) });
  add('wte.weight', [V, C], 1); add('wpe.weight', [P, C], 2);
  add('h.0.ln_1.weight', [C], 3); add('h.0.ln_1.bias', [C], 4);
  add('h.0.attn.c_attn.weight', [C, 3 * C], 5); add('h.0.attn.c_attn.bias', [3 * C], 6);
  add('h.0.attn.c_proj.weight', [C, C], 7); add('h.0.attn.c_proj.bias', [C], 8);
  add('h.0.attn.bias', [1, 1, P, P], 9); // a buffer, not a weight
  add('h.0.ln_2.weight', [C], 10); add('h.0.ln_2.bias', [C], 11);
  add('h.0.mlp.c_fc.weight', [C, F], 12); add('h.0.mlp.c_fc.bias', [F], 13);
  add('h.0.mlp.c_proj.weight', [F, C], 14); add('h.0.mlp.c_proj.bias', [C], 15);
  add('ln_f.weight', [C], 16); add('ln_f.bias', [C], 17);
  return t;
}
const GPT2_CONFIG = JSON.stringify({ model_type: 'gpt2', n_embd: 4, n_layer: 1, n_head: 2, n_inner: 8, n_positions: 5, vocab_size: 6, layer_norm_epsilon: 1e-5 });

function tinyLlama(qwen: boolean): Record<string, { shape: number[]; data: number[] }> {
  const C = 8, F = 6, V = 7, NH = 4, KVH = 2, HS = 2;
  const t: Record<string, { shape: number[]; data: number[] }> = {};
  const add = (n: string, shape: number[], seed: number): void => void (t[n] = { shape, data: numbers(shape.reduce((a, b) => a * b, 1), seed) });
  add('model.embed_tokens.weight', [V, C], 1);
  add('model.layers.0.input_layernorm.weight', [C], 2);
  add('model.layers.0.self_attn.q_proj.weight', [NH * HS, C], 3);
  add('model.layers.0.self_attn.k_proj.weight', [KVH * HS, C], 4);
  add('model.layers.0.self_attn.v_proj.weight', [KVH * HS, C], 5);
  if (qwen) { add('model.layers.0.self_attn.q_proj.bias', [NH * HS], 6); add('model.layers.0.self_attn.k_proj.bias', [KVH * HS], 7); add('model.layers.0.self_attn.v_proj.bias', [KVH * HS], 8); }
  add('model.layers.0.self_attn.o_proj.weight', [C, NH * HS], 9);
  add('model.layers.0.post_attention_layernorm.weight', [C], 10);
  add('model.layers.0.mlp.gate_proj.weight', [F, C], 11);
  add('model.layers.0.mlp.up_proj.weight', [F, C], 12);
  add('model.layers.0.mlp.down_proj.weight', [C, F], 13);
  add('model.norm.weight', [C], 14);
  add('lm_head.weight', [V, C], 15);
  return t;
}
const llamaConfig = (qwen: boolean): string => JSON.stringify({ model_type: qwen ? 'qwen2' : 'llama', hidden_size: 8, intermediate_size: 6, num_hidden_layers: 1, num_attention_heads: 4, num_key_value_heads: 2, vocab_size: 7, rms_norm_eps: 1e-6, tie_word_embeddings: false });

const files = (entries: Record<string, Uint8Array | string>) => memoryFiles(new Map(Object.entries(entries).map(([k, v]) => [`/m/${k}`, typeof v === 'string' ? new TextEncoder().encode(v) : v])));

describe('checkpoint loader', () => {
  it('stories260K: greedy decoding from BOS gives 403 407 261 378 432 383 286 261 376, as llama2.c', async () => {
    const ck = await loadCheckpoint(nodeFiles, join(REPO, 'samples', 'stories260K'));
    assert.equal(ck.arch.modelType, 'llama');
    assert.deepEqual([ck.arch.C, ck.arch.L, ck.arch.NH, ck.arch.KVH, ck.arch.HS, ck.arch.F, ck.arch.V], [64, 5, 8, 4, 8, 172, 512]);
    assert.equal(ck.paramCount, 260_032);
    assert.deepEqual(ck.dtypes, ['F32']);
    assert.equal(ck.params.get('head.W'), ck.params.get('embed'), 'tied: one Param');
    const ids = [1];
    for (let step = 0; step < 9; step++) {
      const stages = forward({ spec: archSpec(ck.arch, { ids, temperature: 1, lens: false }), params: ck.params }, tsKernel);
      const logits = stages.find((s) => s.id === 'head.logits')!;
      const V = logits.shape[1];
      const last = logits.data.subarray((ids.length - 1) * V, ids.length * V);
      ids.push(last.indexOf(Math.max(...last)));
    }
    assert.deepEqual(ids.slice(1), [403, 407, 261, 378, 432, 383, 286, 261, 376]);
  });

  it('gpt2 with and without the "transformer." prefix, F32 and F16: c_attn split into Q, K, V (in_out); buffers ignored', async () => {
    for (const [prefix, dtype] of [['transformer.', 'F32'], ['', 'F16']] as const) {
      const t = tinyGpt2(prefix);
      const ck = await loadCheckpoint(files({ 'config.json': GPT2_CONFIG, 'model.safetensors': safetensors(t, dtype) }), '/m');
      assert.deepEqual(ck.dtypes, [dtype]);
      assert.deepEqual(ck.ignored, [`${prefix}h.0.attn.bias`]);
      const qkv = t[`${prefix}h.0.attn.c_attn.weight`].data;
      const Wk = ck.params.get('layers.0.attn.Wk')!;
      assert.equal(Wk.layout, 'in_out');
      assert.deepEqual(Wk.shape, [4, 4]);
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) assert.equal(Wk.data[r * 4 + c], qkv[r * 12 + 4 + c]);
      assert.deepEqual(Array.from(ck.params.get('layers.0.attn.bv')!.data), t[`${prefix}h.0.attn.c_attn.bias`].data.slice(8, 12));
      assert.equal(ck.params.get('head.W'), ck.params.get('embed'));
      const stages = forward({ spec: archSpec(ck.arch, { ids: [1, 2, 3], temperature: 1, lens: true }), params: ck.params });
      assert.deepEqual(stages.find((s) => s.id === 'head.probs')!.shape, [3, 6]);
    }
  });

  it('llama (BF16, sharded with an index) and qwen2 (q/k/v biases): every param in out_in, GQA shapes', async () => {
    const t = tinyLlama(false);
    const names = Object.keys(t);
    const a = Object.fromEntries(names.slice(0, 6).map((n) => [n, t[n]]));
    const b = Object.fromEntries(names.slice(6).map((n) => [n, t[n]]));
    const index = JSON.stringify({ metadata: {}, weight_map: Object.fromEntries(names.map((n, i) => [n, i < 6 ? 'model-00001-of-00002.safetensors' : 'model-00002-of-00002.safetensors'])) });
    const ck = await loadCheckpoint(files({ 'config.json': llamaConfig(false), 'model.safetensors.index.json': index, 'model-00001-of-00002.safetensors': safetensors(a, 'BF16'), 'model-00002-of-00002.safetensors': safetensors(b, 'BF16') }), '/m');
    assert.deepEqual(ck.dtypes, ['BF16']);
    assert.deepEqual(ck.params.get('layers.0.attn.Wk')!.shape, [4, 8]);
    assert.deepEqual(Array.from(ck.params.get('layers.0.ffn.Wg')!.data), t['model.layers.0.mlp.gate_proj.weight'].data);
    assert.notEqual(ck.params.get('head.W'), ck.params.get('embed'), 'untied');
    const q = await loadCheckpoint(files({ 'config.json': llamaConfig(true), 'model.safetensors': safetensors(tinyLlama(true)) }), '/m');
    assert.deepEqual(Array.from(q.params.get('layers.0.attn.bk')!.data), tinyLlama(true)['model.layers.0.self_attn.k_proj.bias'].data);
    const s = forward({ spec: archSpec(q.arch, { ids: [0, 6, 2], temperature: 0.5, lens: false }), params: q.params });
    assert.deepEqual(s.find((x) => x.id === 'layers.0.attn.k')!.shape, [2, 3, 2]);
  });

  it('f16: exact, subnormals, infinities and NaN', () => {
    assert.equal(f16(0x3c00), 1);
    assert.equal(f16(0xc000), -2);
    assert.equal(f16(0x0001), 2 ** -24);
    assert.equal(f16(0x7bff), 65504);
    assert.equal(f16(0x7c00), Infinity);
    assert.equal(f16(0xfc00), -Infinity);
    assert.ok(Number.isNaN(f16(0x7e00)));
  });

  it('one clear error for each way a folder can be wrong', async () => {
    const good = safetensors(tinyGpt2(''));
    const truncated = good.subarray(0, good.length - 10);
    const longHeader = good.slice();
    new DataView(longHeader.buffer).setBigUint64(0, BigInt(good.length), true);
    const wrongShape = tinyGpt2('');
    wrongShape['h.0.mlp.c_fc.weight'] = { shape: [8, 4], data: numbers(32, 1) };
    const missing = tinyGpt2('');
    delete missing['ln_f.bias'];
    const cases: Array<[Record<string, Uint8Array | string>, RegExp]> = [
      [{}, /no config\.json in \/m/],
      [{ 'config.json': '{"model_type": "bert"}' }, /model_type "bert" is not supported; FFN Lens reads gpt2, llama, qwen2/],
      [{ 'config.json': '{"model_type": "gpt2", "n_embd": 4}' }, /"n_head" must be a positive whole number \(it is missing\)/],
      [{ 'config.json': GPT2_CONFIG }, /no model\.safetensors \(nor model\.safetensors\.index\.json with its shards\)/],
      [{ 'config.json': GPT2_CONFIG, 'model.safetensors': truncated }, /past the end of the file .*truncated/],
      [{ 'config.json': GPT2_CONFIG, 'model.safetensors': longHeader }, /truncated or not a safetensors file: its header says/],
      [{ 'config.json': GPT2_CONFIG, 'model.safetensors': new Uint8Array([1, 2, 3]) }, /not a safetensors file: 3 bytes/],
      [{ 'config.json': GPT2_CONFIG, 'model.safetensors': safetensors(wrongShape) }, /h\.0\.mlp\.c_fc\.weight is \[8, 4\], expected \[n_embd, n_inner\] = \[4, 8\]/],
      [{ 'config.json': GPT2_CONFIG, 'model.safetensors': safetensors(missing) }, /has no tensor ln_f\.bias/],
      [{ 'config.json': llamaConfig(false), 'model.safetensors.index.json': '{"weight_map": {"a": "model-00001-of-00002.safetensors"}}' }, /model-00001-of-00002\.safetensors, a shard .* is missing/],
    ];
    for (const [entries, re] of cases) {
      await assert.rejects(loadCheckpoint(files(entries), '/m'), (e: unknown) => e instanceof CheckpointError && re.test(e.message) && !e.message.includes('\n'), String(re));
    }
  });
});
