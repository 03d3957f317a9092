// Generation with the KV cache (the engine's append path) against the whole sequence computed
// afresh at every step: the same tokens, and every step's logits bit for bit, on the tiny GPT-2- and
// Llama-shaped checkpoints with their edits (ablate, scale, weights are params: they apply at every
// step), both kernels; after the input's run every product of a layer's weights multiplies one row.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointResolver } from '../checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../checkpoint/store';
import { readModel } from '../model/read';
import { FIXTURES } from '../../test/helpers/fixtures';
import { decode, type DecodedToken, type DecodeSettings, type Decoding } from './decode';
import { Engine } from './engine';
import { STAGE } from './ids';
import { tsKernel, type MatmulKernel, type Packed } from './kernel';
import type { Model } from './model';
import { createWasmKernel } from './wasm';

const CASES = join(FIXTURES, 'checkpoint-cases');

async function model(store: CheckpointStore, body: object): Promise<Model> {
  const path = join(CASES, 'x.ffn.json');
  const read = await resolveReadNow(readModel(JSON.stringify({ version: 1, ...body }), path), path, store, new CheckpointResolver());
  assert.deepEqual(read.problems.map((p) => p.message), []);
  return read.file!.model;
}

/** The decoding, and each token as it was yielded (with its step's stages). */
function drain(g: Generator<DecodedToken | null, Decoding>): Decoding & { yielded: DecodedToken[] } {
  const yielded: DecodedToken[] = [];
  for (;;) {
    const r = g.next();
    if (r.done) return { ...r.value, yielded };
    if (r.value) yielded.push(r.value);
  }
}

/** A kernel that records the rows of each product (attention's own operands, packed once and released, left out). */
function counting(k: MatmulKernel): { kernel: MatmulKernel; rows(): number[] } {
  const calls: Array<{ M: number; p: Packed }> = [];
  const once = new Set<Packed>();
  const kernel: MatmulKernel = {
    name: k.name, threads: k.threads, fused: k.fused, pack: k.pack.bind(k), matmulColumns: k.matmulColumns.bind(k), repackColumns: k.repackColumns.bind(k), weightArray: k.weightArray.bind(k), halfArray: k.halfArray.bind(k), intoPanels: k.intoPanels.bind(k),
    release: (p) => { once.add(p); k.release(p); },
    matmul: (out, a, M, p, biased) => { calls.push({ M, p }); k.matmul(out, a, M, p, biased); },
  };
  return { kernel, rows: () => calls.filter((c) => !once.has(c.p)).map((c) => c.M) };
}

const bits = (a: Float32Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('decode: the KV cache against the whole sequence at every step', () => {
  const wasm = createWasmKernel();
  const kernels: Array<[string, MatmulKernel]> = [['ts', tsKernel], ...(wasm ? [['wasm', wasm] as [string, MatmulKernel]] : [])];
  const cases: Array<[string, object]> = [
    ['gpt2', { checkpoint: './gpt2-tiny', token_ids: [5, 17, 42], ablate: ['layers.0.ffn.neuron.3', 'layers.1.attn.head.2'], weights: { 'layers.1.ffn.b1[2]': 3 } }],
    ['llama', { checkpoint: './llama-tiny', token_ids: [1, 15, 79, 0], ablate: ['layers.0.attn.head.2'], scale: { 'layers.2.ffn.neuron.20': 2.5 } }],
  ];
  for (const [kname, kernel] of kernels) for (const [arch, body] of cases) for (const temperature of [0, 1.1]) {
    it(`${arch}, ${kname} kernel, temperature ${temperature}: the same tokens, every step's logits bit for bit`, async () => {
      const store = new CheckpointStore(nodeFiles, undefined, kname === 'wasm' ? kernel : undefined);
      const m = await model(store, body);
      const s: DecodeSettings = { tokens: 12, temperature, topK: 6, seed: 3 };
      const count = counting(kernel);
      const cached = drain(decode(new Engine(count.kernel), m, s));
      const fresh = drain(decode(new Engine(kernel), m, s, { recompute: true }));
      assert.equal(cached.tokens.length, 12);
      assert.deepEqual(cached.tokens.map((t) => t.id), fresh.tokens.map((t) => t.id));
      assert.deepEqual(cached.tokens, cached.yielded.map(({ index, id, top }) => ({ index, id, top })));
      cached.yielded.forEach((t, i) => {
        const a = t.stages.find((x) => x.id === STAGE.logits)!;
        const b = fresh.yielded[i].stages.find((x) => x.id === STAGE.logits)!;
        assert.equal(a.shape[0], m.spec.T + i);
        assert.ok(bits(a.data).equals(bits(b.data)), `step ${i}: head.logits bit for bit`);
        assert.deepEqual(t.top, fresh.tokens[i].top);
        if (temperature === 0) assert.equal(t.id, t.top[0].id);
        else assert.ok(Math.abs(t.top.reduce((x, a) => x + a.q!, 0) - 1) < 1e-12);
      });
      // the input's run multiplies its rows; each appended token's run, one row
      const T = m.spec.T;
      const rows = count.rows();
      assert.ok(rows.length > 0);
      const afterFirst = rows.slice(rows.lastIndexOf(T) + 1);
      assert.ok(afterFirst.length >= 11 * 6 && afterFirst.every((r) => r === 1), `products after the input's run multiply ${[...new Set(afterFirst)]} rows`);
    });
  }

  it('the same seed, the same text; another seed, another text', async () => {
    const m = await model(new CheckpointStore(nodeFiles), cases[1][1]);
    const ids = (seed: number): number[] => drain(decode(new Engine(tsKernel), m, { tokens: 16, temperature: 1.5, topK: 10, seed })).tokens.map((t) => t.id);
    assert.deepEqual(ids(9), ids(9));
    assert.notDeepEqual(ids(9), ids(10));
  });
});
