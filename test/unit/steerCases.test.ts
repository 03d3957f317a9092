// Steering against the PyTorch reference cases (test/fixtures/steer-cases/, scripts/fixtures/
// steer_cases.py: a hook adding alpha·v): by vector, by an SAE feature's decoder row, by a contrast
// of two prompts, on GPT-2 and Llama, composed with ablate/scale and SAE edits; no steer = the run
// as before, bit for bit; an edit of alpha recomputes only what reads the steered stage; bad
// values said at their keys.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { Engine } from '../../src/core/engine';
import { forward } from '../../src/core/forward';
import { steerParamId } from '../../src/core/ids';
import type { Model } from '../../src/core/model';
import { floatData } from '../../src/core/params';
import { run as cliRun } from '../../src/cli/main';
import type { Problem } from '../../src/model/problems';
import { compareClose } from '../helpers/compare';
import { byId, caseFolder, caseKernel, sameBits, without, type ReferenceCase } from '../helpers/referenceCases';

interface Case extends ReferenceCase {
  model: Record<string, unknown> & { steer: Record<string, Record<string, unknown>> };
  token_ids: number[];
  vector: number[];
}

const folder = caseFolder<Case>('steer-cases', (f) => f.startsWith('tokenizer'));
const { dir: DIR, cases, read, modelOf } = folder;
const kernel = caseKernel;
const readIn = async (model: Record<string, unknown>): Promise<{ model: Model | null; problems: Problem[] }> => folder.readIn(model);
const bits = sameBits;
const withoutSteer = (m: Record<string, unknown>): Record<string, unknown> => without(m, (k) => k === 'steer');

describe('steering reference cases (test/fixtures/steer-cases)', () => {
  it('has a vector, a feature and a contrast case on GPT-2 and on Llama', () => {
    assert.deepEqual(cases, ['gpt2_contrast_ffn_down_ablate.json', 'gpt2_feature_attn_out_sae_edit.json', 'gpt2_vector_out.json', 'llama_contrast_out.json', 'llama_feature_input_sae_clamp.json', 'llama_vector_attn_residual_scale.json']);
  });

  for (const f of cases) {
    it(`${f.replace('.json', '')}: alpha·v, the steered stage and every stage after it within tolerance`, async () => {
      const c = read(f);
      const model = await modelOf(c.model);
      const [site] = Object.keys(c.model.steer);
      const v = model.params.get(steerParamId(site))!;
      assert.equal(compareClose(floatData(v), c.vector, c.tolerance, 'alpha·v'), null);
      assert.ok(c.vector.some((x) => Math.abs(x) > 0.01), 'a vector that moves something');
      const stages = byId(forward(model, kernel));
      for (const [id, want] of Object.entries(c.expected)) {
        const got = stages.get(id);
        assert.ok(got, `no stage ${id}`);
        assert.equal(compareClose(got, want.data, c.tolerance, id), null);
      }
      // (the steer moved the logits: the case tests something)
      const plain = byId(forward(await modelOf(withoutSteer(c.model)), kernel));
      const logits = c.expected['head.logits'].data;
      assert.ok(Array.from(plain.get('head.logits')!).some((x, i) => Math.abs(x - logits[i]) > 1e-3), 'steering changes the logits');
    });
  }

  it('with no steer every stage is the run as before, bit for bit; with one, one stage more', async () => {
    for (const f of cases) {
      const c = read(f);
      const steered = forward(await modelOf(c.model), kernel);
      const plain = forward(await modelOf(withoutSteer(c.model)), kernel);
      assert.equal(steered.length, plain.length + 1, f);
      const got = byId(steered);
      const [site] = Object.keys(c.model.steer);
      // (the stages before the steered one, and the site itself, are as before)
      const at = plain.findIndex((s) => s.id === site);
      for (const s of plain.slice(0, at + 1)) assert.ok(bits(got.get(s.id)!, s.data), `${f}: ${s.id}`);
      // alpha 0: x + 0·v is x, so every stage after it too
      const zero = byId(forward(await modelOf({ ...c.model, steer: { [site]: { ...c.model.steer[site], alpha: 0 } } }), kernel));
      for (const s of plain) assert.ok(bits(zero.get(s.id)!, s.data), `${f} alpha 0: ${s.id}`);
    }
  });

  it('an edit of alpha recomputes only what reads the steered stage, as a fresh run', async () => {
    const c = read('gpt2_vector_out.json');
    const resolver = new CheckpointResolver();
    const engine = new Engine(kernel);
    const first = engine.run(await modelOf(c.model, resolver)).map((s) => ({ ...s, data: s.data.slice() }));
    const halved = { ...c.model, steer: { 'layers.0.out': { ...c.model.steer['layers.0.out'], alpha: 2 } } };
    const edited = engine.run(await modelOf(halved, resolver));
    const fresh = byId(forward(await modelOf(halved), kernel));
    const before = byId(first);
    let kept = 0;
    for (const s of edited) {
      assert.ok(bits(s.data, fresh.get(s.id)!), `${s.id}: incremental = fresh`);
      const downstream = s.id === 'layers.0.steer' || s.id.startsWith('layers.1.') || s.id.startsWith('head.') || s.id === 'ln_f' || s.id === 'output';
      assert.equal(bits(s.data, before.get(s.id)!), !downstream, `${s.id} ${downstream ? 'changed' : 'as before'}`);
      if (!downstream) {
        assert.equal(s.kept, true, `${s.id} kept`);
        kept++;
      }
    }
    assert.ok(kept >= 10, `${kept} stages kept`);
  });

  it('the same alpha and vector keep the same param object (nothing recomputed)', async () => {
    const c = read('llama_contrast_out.json');
    const resolver = new CheckpointResolver();
    const a = await modelOf(c.model, resolver);
    const b = await modelOf(c.model, resolver);
    assert.equal(a.params.get('layers.0.steer.vector'), b.params.get('layers.0.steer.vector'));
  });
});

