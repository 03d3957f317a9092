// The checkpoint loader end to end: tiny GPT-2, Llama and Qwen2 checkpoints written here (every
// dtype, with and without the model's prefix, sharded) load into the core's params and run through
// the core's forward with every stage of the contract in its shape, the projections computed from
// the raw tensors by hand; the real stories260K decodes greedily as llama2.c does; one clear error
// for each way a folder can be wrong.
import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { forward } from '../core/forward';
import { floatData, outputsInputs, readOutputRow } from '../core/params';
import { createWasmKernel } from '../core/wasm/wasmKernel';
import type { Stage } from '../core/stages';
import { archSpec, CheckpointError, loadCheckpoint, type Checkpoint } from './load';
import { nodeFiles } from './nodeFiles';
import {
  checkpointFolder, dataOf, exactNumbers, folderOf, recordingFiles, safetensorsBytes, TINY_GPT2, TINY_LLAMA, tinyGpt2, tinyLlama,
  type TestTensors,
} from './testing';

const REPO = resolve(__dirname, '../../..');

const stagesOf = (ck: Checkpoint, ids: number[], lens = true): Map<string, Stage> =>
  new Map(forward({ spec: archSpec(ck.arch, { ids, temperature: 1, lens }), params: ck.params }).map((s) => [s.id, s]));

/** The contract's stage shapes (checkpoints-v1, Stages), for T tokens. */
function contractShapes(d: { C: number; NH: number; KVH: number; HS: number; F: number; V: number; L: number }, T: number, gated: boolean): Map<string, number[]> {
  const m = new Map<string, number[]>([['input', [T, d.C]]]);
  for (let i = 0; i < d.L; i++) {
    const p = `layers.${i}.`;
    m.set(`${p}ln1`, [T, d.C]).set(`${p}attn.q`, [d.NH, T, d.HS]).set(`${p}attn.k`, [d.KVH, T, d.HS]).set(`${p}attn.v`, [d.KVH, T, d.HS]);
    m.set(`${p}attn.scores`, [d.NH, T, T]).set(`${p}attn.weights`, [d.NH, T, T]).set(`${p}attn.context`, [T, d.NH * d.HS]);
    m.set(`${p}attn.out`, [T, d.C]).set(`${p}attn.residual`, [T, d.C]).set(`${p}ln2`, [T, d.C]);
    if (gated) m.set(`${p}ffn.gate`, [T, d.F]);
    m.set(`${p}ffn.up`, [T, d.F]).set(`${p}ffn.act`, [T, d.F]).set(`${p}ffn.down`, [T, d.C]).set(`${p}ffn.residual`, [T, d.C]).set(`${p}out`, [T, d.C]);
    m.set(`${p}lens.logits`, [T, d.V]);
  }
  return m.set('ln_f', [T, d.C]).set('output', [T, d.C]).set('head.logits', [T, d.V]).set('head.probs', [T, d.V]);
}

function assertShapes(stages: Map<string, Stage>, want: Map<string, number[]>): void {
  assert.deepEqual([...stages.keys()].sort(), [...want.keys()].sort());
  for (const [id, shape] of want) assert.deepEqual(stages.get(id)!.shape, shape, id);
  for (const [id, s] of stages) assert.ok(s.data.every(Number.isFinite), `${id} is finite`);
}

/** x [T][K] times a raw weight: [K][N] (in_out, Conv1D) or [N][K] (out_in, Linear), plus a bias slice. */
function project(x: Float32Array, T: number, K: number, w: ArrayLike<number>, N: number, layout: 'in_out' | 'out_in', cols: [number, number], bias?: ArrayLike<number>): number[][] {
  const [c0, c1] = cols;
  return Array.from({ length: T }, (_, t) => Array.from({ length: c1 - c0 }, (_, j) => {
    let s = bias ? bias[c0 + j] : 0;
    for (let k = 0; k < K; k++) s += x[t * K + k] * (layout === 'in_out' ? w[k * N + c0 + j] : w[(c0 + j) * K + k]);
    return s;
  }));
}

