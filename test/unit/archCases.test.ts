// Every PyTorch reference case of architectures-v2 (test/fixtures/arch-cases, made by
// scripts/fixtures/arch_cases.py after transformers' modeling files) through the path the CLI
// takes (the model file read, its checkpoint loaded into the kernel's memory and resolved, the
// forward): the stage list is the case's, in order, and every stage within its tolerance. Then
// the engine's incremental paths on each (a token appended, a head ablated after a first run)
// bit for bit against a full run, and the logit lens' identity (its last layer = head.logits).
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';
import { Engine } from '../../src/core/engine';
import { forward } from '../../src/core/forward';
import { tsKernel, type MatmulKernel } from '../../src/core/kernel';
import type { Model } from '../../src/core/model';
import type { ParamChanges } from '../../src/core/params';
import type { Stage } from '../../src/core/stages';
import { createWasmKernel } from '../../src/core/wasm';
import { readModel } from '../../src/model/read';
import { compareClose } from '../helpers/compare';
import { FIXTURES } from '../helpers/fixtures';

const DIR = join(FIXTURES, 'arch-cases');

interface Case {
  model: Record<string, unknown>;
  expected: Record<string, { shape: number[]; data: number[] }>;
  tolerance: { abs: number; rel: number };
}

const wasm = createWasmKernel();
const kernel: MatmulKernel = wasm ?? tsKernel;
// (as the CLI: the weights held in the kernel's memory, multiplied as panels)
const store = new CheckpointStore(nodeFiles, undefined, wasm ?? undefined);

async function caseModel(c: Case, extra: Record<string, unknown> = {}): Promise<Model> {
  const path = join(DIR, 'x.ffn.json');
  const read = await resolveReadNow(readModel(JSON.stringify({ ...c.model, ...extra }), path), path, store, new CheckpointResolver());
  assert.deepEqual(read.problems.map((p) => p.message), []);
  assert.ok(read.file);
  return read.file.model;
}

function sameBits(got: readonly Stage[], want: readonly Stage[], what: string): void {
  assert.deepEqual(got.map((s) => s.id), want.map((s) => s.id), `${what}: stage ids`);
  got.forEach((s, i) => {
    const a = Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength);
    const b = Buffer.from(want[i].data.buffer, want[i].data.byteOffset, want[i].data.byteLength);
    assert.ok(a.equals(b), `${what}: ${s.id} bit for bit`);
  });
}

const copy = (stages: readonly Stage[]): Stage[] => stages.map((s) => ({ ...s, data: s.data.slice() }));
const read = (f: string): Case => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Case;

describe('PyTorch reference cases of architectures-v2 (test/fixtures/arch-cases)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
  it('has a case of every new model_type', () => {
    for (const p of ['neox_', 'gemma2_', 'gemma3_', 'qwen3_', 'mistral_', 'phi3_']) assert.ok(files.some((f) => f.startsWith(p)), p);
  });

  for (const f of files) {
    const name = f.replace('.json', '');
    it(`${name}: the case's stages in its order, every one within its tolerance`, async () => {
      const c = read(f);
      const stages = forward(await caseModel(c), kernel);
      assert.deepEqual(stages.map((s) => s.id), Object.keys(c.expected), 'the contract\'s stages, in order');
      stages.forEach((s) => {
        const want = c.expected[s.id];
        assert.deepEqual(s.shape, want.shape, `${s.id}: shape`);
        const msg = compareClose(s.data, want.data, c.tolerance, `${f}: ${s.id}`);
        assert.equal(msg, null, msg ?? '');
      });
      // masked attention weights (causal and sliding window) exactly 0, where PyTorch's are
      for (const s of stages.filter((x) => x.id.endsWith('attn.weights'))) {
        const want = c.expected[s.id].data;
        want.forEach((w, i) => { if (w === 0) assert.ok(Object.is(s.data[i], 0), `${s.id}[${i}] masked`); });
      }
    });

    it(`${name}: the engine after a token appended, and after a head ablated, equals a full run bit for bit`, async () => {
      const c = read(f);
      const model = await caseModel(c);
      const { spec } = model;
      assert.equal(spec.embedding.kind, 'tokens');
      const ids = spec.embedding.kind === 'tokens' ? spec.embedding.ids : [];
      const shorter: Model = { spec: { ...spec, T: ids.length - 2, embedding: { kind: 'tokens', ids: ids.slice(0, -2), positional: spec.embedding.positional as 'none' } }, params: model.params };
      // (a kernel that records the rows of each product: the appending run multiplies the 2 new rows)
      const rows: number[] = [];
      const counted: MatmulKernel = Object.assign(Object.create(kernel) as MatmulKernel, {
        matmul: (...a: Parameters<MatmulKernel['matmul']>) => { rows.push(a[2]); kernel.matmul(...a); },
      });
      const engine = new Engine(counted);
      engine.run(shorter);
      rows.length = 0;
      sameBits(copy(engine.run(model)), forward(model, kernel), `${name}, 2 tokens appended`);
      assert.ok(rows.includes(2), `the new rows alone were multiplied (products of ${[...new Set(rows)].join(', ')} rows)`);
      // a head of the last layer ablated: only its units param changes
      const L = spec.layers.length;
      const ablated = await caseModel(c, { ablate: [...((c.model.ablate as string[] | undefined) ?? []), `layers.${L - 1}.attn.head.1`] });
      const changes = new Map<string, 'all'>();
      for (const [id, p] of ablated.params) if (model.params.get(id) !== p) changes.set(id, 'all');
      for (const id of model.params.keys()) if (!ablated.params.has(id)) changes.set(id, 'all');
      assert.ok(changes.has(`layers.${L - 1}.attn.units`), [...changes.keys()].join(', '));
      const got = copy(engine.run(ablated, changes as ParamChanges));
      assert.ok(got.some((s) => s.kept), 'the stages before the last layer are kept');
      sameBits(got, forward(ablated, kernel), `${name}, a head ablated`);
      engine.dispose();
      // a q/k norm's gain edited (qwen3, gemma3) after a full run: the heads that read it computed again
      const qn = 'layers.0.attn.q_norm.gamma';
      const g = model.params.get(qn);
      assert.equal(g !== undefined, name.startsWith('qwen3') || name.startsWith('gemma3'), 'has q_norm');
      if (g) {
        const data = g.data!.slice();
        data[1] += 0.5;
        const edited: Model = { spec, params: new Map(model.params).set(qn, { shape: g.shape, layout: g.layout, data }) };
        const fresh = new Engine(kernel);
        fresh.run(model);
        sameBits(copy(fresh.run(edited, new Map([[qn, new Set([1])]]))), forward(edited, kernel), `${name}, ${qn}[1] edited`);
        fresh.dispose();
      }
    });
  }

  for (const f of files.filter((x) => read(x).model.lens === true)) {
    it(`${f.replace('.json', '')}: the last layer's logit lens is head.logits bit for bit (final norm and soft-cap included)`, async () => {
      const model = await caseModel(read(f));
      const stages = forward(model, kernel);
      const by = new Map(stages.map((s) => [s.id, s]));
      const last = by.get(`layers.${model.spec.layers.length - 1}.lens.logits`)!;
      const logits = by.get('head.logits')!;
      assert.ok(Buffer.from(last.data.buffer, last.data.byteOffset, last.data.byteLength).equals(Buffer.from(logits.data.buffer, logits.data.byteOffset, logits.data.byteLength)));
      const cap = model.spec.head?.softcap ?? null;
      if (cap !== null) assert.ok(logits.data.every((v) => Math.abs(v) <= cap), 'every logit within the cap');
    });
  }
});
