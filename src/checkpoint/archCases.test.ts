// The real tiny checkpoints of architectures-v2 (test/fixtures/arch-cases/, written by PyTorch:
// scripts/fixtures/arch_cases.py) load through loadCheckpoint into v1's param ids with their
// shapes, in every dtype they are stored in; fused storage (gpt_neox query_key_value, phi3
// qkv_proj and gate_up_proj) cut into the roles, each role row found where the case script's own
// rule says it is stored. (The forward is compared in test/unit/archCases.test.ts.)
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../../test/helpers/fixtures';
import { outputsInputs, readOutputRow, type Param } from '../core/params';
import { createWasmKernel } from '../core/wasm/wasmKernel';
import { checkComputable, loadCheckpoint, unwiredOptions, type Checkpoint } from './load';
import { nodeFiles } from './nodeFiles';
import { readHeader, readTensor } from './safetensors';

const CASES = join(FIXTURES, 'arch-cases');

/** Layer 0's params, id → shape (every layer has the same); the model's own params. */
interface Want { readonly layer: Record<string, number[]>; readonly model: Record<string, number[]>; readonly L: number; readonly dtype: string; readonly tied: boolean }

const NEOX_LAYER = {
  'ln1.gamma': [16], 'ln1.beta': [16], 'ln2.gamma': [16], 'ln2.beta': [16],
  'attn.Wq': [16, 16], 'attn.Wk': [16, 16], 'attn.Wv': [16, 16], 'attn.bq': [16], 'attn.bk': [16], 'attn.bv': [16], 'attn.Wo': [16, 16], 'attn.bo': [16],
  'ffn.W1': [48, 16], 'ffn.b1': [48], 'ffn.W2': [16, 48], 'ffn.b2': [16],
};
const NEOX_MODEL = { embed: [80, 16], 'ln_f.gamma': [16], 'ln_f.beta': [16], 'head.W': [80, 16] };
const GEMMA_LAYER = {
  'ln1.gamma': [16], 'attn.Wq': [32, 16], 'attn.Wk': [16, 16], 'attn.Wv': [16, 16], 'attn.Wo': [16, 32], 'ln1_post.gamma': [16],
  'ln2.gamma': [16], 'ffn.Wg': [40, 16], 'ffn.W1': [40, 16], 'ffn.W2': [16, 40], 'ln2_post.gamma': [16],
};
const LLAMA_LAYER = (Q: number, KV: number) => ({
  'ln1.gamma': [16], 'attn.Wq': [Q, 16], 'attn.Wk': [KV, 16], 'attn.Wv': [KV, 16], 'attn.Wo': [16, Q],
  'ln2.gamma': [16], 'ffn.Wg': [40, 16], 'ffn.W1': [40, 16], 'ffn.W2': [16, 40],
});
const TIED = { embed: [80, 16], 'ln_f.gamma': [16], 'head.W': [80, 16] };

const WANT: Record<string, Want> = {
  'neox-parallel': { layer: NEOX_LAYER, model: NEOX_MODEL, L: 2, dtype: 'F32', tied: false },
  'neox-sequential-f16': { layer: NEOX_LAYER, model: NEOX_MODEL, L: 2, dtype: 'F16', tied: false },
  'gemma2-bf16': { layer: GEMMA_LAYER, model: TIED, L: 3, dtype: 'BF16', tied: true },
  'gemma3-f32': { layer: { ...GEMMA_LAYER, 'attn.q_norm.gamma': [8], 'attn.k_norm.gamma': [8] }, model: TIED, L: 3, dtype: 'F32', tied: true },
  'qwen3-bf16': { layer: { ...LLAMA_LAYER(24, 12), 'attn.q_norm.gamma': [6], 'attn.k_norm.gamma': [6] }, model: TIED, L: 2, dtype: 'BF16', tied: true },
  'mistral-f16': { layer: LLAMA_LAYER(16, 8), model: TIED, L: 2, dtype: 'F16', tied: false },
  'phi3-f32': { layer: LLAMA_LAYER(16, 16), model: TIED, L: 2, dtype: 'F32', tied: false },
};

/** A stored tensor of the case's file as float32 rows. */
async function stored(folder: string, name: string): Promise<{ data: Float32Array; shape: readonly number[] }> {
  const file = await readHeader(nodeFiles, join(CASES, folder, 'model.safetensors'), 'model.safetensors');
  const info = file.tensors.get(name)!;
  return { data: await readTensor(nodeFiles, file, info), shape: info.shape };
}

function row(p: Param, n: number): Float32Array {
  const [N, K] = outputsInputs(p);
  const out = new Float32Array(K);
  readOutputRow(p, n, K, N, out);
  return out;
}