/** A [H, T, HS] stage as [T][H·HS] rows (head h's numbers in columns h·HS…). */
function headsToRows(s: Stage): number[][] {
  const [H, T, HS] = s.shape;
  return Array.from({ length: T }, (_, t) => Array.from({ length: H * HS }, (_, c) => s.data[(Math.floor(c / HS) * T + t) * HS + (c % HS)]));
}

function close(got: number[][], want: number[][], what: string): void {
  assert.equal(got.length, want.length, what);
  got.forEach((r, t) => r.forEach((v, j) => assert.ok(Math.abs(v - want[t][j]) <= 1e-5 + 1e-5 * Math.abs(want[t][j]), `${what}[${t}][${j}]: ${v} vs ${want[t][j]}`)));
}

const rows = (s: Stage): number[][] => Array.from({ length: s.shape[0] }, (_, t) => Array.from(s.data.subarray(t * s.shape[1], (t + 1) * s.shape[1])));

async function loadError(entries: Record<string, Uint8Array | string | object>): Promise<CheckpointError> {
  const { files, folder } = folderOf(entries);
  try {
    await loadCheckpoint(files, folder);
  } catch (e) {
    assert.ok(e instanceof CheckpointError, String(e));
    assert.ok(!e.message.includes('\n'), 'one line');
    return e;
  }
  assert.fail('no error');
}

