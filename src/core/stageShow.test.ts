// What the plan tells the panel of each stage (StageView.show): the panel reads these instead of
// stage names, so they must say what the panel did by name before: checked here on every kind of
// layer (gated and plain FFN, attention alone, FFN alone), against the ids' own rules (ids.ts).
import * as assert from 'node:assert/strict';
import { STAGE, stageId, unitStage } from './ids';
import { planModel } from './plan';
import { shownFirst, streamStages } from './shownFirst';
import type { ModelSpec } from './spec';

function spec(over: Partial<ModelSpec> = {}): ModelSpec {
  const T = 5;
  return {
    T, C: 12, embedding: { kind: 'tokens', ids: Array.from({ length: T }, (_, i) => i % 5), positional: 'none' }, norm: 'pre', normKind: 'rmsnorm',
    eps: new Map(), residual: true, finalNorm: true, head: { V: 23, temperature: 1 }, lens: true,
    layers: [
      { attention: { NH: 6, KVH: 2, HS: 2, causal: true, rope: null }, ffn: { F: 17, activation: 'swiglu' } },
      { attention: null, ffn: { F: 9, activation: 'relu' } },
      { attention: { NH: 4, KVH: 4, HS: 3, causal: false, rope: null }, ffn: null },
    ],
    ...over,
  };
}

const withShow = (s: ModelSpec, has: (show: ReturnType<typeof planModel>[number]['show']) => boolean): string[] =>
  planModel(s).filter((d) => has(d.show)).map((d) => d.id);

describe('the plan\'s stage descriptions for the panel (show)', () => {
  it('draws the activation curve after each activation, from its pre-activation (the gate of a gated FFN)', () => {
    const charts = planModel(spec()).filter((d) => d.show.activationChart).map((d) => [d.id, d.show.activationChart]);
    assert.deepEqual(charts, [
      ['layers.0.ffn.act', { fn: 'swiglu', input: 'layers.0.ffn.gate' }],
      ['layers.1.ffn.act', { fn: 'relu', input: 'layers.1.ffn.up' }],
    ]);
  });
  it('quotes what went into an activation in its tooltip', () => {
    const act = (i: number) => planModel(spec()).find((d) => d.id === stageId(i, STAGE.act))!.show;
    assert.deepEqual(act(0).quotes, [{ label: 'gate (pre-activation)', stage: 'layers.0.ffn.gate' }, { label: 'up', stage: 'layers.0.ffn.up' }]);
    assert.deepEqual(act(1).quotes, [{ label: 'up (pre-activation)', stage: 'layers.1.ffn.up' }]);
    assert.equal(act(0).valueName, 'activation');
  });
  it('names the values of scores and weights, and only probabilities are non-negative', () => {
    const plan = planModel(spec());
    assert.deepEqual(plan.filter((d) => d.show.valueName === 'score').map((d) => d.kind), [STAGE.scores, STAGE.scores]);
    assert.deepEqual(plan.filter((d) => d.show.valueName === 'weight').map((d) => d.kind), [STAGE.weights, STAGE.weights]);
    assert.deepEqual(withShow(spec(), (s) => !!s.nonNegative), ['layers.0.attn.weights', 'layers.2.attn.weights', 'head.probs']);
  });
  it('picks the overview\'s block: the scores, the FFN\'s up, activation and down of every layer that has them', () => {
    assert.deepEqual(withShow(spec(), (s) => s.overview === 'block'), [
      'layers.0.attn.scores', 'layers.0.ffn.up', 'layers.0.ffn.act', 'layers.0.ffn.down',
      'layers.1.ffn.up', 'layers.1.ffn.act', 'layers.1.ffn.down', 'layers.2.attn.scores',
    ]);
  });
  it('marks each layer\'s output as the stream, whatever norm and residual the model has', () => {
    for (const s of [spec(), spec({ norm: 'post', residual: false }), spec({ norm: 'none', finalNorm: false, head: null })]) {
      assert.deepEqual(streamStages(planModel(s)).map((d) => d.id), ['layers.0.out', 'layers.1.out', 'layers.2.out']);
    }
  });
  it('a new panel of a deep model shows the stages outside the layers and the stream', () => {
    assert.deepEqual([...shownFirst(planModel(spec()), 3)!], ['input', 'layers.0.out', 'layers.1.out', 'layers.2.out', 'ln_f', 'output', 'head.logits', 'head.probs']);
    assert.equal(shownFirst(planModel(spec()), 2), null);
  });
  it('the attention patterns, the units\' stages (as ids.ts names them) and where a neuron\'s writes are drawn', () => {
    const plan = planModel(spec());
    assert.deepEqual(withShow(spec(), (s) => !!s.attentionPattern), ['layers.0.attn.weights', 'layers.2.attn.weights']);
    const units = plan.filter((d) => d.show.units);
    assert.deepEqual(units.map((d) => d.id), ['layers.0.attn.context', 'layers.0.ffn.act', 'layers.1.ffn.act', 'layers.2.attn.context']);
    for (const d of units) assert.equal(unitStage(d.show.units!, d.layer), d.id);
    assert.deepEqual(withShow(spec(), (s) => !!s.neuronWrites), ['layers.0.ffn.down', 'layers.1.ffn.down']);
  });
  it('every other stage carries nothing (the layout crosses the wire)', () => {
    const plain = planModel(spec()).filter((d) => Object.keys(d.show).length === 0).map((d) => d.kind);
    assert.ok(plain.includes(STAGE.q) && plain.includes(STAGE.lens) && plain.includes(STAGE.input));
  });
});
