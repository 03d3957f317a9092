// The lenses on every PyTorch checkpoint case: the identities that make them trustworthy (the
// attribution's parts add up to the logit difference; the last layer's lens is the prediction;
// patching an unchanged row changes nothing, patching the whole input recovers everything, bit
// for bit), and head scores worked out by hand. lensCases.test.ts compares the numbers with
// PyTorch's.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointResolver } from '../checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../checkpoint/store';
import { Engine } from '../core/engine';
import { forward } from '../core/forward';
import { tsKernel } from '../core/kernel';
import type { Model } from '../core/model';
import { readModel } from '../model/read';
import { checkDlaIdentity } from '../../test/helpers/dlaIdentity';
import { REPO } from '../../test/helpers/fixtures';
import { runOf, tokenIds, withTokens } from './cache';
import { headScore, headScores, inductionSequence } from './headScores';
import { logitLensGrid, softmaxTop } from './logitLens';
import { runPatching } from './patching';

const DIR = join(REPO, 'test', 'fixtures', 'checkpoint-cases');
const store = new CheckpointStore(nodeFiles);

export async function caseModel(file: string, extra: Record<string, unknown> = {}): Promise<Model> {
  const c = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { model: Record<string, unknown> };
  const path = join(DIR, 'x.ffn.json');
  const read = await resolveReadNow(readModel(JSON.stringify({ ...c.model, ...extra }), path), path, store, new CheckpointResolver());
  assert.deepEqual(read.problems.map((p) => p.message), []);
  return read.file!.model;
}

const CASES = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