describe('steer: bad values said at their keys', () => {
  const base = { version: 1, checkpoint: '../sae-cases/gpt2', tokenizer: './tokenizer-gpt2.json', prompt: 'the cat sat' };
  const problemOf = async (steer: unknown, extra: Record<string, unknown> = {}): Promise<Problem> => {
    const r = await readIn({ ...base, steer, ...extra });
    assert.equal(r.model, null);
    const errors = r.problems.filter((p) => p.severity === 'error');
    assert.equal(errors.length, 1, errors.map((p) => p.message).join(' | '));
    return errors[0];
  };

  it('a vector of another length says both numbers', async () => {
    const p = await problemOf({ 'layers.0.out': { vector: [1, 2, 3] } });
    assert.deepEqual(p.path, ['steer', 'layers.0.out', 'vector']);
    assert.equal(p.message, 'vector has 3 numbers; layers.0.out has 16 numbers per token (d_model)');
  });
  it('a stage a steer cannot add to, or one the model lacks', async () => {
    const p = await problemOf({ 'layers.0.ffn.up': { vector: [1] } });
    assert.deepEqual(p.path, ['steer', 'layers.0.ffn.up']);
    assert.match(p.message, /"layers\.0\.ffn\.up" is not a stage a steer can add to; the forms are "layers\.N\.out"/);
    const far = await problemOf({ 'layers.7.out': { alpha: 2, vector: new Array(16).fill(1) } });
    assert.match(far.message, /this model has no stage layers\.7\.out \(its layers are 0 to 1\)/);
  });
  it('no direction, two directions, a bad feature, a feature of no SAE, a contrast of one prompt', async () => {
    assert.match((await problemOf({ 'layers.0.out': { alpha: 2 } })).message, /a steer needs its direction: "vector"/);
    const two = await problemOf({ 'layers.0.out': { vector: [1], feature: 'layers.0.sae.1' } });
    assert.deepEqual(two.path, ['steer', 'layers.0.out', 'feature']);
    assert.match(two.message, /give one of "vector", "feature" and "contrast", not both "vector" and "feature"/);
    assert.match((await problemOf({ 'layers.0.out': { feature: 'layers.0.ffn.neuron.1' } })).message, /"layers\.0\.ffn\.neuron\.1" is not an SAE feature/);
    assert.match((await problemOf({ 'layers.0.out': { feature: 'layers.1.sae.3' } })).message, /layers\.1\.sae\.3: no SAE is attached at layers\.1\.out; add it to "saes"/);
    const past = await problemOf({ 'layers.0.out': { feature: 'layers.0.sae.48' } }, { saes: [{ path: '../sae-cases/sae-gpt2-relu', at: 'layers.0.out' }] });
    assert.match(past.message, /the SAE at layers\.0\.out has features 0 to 47/);
    assert.match((await problemOf({ 'layers.0.out': { contrast: ['love'] } })).message, /contrast must be two prompts, \[positive, negative\]/);
  });
  it('positions past the input, or not a form of positions', async () => {
    const v = new Array(16).fill(0.5);
    const p = await problemOf({ 'layers.0.out': { vector: v, positions: [0, 5] } });
    assert.deepEqual(p.path, ['steer', 'layers.0.out', 'positions', 1]);
    assert.equal(p.message, 'positions[1] is 5; the input has 3 tokens (0 to 2)');
    assert.match((await problemOf({ 'layers.0.out': { vector: v, positions: 'first' } })).message, /positions is "first": give "all", "last" or a list of token indices/);
  });
  it('a contrast without a tokenizer', async () => {
    const r = await readIn({ version: 1, checkpoint: '../sae-cases/gpt2', token_ids: [1, 2], steer: { 'layers.0.out': { contrast: ['love', 'hate'] } } });
    const errors = r.problems.filter((p) => p.severity === 'error');
    assert.equal(errors.length, 1, errors.map((p) => p.message).join(' | '));
    assert.match(errors[0].message, /"contrast" needs a tokenizer/);
  });
});

describe('ffn-lens stages: the steered stage, and --no-steer', () => {
  it('prints layers.0.steer as the case says; --no-steer the run without it', async () => {
    const c = read('gpt2_vector_out.json');
    const path = join(DIR, 'x.ffn.json');
    const text = JSON.stringify(c.model);
    const run = async (extra: string[]): Promise<{ stages: Array<{ id: string; data: number[] }> }> => {
      let out = '';
      const code = await cliRun(['stages', path, ...extra], { out: (s) => void (out += s), err: (s) => assert.fail(s) }, () => text);
      assert.equal(code, 0);
      return JSON.parse(out) as { stages: Array<{ id: string; data: number[] }> };
    };
    const steered = await run(['--only', 'layers.0.steer,head.logits']);
    assert.equal(compareClose(steered.stages[0].data, c.expected['layers.0.steer'].data, c.tolerance, 'layers.0.steer'), null);
    assert.equal(compareClose(steered.stages[1].data, c.expected['head.logits'].data, c.tolerance, 'head.logits'), null);
    const plain = await run(['--no-steer']);
    assert.ok(!plain.stages.some((s) => s.id === 'layers.0.steer'));
    const want = forward(await modelOf(withoutSteer(c.model)), kernel).find((s) => s.id === 'head.logits')!;
    assert.deepEqual(plain.stages.find((s) => s.id === 'head.logits')!.data.map(Math.fround), Array.from(want.data)); // (printed as float32's shortest decimals)
  });
});
