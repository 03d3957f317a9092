// BF16 and F16 checkpoints held as 16 bits (core/halfWeights.ts) against the same checkpoints read
// as float32 (loadCheckpoint's widen16: the path before 16-bit weights), bit for bit: every stage
// of the forward, a token appended, an override of a 16-bit matrix (copied to float32), the embedding
// and tied head rows. The real PyTorch cases of test/fixtures/arch-cases and the tiny ones of testing.ts.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../../test/helpers/fixtures';
import { Engine } from '../core/engine';
import { forward } from '../core/forward';
import type { Model } from '../core/model';
import { readOutputRow, outputsInputs, storedBytes, type Param } from '../core/params';
import type { Stage } from '../core/stages';
import { createWasmKernel, type WasmMatmulKernel } from '../core/wasm/wasmKernel';
import { readModel } from '../model/read';
import { archSpec, loadCheckpoint, type Checkpoint } from './load';
import { nodeFiles } from './nodeFiles';
import { CheckpointResolver, type ResolvableCheckpoint } from './resolve';
import type { CheckpointFiles } from './files';
import { checkpointFolder, tinyGpt2, tinyLlama, type WriteDtype } from './testing';

const CASES = join(FIXTURES, 'arch-cases');

function sameBits(got: readonly Stage[], want: readonly Stage[], what: string): void {
  assert.deepEqual(got.map((s) => s.id), want.map((s) => s.id), `${what}: stage ids`);
  got.forEach((s, i) => {
    const a = Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength);
    const b = Buffer.from(want[i].data.buffer, want[i].data.byteOffset, want[i].data.byteLength);
    assert.ok(a.equals(b), `${what}: ${s.id} bit for bit`);
  });
}

const copy = (stages: readonly Stage[]): Stage[] => stages.map((s) => ({ ...s, data: s.data.slice() }));

function resolvable(ck: Checkpoint): ResolvableCheckpoint {
  return {
    params: ck.params, modelType: ck.arch.modelType, maxPositions: null, dtypes: ck.dtypes, paramCount: ck.paramCount,
    specFor: (o) => archSpec(ck.arch, o),
  };
}

function modelOf(ck: Checkpoint, body: string): Model {
  const r = readModel(`{"version": 1, "checkpoint": "./m", ${body}}`, 'm.ffn.json');
  assert.ok(r.checkpoint);
  const res = new CheckpointResolver().resolve(r.checkpoint, resolvable(ck), null);
  assert.deepEqual(res.problems.map((p) => p.message), []);
  return res.file!.model;
}

const row = (p: Param, n: number): Float32Array => {
  const [N, K] = outputsInputs(p);
  const out = new Float32Array(K);
  readOutputRow(p, n, K, N, out);
  return out;
};

const tiny: Array<[string, () => { files: CheckpointFiles; folder: string }]> = [];
for (const dtype of ['BF16', 'F16'] as WriteDtype[]) {
  tiny.push([`tiny llama ${dtype}`, () => checkpointFolder(tinyLlama(), dtype)]);
  tiny.push([`tiny llama tied ${dtype}`, () => checkpointFolder(tinyLlama({ tied: true }), dtype)]);
  tiny.push([`tiny qwen2 ${dtype}`, () => checkpointFolder(tinyLlama({ qwen2: true }), dtype)]);
  tiny.push([`tiny gpt2 ${dtype}`, () => checkpointFolder(tinyGpt2(), dtype)]);
}
const cases: Array<[string, () => { files: CheckpointFiles; folder: string }]> = [
  ...['gemma2-bf16', 'qwen3-bf16', 'mistral-f16', 'neox-sequential-f16'].map((f): [string, () => { files: CheckpointFiles; folder: string }] => [f, () => ({ files: nodeFiles, folder: join(CASES, f) })]),
  ...tiny,
];

describe('BF16 and F16 checkpoints held as 16 bits equal their float32 reading, bit for bit', () => {
  const k: WasmMatmulKernel = createWasmKernel()!;
  for (const [name, where] of cases) {
    it(`${name}: the matrices are 16-bit panels in the kernel's memory; every stage, a token appended, an override`, async () => {
      const { files, folder } = where();
      const half = await loadCheckpoint(files, folder, k);
      const ref = await loadCheckpoint(files, folder, k, { widen16: true });
      // the multiplied matrices (and the embedding) are 16-bit, as panels in the kernel's memory
      const halves = [...half.params].filter(([, p]) => p.half);
      assert.ok(halves.length > 0, 'some 16-bit matrices');
      for (const [id, p] of half.params) {
        if (p.half && id !== 'embed') {
          assert.equal(p.layout, 'panels', id);
          assert.ok(p.half.bits.buffer instanceof SharedArrayBuffer, `${id} in the kernel's memory`);
        }
        const q = ref.params.get(id)!;
        assert.ok(!q.half, `${id}: the reference is float32`);
        if (p.half) assert.ok(storedBytes(p) * 2 <= storedBytes(q) + 64, `${id}: half the bytes`);
      }
      const embed = half.params.get('embed')!;
      assert.ok(embed.half, 'the embedding is 16-bit');
      for (const n of [0, 3]) assert.deepEqual(row(embed, n), row(ref.params.get('embed')!, n), `embed row ${n}`);
      assert.deepEqual(row(half.params.get('head.W')!, 2), row(ref.params.get('head.W')!, 2), 'head row 2');

      const ids = '"token_ids": [1, 5, 2, 7, 3]';
      const [m16, m32] = [half, ref].map((ck) => modelOf(ck, ids));
      sameBits(forward(m16, k), forward(m32, k), `${name}: forward`);
      // the engine: a full run, then a token appended (2-row products through the 16-bit panels)
      const shorter = (m: Model): Model => {
        const e = m.spec.embedding as { ids: readonly number[] };
        return { spec: { ...m.spec, T: 4, embedding: { ...m.spec.embedding, ids: e.ids.slice(0, 4) } as Model['spec']['embedding'] }, params: m.params };
      };
      const [e16, e32] = [new Engine(k), new Engine(k)];
      e16.run(shorter(m16));
      e32.run(shorter(m32));
      sameBits(copy(e16.run(m16)), copy(e32.run(m32)), `${name}: a token appended`);
      // an override of a 16-bit matrix: that matrix copied as float32, the rest still 16-bit
      const edit = `${ids}, "weights": {"layers.1.ffn.W2[1][2]": 0.75, "embed[2][1]": 0.5}`;
      const [o16, o32] = [half, ref].map((ck) => modelOf(ck, edit));
      const w2 = o16.params.get('layers.1.ffn.W2')!;
      assert.ok(!w2.half && half.params.get('layers.1.ffn.W2')!.half, 'the edited matrix is float32 now');
      assert.ok(o16.params.get('layers.0.ffn.W2')!.half, 'the others stay 16-bit');
      sameBits(forward(o16, k), forward(o32, k), `${name}: with overrides`);
    });
  }
});
