// What a layer hands on after an SAE's splice or a steer at its output is what the logit lens and
// the residual-stream map read: the lens of layer 0 worked out by hand (LayerNorm in float64, then
// W_U) from PyTorch's spliced / steered stream of the reference cases.
import * as assert from 'node:assert/strict';
import { forward } from '../../src/core/forward';
import type { StageDef } from '../../src/core/graph';
import type { Model } from '../../src/core/model';
import { floatData, weightAt } from '../../src/core/params';
import { planModel } from '../../src/core/plan';
import { streamStages } from '../../src/core/shownFirst';
import { byId, caseFolder, caseKernel, sameBits, without, type ReferenceCase } from '../helpers/referenceCases';

const sae = caseFolder<ReferenceCase>('sae-cases', (f) => f === 'arrays.json');
const steer = caseFolder<ReferenceCase>('steer-cases', (f) => f.startsWith('tokenizer'));

/** The logit lens of stream x [T, C] by hand: ln_f in float64 (its eps from the plan), then W_U and its bias. */
function lensByHand(model: Model, plan: readonly StageDef[], x: readonly number[]): number[] {
  const { C } = model.spec;
  const V = model.spec.head!.V;
  const T = x.length / C;
  const g = floatData(model.params.get('ln_f.gamma')!);
  const b = floatData(model.params.get('ln_f.beta')!);
  const eps = (plan.find((d) => d.id === 'ln_f')!.args as { eps: number }).eps;
  const W = model.params.get('head.W')!;
  const out: number[] = [];
  for (let t = 0; t < T; t++) {
    const row = x.slice(t * C, (t + 1) * C);
    const mean = row.reduce((s, v) => s + v, 0) / C;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / C;
    const n = row.map((v, c) => ((v - mean) / Math.sqrt(variance + eps)) * g[c] + b[c]);
    for (let v = 0; v < V; v++) {
      let s = 0;
      for (let c = 0; c < C; c++) s += n[c] * weightAt(W, c, v, C, V);
      out.push(s);
    }
  }
  return out;
}

const near = (got: Float32Array, want: readonly number[], what: string): void => {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-4 * (1 + Math.abs(want[i])), `${what} at ${i}: ${got[i]} vs ${want[i]}`);
};
const apart = (a: ArrayLike<number>, b: ArrayLike<number>): boolean => Array.from(a).some((v, i) => Math.abs(v - b[i]) > 1e-3);

describe('what a layer hands on after an SAE splice or a steer: the logit lens and the stream map read it', () => {
  for (const [name, folder, f, handed] of [
    ['an SAE with ablate and clamp', sae, 'gpt2_relu_ablate_clamp.json', 'layers.0.sae.out'],
    ['a steer by a vector', steer, 'gpt2_vector_out.json', 'layers.0.steer'],
  ] as const) {
    it(`${name}: layers.0.lens is the head read off ${handed} (PyTorch's), not off layers.0.out`, async () => {
      const c = folder.read(f);
      const model = await folder.modelOf({ ...c.model, lens: true });
      const plan = planModel(model.spec);
      assert.deepEqual(plan.find((d) => d.id === 'layers.0.lens.logits')!.inputs, [handed]);
      const stages = byId(forward(model, caseKernel));
      const want = lensByHand(model, plan, c.expected[handed].data);
      near(stages.get('layers.0.lens.logits')!, want, 'layers.0.lens.logits');
      // (the edit moved the stream: the lens of the layer's own output is another)
      assert.ok(apart(want, lensByHand(model, plan, Array.from(stages.get('layers.0.out')!))), 'the case tests something');
      // the last layer's lens is still the model's own logits
      assert.ok(sameBits(stages.get('layers.1.lens.logits')!, stages.get('head.logits')!));
      // the stream map: the handed-on stage is layer 0's, layers.0.out is not marked
      const stream = streamStages(plan).map((d) => d.id);
      assert.deepEqual(stream, [handed, 'layers.1.out']);
    });
  }

  it('an SAE with no edit: the lens is the run without the SAE, bit for bit', async () => {
    const c = sae.read('gpt2_relu_observe.json');
    const withSae = byId(forward(await sae.modelOf({ ...c.model, lens: true }), caseKernel));
    const plain = byId(forward(await sae.modelOf(without({ ...c.model, lens: true }, (k) => k.startsWith('sae'))), caseKernel));
    for (const id of ['layers.0.lens.logits', 'layers.1.lens.logits']) assert.ok(sameBits(withSae.get(id)!, plain.get(id)!), id);
  });
});