describe('architectures-v2 checkpoints (arch-cases) load into v1\'s params', () => {
  for (const [folder, want] of Object.entries(WANT)) {
    it(`${folder}: every param id and shape, nothing left unused, its dtype`, async () => {
      const ck = await loadCheckpoint(nodeFiles, join(CASES, folder));
      const expected = new Map<string, number[]>(Object.entries(want.model));
      for (let i = 0; i < want.L; i++) for (const [k, s] of Object.entries(want.layer)) expected.set(`layers.${i}.${k}`, s);
      assert.deepEqual([...ck.params.keys()].sort(), [...expected.keys()].sort());
      for (const [id, s] of expected) assert.deepEqual(ck.params.get(id)!.shape, s, id);
      assert.deepEqual(ck.ignored, []);
      assert.deepEqual(ck.dtypes, [want.dtype]);
      assert.equal(ck.arch.tied, want.tied);
      assert.equal(ck.params.get('head.W') === ck.params.get('embed'), want.tied);
    });
  }

  it('gpt_neox: role row j of Wq/Wk/Wv (and bq/bk/bv) is query_key_value row (j // d_head)·3·d_head + part·d_head + j % d_head', async () => {
    const ck = await loadCheckpoint(nodeFiles, join(CASES, 'neox-parallel'));
    const HS = 8;
    for (const layer of [0, 1]) {
      const w = await stored('neox-parallel', `gpt_neox.layers.${layer}.attention.query_key_value.weight`);
      const b = await stored('neox-parallel', `gpt_neox.layers.${layer}.attention.query_key_value.bias`);
      ['q', 'k', 'v'].forEach((part, p) => {
        const W = ck.params.get(`layers.${layer}.attn.W${part}`)!;
        const B = ck.params.get(`layers.${layer}.attn.b${part}`)!;
        for (let j = 0; j < 16; j++) {
          const s = Math.floor(j / HS) * 3 * HS + p * HS + (j % HS);
          assert.deepEqual(row(W, j), w.data.subarray(s * 16, (s + 1) * 16), `layer ${layer} W${part}[${j}] = row ${s}`);
          assert.equal(B.data![j], b.data![s], `layer ${layer} b${part}[${j}]`);
        }
      });
    }
    // (the brief's example: an override of layers.0.attn.Wk[5] is stored row 0·24 + 8 + 5 = 13)
    assert.deepEqual(row(ck.params.get('layers.0.attn.Wk')!, 5), (await stored('neox-parallel', 'gpt_neox.layers.0.attention.query_key_value.weight')).data.subarray(13 * 16, 14 * 16));
  });

  it('phi3: qkv_proj rows are q, then k, then v; gate_up_proj rows gate, then up', async () => {
    const ck = await loadCheckpoint(nodeFiles, join(CASES, 'phi3-f32'));
    const qkv = await stored('phi3-f32', 'model.layers.1.self_attn.qkv_proj.weight');
    const gu = await stored('phi3-f32', 'model.layers.1.mlp.gate_up_proj.weight');
    assert.deepEqual(qkv.shape, [48, 16]);
    [['attn.Wq', 0], ['attn.Wk', 16], ['attn.Wv', 32]].forEach(([kind, at]) => {
      for (let j = 0; j < 16; j++) assert.deepEqual(row(ck.params.get(`layers.1.${kind}`)!, j), qkv.data.subarray((+at + j) * 16, (+at + j + 1) * 16), `${kind}[${j}]`);
    });
    [['ffn.Wg', 0], ['ffn.W1', 40]].forEach(([kind, at]) => {
      for (let j = 0; j < 40; j++) assert.deepEqual(row(ck.params.get(`layers.1.${kind}`)!, j), gu.data.subarray((+at + j) * 16, (+at + j + 1) * 16), `${kind}[${j}]`);
    });
  });

  it('with the kernel holding them: the cut matrices become panels of the same rows', async () => {
    const k = createWasmKernel()!;
    const kept: Checkpoint[] = [];
    for (const folder of ['neox-sequential-f16', 'phi3-f32']) {
      const plain = await loadCheckpoint(nodeFiles, join(CASES, folder));
      const held = await loadCheckpoint(nodeFiles, join(CASES, folder), k);
      kept.push(held);
      for (const id of ['layers.1.attn.Wq', 'layers.1.attn.Wk', 'layers.1.attn.Wv', 'layers.0.ffn.W1']) {
        const p = held.params.get(id)!;
        const q = plain.params.get(id)!;
        assert.equal(p.layout, 'panels', `${folder} ${id}`);
        assert.ok((p.half?.bits ?? p.data!).buffer instanceof SharedArrayBuffer);
        for (let n = 0; n < outputsInputs(q)[0]; n++) assert.deepEqual(row(p, n), row(q, n), `${folder} ${id}[${n}]`);
      }
      assert.deepEqual(held.params.get('layers.0.attn.bk')?.data, plain.params.get('layers.0.attn.bk')?.data);
    }
  });

  it('every architecture\'s options are wired: none is refused at load; a per-layer list of the wrong length is, by name', async () => {
    for (const folder of Object.keys(WANT)) {
      const ck = await loadCheckpoint(nodeFiles, join(CASES, folder), undefined, { check: checkComputable });
      assert.deepEqual(unwiredOptions(ck.arch), [], folder);
    }
    const ck = await loadCheckpoint(nodeFiles, join(CASES, 'mistral-f16'));
    assert.throws(() => checkComputable({ ...ck.arch, slidingWindow: [3] }), { message: 'config.json: this mistral checkpoint loads, but FFN Lens does not compute its block (sliding windows for 1 of 2 layers)' });
  });
});
