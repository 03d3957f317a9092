// SAEs on a written-out model file (its weights inline, no checkpoint): `saes` and the feature
// edits read as a checkpoint file's are, the SAE attached when the file is resolved. Its acts are
// the plain encoder's (plain loops, the SAE's tensors read from its file); with no edit every
// stage is the run without it, bit for bit; an ablation splices recon(edited) + error.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { readHeader, readTensor } from '../../src/checkpoint/safetensors';
import { forward } from '../../src/core/forward';
import { saeDecodeNaive } from '../../src/core/saeDecode';
import { saeEncodeNaive } from '../../src/core/saeEncode';
import type { SaeSpec } from '../../src/core/saeSpec';
import { generateModelText } from '../../src/model/generate';
import { parseJsonc } from '../../src/model/jsonc';
import { planModel } from '../../src/core/plan';
import { saeIdHover } from '../../src/worker/saeFeatureInfo';
import { byId, caseFolder, caseKernel, sameBits, type ReferenceCase } from '../helpers/referenceCases';

const folder = caseFolder<ReferenceCase>('sae-cases', (f) => f === 'arrays.json');
// (a written-out model whose stream is 16 wide, as the fixture's GPT-2 SAE reads)
const written = JSON.parse(generateModelText({ preset: 'd64', seed: 3, seq: 4, dModel: 16, heads: 2, dFf: 32, layers: 2, vocab: 10 }).replace(/^\s*\/\/.*\n/gm, '')) as Record<string, unknown>;
const SAE = { path: './sae-gpt2-relu', at: 'layers.0.out' };

async function tensors(): Promise<Record<string, Float32Array>> {
  const f = await readHeader(nodeFiles, join(folder.dir, 'sae-gpt2-relu', 'sae_weights.safetensors'));
  const out: Record<string, Float32Array> = {};
  for (const [name, t] of f.tensors) out[name] = await readTensor(nodeFiles, f, t);
  return out;
}

describe('SAEs on a written-out model file', () => {
  it('attached: acts as the plain encoder gives them; with no edit every other stage is the run without it, bit for bit', async () => {
    const r = await folder.readIn({ ...written, saes: [SAE] });
    assert.deepEqual(r.problems.map((p) => p.message), []);
    const model = r.model!;
    assert.equal(model.spec.saes?.length, 1);
    const stages = byId(forward(model, caseKernel));
    const w = await tensors();
    const spec: SaeSpec = model.spec.saes![0];
    const x = stages.get('layers.0.out')!;
    const want = saeEncodeNaive(spec, x, 4, w.W_enc, w.b_enc, w.b_dec, null);
    const got = stages.get('layers.0.sae.acts')!;
    for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-5 * (1 + Math.abs(want[i])), `acts at ${i}: ${got[i]} vs ${want[i]}`);
    assert.ok(want.some((v) => v > 0) && want.some((v) => v === 0));
    const plain = forward((await folder.modelOf(written)), caseKernel);
    for (const s of plain) assert.ok(sameBits(stages.get(s.id)!, s.data), s.id);
  });

  it('an ablated feature: the stream after the SAE is recon(edited acts) + error, and what follows moves', async () => {
    const r = await folder.readIn({ ...written, saes: [SAE] });
    const acts = byId(forward(r.model!, caseKernel)).get('layers.0.sae.acts')!;
    const f = Array.from(acts.subarray(0, 48)).indexOf(Math.max(...acts.subarray(0, 48)));
    const edited = await folder.modelOf({ ...written, saes: [SAE], sae_ablate: [`layers.0.sae.${f}`] });
    const stages = byId(forward(edited, caseKernel));
    const w = await tensors();
    const spec = edited.spec.saes![0];
    const x = stages.get('layers.0.out')!;
    const a = stages.get('layers.0.sae.acts')!.slice();
    for (let t = 0; t < 4; t++) a[t * 48 + f] = 0;
    const recon = saeDecodeNaive(spec, a, 4, w.W_dec, w.b_dec, x);
    const error = stages.get('layers.0.sae.error')!;
    const out = stages.get('layers.0.sae.out')!;
    for (let i = 0; i < out.length; i++) assert.ok(Math.abs(out[i] - (recon[i] + error[i])) <= 1e-5 * (1 + Math.abs(out[i])), `splice at ${i}`);
    const plain = byId(forward(await folder.modelOf(written), caseKernel));
    assert.ok(!sameBits(plain.get('head.logits')!, stages.get('head.logits')!), 'the ablation moves the prediction');
  });

  it('bad SAE keys are said at their keys, as in a checkpoint file', async () => {
    const wide = await folder.readIn({ ...written, saes: [{ path: './sae-gpt2-relu', at: 'layers.5.out' }] });
    assert.equal(wide.model, null);
    assert.match(wide.problems.find((p) => p.severity === 'error')!.message, /no stage layers\.5\.out \(its layers are 0 to 1\)/);
    const past = await folder.readIn({ ...written, saes: [SAE], sae_clamp: { 'layers.0.sae.48': 1 } });
    const p = past.problems.find((x) => x.severity === 'error')!;
    assert.deepEqual(p.path, ['sae_clamp', 'layers.0.sae.48']);
    assert.match(p.message, /the SAE at layers\.0\.out has features 0 to 47/);
    const missing = await folder.readIn({ ...written, saes: [{ path: './nowhere', at: 'layers.0.out' }] });
    assert.deepEqual(missing.problems.find((x) => x.severity === 'error')!.path, ['saes', 0, 'path']);
    // (no "unknown key" warning any more)
    const ok = await folder.readIn({ ...written, saes: [SAE] });
    assert.deepEqual(ok.problems, []);
  });

  it('a hover over a feature id in the file shows its card and its edit', async () => {
    const text = JSON.stringify({ ...written, saes: [SAE], sae_scale: { 'layers.0.sae.3': 2 } });
    const r = await folder.readIn(JSON.parse(text) as Record<string, unknown>);
    const file = r.file!;
    const stages = new Map(forward(file.model, caseKernel).map((s) => [s.id, s]));
    const doc = { file, root: parseJsonc(text).root, plan: planModel(file.model.spec), stages, stale: false };
    const h = saeIdHover(doc, text.indexOf('layers.0.sae.3') + 2);
    assert.ok(h);
    assert.match(h.markdown, /SAE feature 3 of layers\.0\.out/);
    assert.match(h.markdown, /In this file: scaled by 2 \(sae_scale\)/);
  });
});