describe('lenses: the identities, on every checkpoint case', () => {
  it('has the cases', () => assert.ok(CASES.length >= 8));
  for (const f of CASES) {
    it(`${f}: the attribution's parts and the constant sum to the logit difference; each MLP to its neurons and b2`, async () => {
      const model = await caseModel(f);
      const run = runOf(model, forward(model, tsKernel));
      checkDlaIdentity(run, model.spec.T, f, (d) => {
        d.neurons.forEach((n, l) => {
          if (!n.length) return;
          const mlp = d.parts.find((p) => p.name === `layers.${l}.ffn`)!.value;
          const bias = mlp - n.reduce((s, v) => s + v, 0);
          const b2 = model.params.get(`layers.${l}.ffn.b2`);
          if (!b2) assert.ok(Math.abs(bias) <= 1e-5 * (Math.abs(mlp) + 1), `${f} layer ${l}: the neurons sum to the MLP's part (no b2): ${bias}`);
        });
      });
    });

    it(`${f}: the last layer's logit lens is the model's own prediction`, async () => {
      const model = await caseModel(f);
      const withLens: Model = { params: model.params, spec: { ...model.spec, lens: true } };
      const stages = forward(withLens, tsKernel);
      const run = runOf(withLens, stages);
      const g = logitLensGrid(run, 3);
      const V = model.spec.head!.V;
      const logits = run.stage('head.logits');
      for (let t = 0; t < model.spec.T; t++) {
        const own = softmaxTop(logits.subarray(t * V, (t + 1) * V), 3, null);
        assert.deepEqual(g.cells[g.L - 1][t], own, `${f} token ${t}`);
      }
    });
  }

  it('patching: an unchanged row changes nothing, the changed row at layer 0 recovers 100 %, bit for bit; the whole input patched gives the clean logits', async () => {
    for (const f of ['gpt2_tiny.json', 'llama_tiny_gqa_bf16.json', 'qwen2_tiny_bias.json']) {
      const clean = await caseModel(f);
      const ids = tokenIds(clean)!;
      const T = ids.length;
      const changed = 2;
      const corrupted = withTokens(clean, ids.map((id, t) => (t === changed ? (id + 1) % clean.spec.head!.V : id)));
      const p0 = runPatching(new Engine(tsKernel), clean, corrupted, { alt: null });
      const p = { ...p0, resid: p0.resid! };
      assert.ok(p0.heads && p0.heads.length === clean.spec.layers.length, 'both views by default');
      const only = runPatching(new Engine(tsKernel), clean, corrupted, { alt: null, views: 'heads' });
      assert.equal(only.resid, null);
      assert.deepEqual(only.heads, p0.heads);
      assert.notEqual(p.ldClean, p.ldCorrupted, `${f}: the corruption changes the answer`);
      for (let t = 0; t < T; t++) assert.equal(p.resid[0][t], t === changed ? 1 : 0, `${f}: layer 0, position ${t}`);
      // later layers: positions before the changed one hold the same stream in both runs
      for (let l = 1; l < p.resid.length; l++) for (let t = 0; t < changed; t++) assert.equal(p.resid[l][t], 0, `${f}: layer ${l}, position ${t}`);
      // the whole input patched: the clean run's logits exactly
      const e = new Engine(tsKernel);
      const want = e.run(clean).find((s) => s.id === 'head.logits')!.data.slice();
      const input = e.run(clean).find((s) => s.id === 'input')!.data.slice();
      e.run(corrupted);
      assert.deepEqual(e.patched(corrupted, { id: 'input', data: input, firstRow: 0 }, 'head.logits'), want);
    }
  });

  it('head scores, worked out by hand on a 4-token attention pattern', () => {
    // ids a b a b; rows are attention from each query token
    const ids = [7, 8, 7, 8];
    const A = new Float32Array([
      1, 0, 0, 0,
      0.25, 0.75, 0, 0,
      0.5, 0.125, 0.375, 0,
      0.125, 0.5, 0.25, 0.125,
    ]);
    const s = headScore(A, 4, ids);
    // prev: A[1,0], A[2,1], A[3,2] = 0.25, 0.125, 0.25
    assert.equal(s.prev, (0.25 + 0.125 + 0.25) / 3);
    // dup: t = 2 (s = 0): 0.5; t = 3 (s = 1): 0.5
    assert.equal(s.dup, 0.5);
    // induction: t = 2: s = 0, s + 1 = 1 < 2: A[2,1] = 0.125; t = 3: s = 1, s + 1 = 2: A[3,2] = 0.25
    assert.equal(s.induction, (0.125 + 0.25) / 2);
    const none = headScore(A, 4, [1, 2, 3, 4]);
    assert.deepEqual([none.dup, none.induction], [0, 0]);
  });

  it('the induction sequence: n distinct ids, repeated; stories260K scores it on every head', async () => {
    const seq = inductionSequence(512, 10);
    assert.equal(seq.length, 20);
    assert.deepEqual(seq.slice(0, 10), seq.slice(10));
    assert.equal(new Set(seq).size, 10);
    // with the model's BOS first (TransformerLens' generate_repeated_tokens): never drawn among the ids
    const withBos = inductionSequence(512, 10, { bos: 300 });
    assert.equal(withBos.length, 21);
    assert.equal(withBos[0], 300);
    assert.deepEqual(withBos.slice(1, 11), withBos.slice(11));
    assert.ok(!withBos.slice(1).includes(300));
    assert.deepEqual(inductionSequence(512, 10, { bos: 1 }).slice(1), inductionSequence(512, 10), 'the same ids after it (1 is below the ids drawn)');
    // a vocabulary of 4: as many ids as there are besides BOS
    const tiny = inductionSequence(4, 10, { bos: 2 });
    assert.equal(tiny.length, 7);
    assert.equal(tiny[0], 2);
    assert.deepEqual([...new Set(tiny.slice(1))].sort(), [0, 1, 3]);
    const model = await caseModel('stories260k_once.json');
    const rep = withTokens(model, inductionSequence(model.spec.head!.V, 8, { bos: 1 }));
    const s = headScores(runOf(rep, forward(rep, tsKernel)));
    assert.equal(s.induction!.length, model.spec.layers.length);
    assert.ok(s.induction!.flat().every((x) => x >= 0 && x <= 1));
  });
});
