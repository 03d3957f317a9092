// A feature's attribution as the panel asks for it, at a chosen token and to a chosen word, against
// the sum worked out by hand: activation × W_dec[f], centred and divided by the final LayerNorm's
// σ at that token (its scale held at the run's value), times its gain, dotted with W_U's column.
import * as assert from 'node:assert/strict';
import { forward } from '../core/forward';
import { floatData, weightAt } from '../core/params';
import { planModel } from '../core/plan';
import { runOf } from '../lenses/cache';
import { byId, caseFolder, caseKernel, type ReferenceCase } from '../../test/helpers/referenceCases';
import { parseJsonc } from '../model/jsonc';
import { planModel as plan } from '../core/plan';
import { checkpointHover } from './checkpointText';
import { saeFeatureResult } from './saeFeatureInfo';

const sae = caseFolder<ReferenceCase>('sae-cases', (f) => f === 'arrays.json');

describe('an SAE feature\'s attribution at a chosen token, to a chosen word', () => {
  it('equals the hand computation; the top predictions there are offered; a word outside the vocabulary is said', async () => {
    const c = sae.read('gpt2_relu_observe.json');
    const file = (await sae.readIn(c.model)).file!;
    const model = file.model;
    const stages = byId(forward(model, caseKernel));
    const run = runOf(model, forward(model, caseKernel));
    const { C, T } = model.spec;
    const V = model.spec.head!.V;
    assert.equal(model.spec.saes![0].normalize, 'none');
    const acts = stages.get('layers.0.sae.acts')!;
    const N = model.spec.saes![0].dSae;
    const pos = 2;
    assert.ok(pos < T - 1, 'not the last token');
    const f = Array.from(acts.subarray(pos * N, (pos + 1) * N)).findIndex((v) => v > 0);
    assert.ok(f >= 0, 'a feature that fires there');
    const logits = Array.from(stages.get('head.logits')!.subarray(pos * V, (pos + 1) * V));
    const order = logits.map((v, w) => [w, v] as const).sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([w]) => w);
    const target = order[3]; // (not the top one)

    // by hand
    const x = Array.from(stages.get('layers.1.out')!.subarray(pos * C, (pos + 1) * C));
    const mean = x.reduce((s, v) => s + v, 0) / C;
    const eps = (planModel(model.spec).find((d) => d.id === 'ln_f')!.args as { eps: number }).eps;
    const sigma = Math.sqrt(x.reduce((s, v) => s + (v - mean) ** 2, 0) / C + eps);
    const g = floatData(model.params.get('ln_f.gamma')!);
    const W = model.params.get('head.W')!;
    const dec = Array.from(floatData(model.params.get('layers.0.sae.W_dec')!).subarray(f * C, (f + 1) * C));
    const dm = dec.reduce((s, v) => s + v, 0) / C;
    const want = acts[pos * N + f] * dec.reduce((s, v, k) => s + ((v - dm) / sigma) * g[k] * weightAt(W, k, target, C, V), 0);

    const r = saeFeatureResult(file, run, 'layers.0.out', f, pos, target);
    assert.ok(!('error' in r.dla), JSON.stringify(r.dla));
    const d = r.dla as Extract<typeof r.dla, { pos: number }>;
    assert.equal(d.pos, pos);
    assert.equal(d.target, target);
    assert.ok(Math.abs(d.value - want) <= 1e-4 * (1 + Math.abs(want)), `${d.value} vs ${want}`);
    assert.ok(Math.abs(d.logitDiff - logits[target]) < 1e-6);
    assert.deepEqual(d.predictions, order.slice(0, 10));
    assert.ok(r.words[target] !== undefined, 'the target\'s word is sent');
    // the default: the last token, its top prediction
    const last = saeFeatureResult(file, run, 'layers.0.out', f, null).dla as Extract<typeof r.dla, { pos: number }>;
    assert.equal(last.pos, T - 1);
    const lastLogits = Array.from(stages.get('head.logits')!.subarray((T - 1) * V, T * V));
    assert.equal(last.target, lastLogits.indexOf(Math.max(...lastLogits)));
    const bad = saeFeatureResult(file, run, 'layers.0.out', f, pos, V + 3).dla;
    assert.deepEqual(bad, { error: `word ${V + 3} is outside the vocabulary 0…${V - 1}` });
  });
});

describe('a hover over an SAE feature\'s id anywhere in the model file', () => {
  it('shows the feature\'s card in a steer\'s feature and a sae_scale key, with what the file does with it', async () => {
    const steerCases = caseFolder<ReferenceCase>('steer-cases', (f) => f.startsWith('tokenizer'));
    const c = steerCases.read('gpt2_feature_attn_out_sae_edit.json');
    const text = JSON.stringify({ ...c.model, sae_scale: { 'layers.0.sae.9': 1 } }, null, 2);
    const file = (await steerCases.readIn(JSON.parse(text) as Record<string, unknown>)).file!;
    assert.ok(file, 'the file reads');
    const stages = new Map(forward(file.model, caseKernel).map((s) => [s.id, s]));
    const doc = { file, root: parseJsonc(text).root, plan: plan(file.model.spec), stages, stale: false };
    const steer = file.checkpoint!.request.steers![0];
    assert.equal(steer.source.kind, 'feature');
    const id = (steer.source as { text: string }).text;
    const hoverAt = (needle: string, from = 0): { markdown: string; start: number; end: number } => {
      const at = text.indexOf(needle, from);
      assert.ok(at >= 0, needle);
      const h = checkpointHover(doc, at + 3, caseKernel);
      assert.ok(h, `a hover at ${needle}`);
      return h;
    };
    const inSteer = hoverAt(`"${id}"`, text.indexOf('"steer"'));
    const n = /sae\.(\d+)$/.exec(id)![1];
    assert.match(inSteer.markdown, new RegExp(`SAE feature ${n} of `));
    assert.match(inSteer.markdown, /Promotes: /);
    assert.match(inSteer.markdown, new RegExp(`In this file: its decoder row steers ${steer.site.replace(/\./g, '\\.')}`));
    assert.equal(text.slice(inSteer.start, inSteer.end), `"${id}"`);
    const inScale = hoverAt('"layers.0.sae.9"');
    assert.match(inScale.markdown, /SAE feature 9 of layers\.0\.out/);
    assert.match(inScale.markdown, /scaled by 1 \(sae_scale\)/);
    // (a string that names no feature: no SAE hover)
    assert.equal(checkpointHover(doc, text.indexOf('"version"') + 2, caseKernel), null);
  });
});