describe('checkpoint loader', () => {
  it('stories260K (samples/): greedy decoding from BOS gives 403 407 261 378 432 383 286 261 376, as llama2.c', async () => {
    const ck = await loadCheckpoint(nodeFiles, join(REPO, 'samples', 'stories260K'));
    assert.equal(ck.arch.modelType, 'llama');
    assert.deepEqual([ck.arch.C, ck.arch.L, ck.arch.NH, ck.arch.KVH, ck.arch.HS, ck.arch.F, ck.arch.V], [64, 5, 8, 4, 8, 172, 512]);
    assert.equal(ck.paramCount, 260_032);
    assert.deepEqual(ck.dtypes, ['F32']);
    assert.deepEqual(ck.ignored, []);
    assert.equal(ck.params.get('head.W'), ck.params.get('embed'), 'tied: one Param');
    const ids = [1];
    for (let step = 0; step < 9; step++) {
      const logits = stagesOf(ck, ids, false).get('head.logits')!;
      const V = logits.shape[1];
      const last = logits.data.subarray((ids.length - 1) * V, ids.length * V);
      ids.push(last.indexOf(Math.max(...last)));
    }
    assert.deepEqual(ids.slice(1), [403, 407, 261, 378, 432, 383, 286, 261, 376]);
  });

  it('gpt2 (F32 with "transformer.", F16 and BF16 without): the same params, every stage in shape, Q|K|V and the MLP from the raw Conv1D tensors', async () => {
    const loaded: Checkpoint[] = [];
    for (const [prefix, dtype] of [['transformer.', 'F32'], ['', 'F16'], ['', 'BF16']] as const) {
      const raw = tinyGpt2({ prefix });
      const { files, folder } = checkpointFolder(raw, dtype);
      const ck = await loadCheckpoint(files, folder);
      loaded.push(ck);
      assert.deepEqual(ck.dtypes, [dtype]);
      assert.deepEqual(ck.ignored, [`${prefix}h.0.attn.bias`, `${prefix}h.1.attn.bias`], 'the mask buffers');
      assert.equal(ck.params.get('head.W'), ck.params.get('embed'), 'tied: one Param');
      const { C, F, V, P, L } = TINY_GPT2;
      assert.equal(ck.paramCount, V * C + P * C + L * (4 * C + 3 * C * C + 3 * C + C * C + C + C * F + F + F * C + C) + 2 * C);
      const T = 4;
      const s = stagesOf(ck, [3, 0, 10, 3]);
      assertShapes(s, contractShapes({ ...TINY_GPT2, KVH: TINY_GPT2.NH, HS: C / TINY_GPT2.NH }, T, false));
      // layer 1's projections from its own raw tensors: c_attn's thirds (in_out) and c_fc
      const t = (n: string) => dataOf(raw.tensors[`${prefix}h.1.${n}`]);
      const ln1 = s.get('layers.1.ln1')!.data;
      const third = (k: number) => project(ln1, T, C, t('attn.c_attn.weight'), 3 * C, 'in_out', [k * C, (k + 1) * C], t('attn.c_attn.bias'));
      close(headsToRows(s.get('layers.1.attn.q')!), third(0), 'q');
      close(headsToRows(s.get('layers.1.attn.k')!), third(1), 'k');
      close(headsToRows(s.get('layers.1.attn.v')!), third(2), 'v');
      close(rows(s.get('layers.1.ffn.up')!), project(s.get('layers.1.ln2')!.data, T, C, t('mlp.c_fc.weight'), F, 'in_out', [0, F], t('mlp.c_fc.bias')), 'ffn.up');
      close(rows(s.get('layers.1.attn.out')!), project(s.get('layers.1.attn.context')!.data, T, C, t('attn.c_proj.weight'), C, 'in_out', [0, C], t('attn.c_proj.bias')), 'attn.out');
    }
    // the numbers are exact in every dtype: the three load the same params
    for (const ck of loaded.slice(1)) {
      for (const [id, p] of loaded[0].params) assert.deepEqual(Array.from(floatData(ck.params.get(id)!)), Array.from(floatData(p)), id);
    }
  });

  it('llama: BF16 in two shards with an index, GQA, untied head; gate and up from the raw Linear tensors', async () => {
    const raw = tinyLlama();
    const names = Object.keys(raw.tensors);
    const half = (k: 0 | 1): TestTensors => Object.fromEntries(names.filter((_, i) => (i < names.length / 2 ? 0 : 1) === k).map((n) => [n, raw.tensors[n]]));
    const shard = (k: number) => `model-0000${k + 1}-of-00002.safetensors`;
    const index = { metadata: {}, weight_map: Object.fromEntries(names.map((n, i) => [n, shard(i < names.length / 2 ? 0 : 1)])) };
    const { files, folder } = folderOf({ 'config.json': raw.config, 'model.safetensors.index.json': index, [shard(0)]: safetensorsBytes(half(0), 'BF16'), [shard(1)]: safetensorsBytes(half(1), 'BF16') });
    const ck = await loadCheckpoint(files, folder);
    assert.deepEqual(ck.dtypes, ['BF16']);
    assert.deepEqual(ck.ignored, []);
    assert.notEqual(ck.params.get('head.W'), ck.params.get('embed'), 'untied');
    assert.deepEqual(Array.from(floatData(ck.params.get('head.W')!)), Array.from(dataOf(raw.tensors['lm_head.weight'])));
    assert.equal(ck.params.get('head.W')!.half?.dtype, 'BF16', 'held as its 16-bit patterns');
    const { C, F, KVH, HS } = TINY_LLAMA;
    assert.deepEqual(ck.params.get('layers.0.attn.Wk')!.shape, [KVH * HS, C]);
    assert.equal(ck.params.get('layers.0.attn.Wk')!.layout, 'out_in');
    const T = 5;
    const s = stagesOf(ck, [1, 12, 0, 7, 7]);
    assertShapes(s, contractShapes(TINY_LLAMA, T, true));
    const t = (n: string) => dataOf(raw.tensors[`model.layers.1.${n}`]);
    const ln2 = s.get('layers.1.ln2')!.data;
    close(rows(s.get('layers.1.ffn.gate')!), project(ln2, T, C, t('mlp.gate_proj.weight'), F, 'out_in', [0, F]), 'ffn.gate');
    close(rows(s.get('layers.1.ffn.up')!), project(ln2, T, C, t('mlp.up_proj.weight'), F, 'out_in', [0, F]), 'ffn.up');
    close(headsToRows(s.get('layers.1.attn.v')!), project(s.get('layers.1.ln1')!.data, T, C, t('self_attn.v_proj.weight'), KVH * HS, 'out_in', [0, KVH * HS]), 'v (no RoPE)');
    close(rows(s.get('layers.1.ffn.down')!), project(s.get('layers.1.ffn.act')!.data, T, F, t('mlp.down_proj.weight'), C, 'out_in', [0, C]), 'ffn.down');
  });

  it('llama with head_dim × heads ≠ hidden_size (head_dim 8, 4 heads, hidden 16): q, k, v and context in that size, o_proj from it', async () => {
    const base = tinyLlama();
    const HS = 8;
    const tensors: TestTensors = { ...base.tensors };
    for (const n of Object.keys(tensors)) {
      const m = /self_attn\.(q|k|v|o)_proj\.weight$/.exec(n);
      if (!m) continue;
      const shape = m[1] === 'q' ? [4 * HS, 16] : m[1] === 'o' ? [16, 4 * HS] : [2 * HS, 16];
      tensors[n] = { shape, data: exactNumbers(shape[0] * shape[1], n.length) };
    }
    const ck = await loadCheckpoint(checkpointFolder({ config: { ...base.config, head_dim: HS }, tensors }).files, '/m');
    assert.equal(ck.arch.HS, HS);
    const T = 3;
    const s = stagesOf(ck, [1, 2, 3]);
    assertShapes(s, contractShapes({ ...TINY_LLAMA, HS }, T, true));
    close(rows(s.get('layers.0.attn.out')!), project(s.get('layers.0.attn.context')!.data, T, 4 * HS, dataOf(tensors['model.layers.0.self_attn.o_proj.weight']), 16, 'out_in', [0, 16]), 'attn.out');
  });

  it('qwen2: q/k/v biases; tied without lm_head, or with it saved anyway (used, not ignored); names without "model."', async () => {
    for (const pre of ['model.', '']) {
      const raw = tinyLlama({ qwen2: true, tied: true, prefix: pre });
      const ck = await loadCheckpoint(checkpointFolder(raw).files, '/m');
      assert.equal(ck.params.get('head.W'), ck.params.get('embed'));
      assert.deepEqual(Array.from(ck.params.get('layers.1.attn.bv')!.data!), Array.from(dataOf(raw.tensors[`${pre}layers.1.self_attn.v_proj.bias`])));
      assert.equal(ck.params.has('layers.0.attn.bo'), false, 'no o_proj bias in qwen2');
      const T = 3;
      const s = stagesOf(ck, [2, 4, 6]);
      assertShapes(s, contractShapes(TINY_LLAMA, T, true));
      const { C, KVH, HS } = TINY_LLAMA;
      const t = (n: string) => dataOf(raw.tensors[`${pre}layers.0.${n}`]);
      close(headsToRows(s.get('layers.0.attn.v')!), project(s.get('layers.0.ln1')!.data, T, C, t('self_attn.v_proj.weight'), KVH * HS, 'out_in', [0, KVH * HS], t('self_attn.v_proj.bias')), 'v with its bias');
    }
    const saved = tinyLlama({ qwen2: true, tied: true });
    const withHead = { ...saved, tensors: { ...saved.tensors, 'lm_head.weight': saved.tensors['model.embed_tokens.weight'] } };
    const ck = await loadCheckpoint(checkpointFolder(withHead).files, '/m');
    assert.equal(ck.params.get('head.W'), ck.params.get('embed'));
    assert.deepEqual(ck.ignored, []);
  });

  it('reads each tensor once with a ranged read, and F32 params are views of the bytes read (never held twice)', async () => {
    const raw = tinyGpt2();
    const bytes = safetensorsBytes(raw.tensors);
    const { files, reads } = recordingFiles(folderOf({ 'config.json': raw.config, 'model.safetensors': bytes }).files);
    const ck = await loadCheckpoint(files, '/m');
    const st = reads.filter((r) => r.path === '/m/model.safetensors');
    assert.ok(st.every((r) => r.end !== undefined), 'no whole-file read');
    const total = st.reduce((a, r) => a + (r.end! - r.start), 0);
    assert.ok(total <= bytes.length, `${total} bytes read of ${bytes.length}`);
    assert.equal(ck.params.get('embed')!.data!.buffer, bytes.buffer, 'a view');
    assert.equal(ck.params.get('layers.0.ffn.W1')!.data!.buffer, bytes.buffer, 'a view');
  });

  it('with a kernel to hold them: every matrix the forward multiplies becomes panels where it was read, its numbers the same; positions and an untied embedding stay rows', async () => {
    const k = createWasmKernel()!;
    const kept: Checkpoint[] = []; // (none collected meanwhile: a collected array's block is freed, and usedBytes would move)
    for (const tiny of [tinyGpt2(), tinyLlama(), tinyLlama({ tied: true }), tinyLlama({ qwen2: true })]) {
      const plain = await loadCheckpoint(checkpointFolder(tiny).files, '/m');
      kept.push(await loadCheckpoint(checkpointFolder(tiny).files, '/m', k)); // (the scratch the copies aside take grows here, once)
      const used = k.usedBytes;
      const held = await loadCheckpoint(checkpointFolder(tiny).files, '/m', k);
      kept.push(held);
      const what = `${held.arch.modelType}${held.arch.tied ? ', tied' : ''}`;
      assert.deepEqual([...held.params.keys()], [...plain.params.keys()], what);
      let bytes = 0;
      for (const [id, p] of held.params) {
        const q = plain.params.get(id)!;
        const multiplied = /\.W[qkvo12g]$/.test(id) || id === 'head.W' || (id === 'embed' && held.arch.tied);
        assert.equal(p.layout, multiplied ? 'panels' : q.layout, `${what}: ${id}`);
        if (!q.layout) {
          assert.deepEqual(p.data, q.data, `${what}: ${id}`);
          continue;
        }
        assert.ok(p.data!.buffer instanceof SharedArrayBuffer, `${what}: ${id} in the kernel's memory`);
        const [N, K] = outputsInputs(q);
        assert.deepEqual(outputsInputs(p), [N, K], `${what}: ${id}`);
        const a = new Float32Array(K);
        const b = new Float32Array(K);
        for (let n = 0; n < N; n++) {
          readOutputRow(p, n, K, N, a);
          readOutputRow(q, n, K, N, b);
          assert.deepEqual(a, b, `${what}: ${id}, output ${n}`);
        }
      }
      // held once: the kernel's blocks are the params' arrays (each with 16 numbers of slack, in
      // 64-byte blocks), not one more (a matrix as read, left beside its panels)
      for (const p of new Set(held.params.values())) if (p.data!.buffer instanceof SharedArrayBuffer) bytes += Math.ceil(((p.data!.length + 16) * 4) / 64) * 64;
      assert.equal(k.usedBytes - used, bytes, what);
      // and the forward gives the bits it gives from the plain load (its matrices packed as panels of the same numbers)
      const want = stagesOf(plain, [1, 2, 3]);
      for (const [id, s] of stagesOf(held, [1, 2, 3])) {
        assert.deepEqual(new Uint32Array(s.data.buffer, s.data.byteOffset, s.data.length), new Uint32Array(want.get(id)!.data.buffer, want.get(id)!.data.byteOffset, want.get(id)!.data.length), `${what}: ${id}`);
      }
    }
  });

  it('archSpec: gpt2 (learned positions, LayerNorm, gelu_tanh, no RoPE) and llama (RMSNorm, SwiGLU, RoPE, GQA), eps per norm', async () => {
    const g = await loadCheckpoint(checkpointFolder(tinyGpt2()).files, '/m');
    const gs = archSpec(g.arch, { ids: [1, 2], temperature: 0.7, lens: true });
    assert.deepEqual({ ...gs, eps: [...gs.eps] }, {
      T: 2, C: 8, embedding: { kind: 'tokens', ids: [1, 2], positional: 'learned' }, norm: 'pre', normKind: 'layernorm', residual: true,
      eps: [['ln_f', 1e-5], ['layers.0.ln1', 1e-5], ['layers.0.ln2', 1e-5], ['layers.1.ln1', 1e-5], ['layers.1.ln2', 1e-5]],
      layers: [0, 1].map(() => ({ attention: { NH: 2, KVH: 2, HS: 4, causal: true, rope: null }, ffn: { F: 16, activation: 'gelu_tanh' } })),
      finalNorm: true, head: { V: 11, temperature: 0.7 }, lens: true,
    });
    const l = await loadCheckpoint(checkpointFolder(tinyLlama()).files, '/m');
    const ls = archSpec(l.arch, { ids: [5], temperature: 1, lens: false });
    assert.deepEqual({ ...ls, eps: [...ls.eps] }, {
      T: 1, C: 16, embedding: { kind: 'tokens', ids: [5], positional: 'none' }, norm: 'pre', normKind: 'rmsnorm', residual: true,
      eps: [['ln_f', 1e-6], ['layers.0.ln1', 1e-6], ['layers.0.ln2', 1e-6], ['layers.1.ln1', 1e-6], ['layers.1.ln2', 1e-6]],
      layers: [0, 1].map(() => ({ attention: { NH: 4, KVH: 2, HS: 4, causal: true, rope: { theta: 10000 } }, ffn: { F: 12, activation: 'swiglu' } })),
      finalNorm: true, head: { V: 13, temperature: 1 }, lens: false,
    });
  });

  it('one clear error for each way a folder can be wrong', async () => {
    const gpt2 = tinyGpt2();
    const llama = tinyLlama();
    const st = (t: TestTensors) => safetensorsBytes(t);
    assert.equal((await loadError({})).message, 'no config.json in /m (is it the folder of a Hugging Face model?)');
    assert.equal((await loadError({ 'config.json': { model_type: 'bert' } })).message, 'config.json: model_type "bert" is not supported; FFN Lens reads gpt2, llama, qwen2, gpt_neox, gemma2, gemma3_text, qwen3, mistral, phi3');
    assert.equal((await loadError({ 'config.json': gpt2.config })).message, 'no model.safetensors (nor model.safetensors.index.json with its shards) in /m');

    const kWrong = { ...llama.tensors, 'model.layers.0.self_attn.k_proj.weight': { shape: [16, 16], data: new Float32Array(256) } };
    const e1 = await loadError({ 'config.json': llama.config, 'model.safetensors': st(kWrong) });
    assert.equal(e1.message, 'model.layers.0.self_attn.k_proj.weight is [16, 16], expected [kv_heads·head_dim, hidden_size] = [8, 16]');
    assert.deepEqual([e1.file, e1.tensor], ['model.safetensors', 'model.layers.0.self_attn.k_proj.weight']);

    const fcWrong = { ...gpt2.tensors, 'h.1.mlp.c_fc.weight': { shape: [16, 8], data: new Float32Array(128) } };
    assert.equal((await loadError({ 'config.json': gpt2.config, 'model.safetensors': st(fcWrong) })).message, 'h.1.mlp.c_fc.weight is [16, 8], expected [n_embd, n_inner] = [8, 16]');

    const { ['ln_f.bias']: _gone, ...noLnF } = gpt2.tensors;
    const e2 = await loadError({ 'config.json': gpt2.config, 'model.safetensors': st(noLnF) });
    assert.equal(e2.message, 'the checkpoint has no tensor transformer.ln_f.bias (nor ln_f.bias), expected [n_embd] = [8]');
    assert.equal(e2.tensor, 'ln_f.bias');

    const { ['lm_head.weight']: _head, ...noHead } = llama.tensors;
    assert.equal((await loadError({ 'config.json': llama.config, 'model.safetensors': st(noHead) })).message,
      'the checkpoint has no tensor lm_head.weight, and config.json does not tie the head to the embedding ("tie_word_embeddings" is false), expected [vocab_size, hidden_size] = [13, 16]');

    const ints = { ...llama.tensors, 'model.norm.weight': { shape: [16], dtype: 'I32', raw: new Uint8Array(64) } };
    assert.equal((await loadError({ 'config.json': llama.config, 'model.safetensors': st(ints) })).message, 'model.safetensors: tensor model.norm.weight is I32; FFN Lens reads F32, F16, BF16');

    const cut = st(gpt2.tensors);
    assert.match((await loadError({ 'config.json': gpt2.config, 'model.safetensors': cut.subarray(0, cut.length - 3) })).message,
      /^model\.safetensors is corrupt: tensor ln_f\.bias ends at byte \d+, past the end of the file \(\d+ bytes\): the file is truncated$/);
  });
});
