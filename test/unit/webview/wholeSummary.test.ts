import * as assert from 'node:assert/strict';
import type { ModelSummary, StageView, SummaryMessage } from '../../../src/protocol/stages';
import { planModel } from '../../../src/core/plan';
import type { ModelSpec } from '../../../src/core/spec';
import { stageView } from '../../../src/worker/summary';
import { planTokenDims } from '../../../src/worker/planTokens';
import { wholeSummary } from '../../../webview/wholeSummary';

const view = (id: string): StageView => ({ id, shape: [2, 3], kind: id, layer: -1, group: 'input', title: id, meaning: '', cols: 'dim', perHead: false, masked: false, source: null, inputs: [], params: [], show: {} });
const base = {
  name: 'm', tokens: ['a', 'b'], T: 2, C: 3, layout: 'out_in', norm: 'none', normKind: 'layernorm', residual: false, positional: 'none', finalNorm: false,
  layers: [], head: null, params: { attention: 0, ffn: 0, norm: 0, head: 0, total: 0 }, layoutKey: 1,
} as const;

describe('webview/wholeSummary: a summary the worker sent without the parts the panel holds', () => {
  const last: ModelSummary = { ...base, vocab: ['x', 'y'], stages: [view('input')], tokenDims: [0], vocabKey: 3, planKey: 5 };

  it('takes the words and the plan of the last summary with the same keys', () => {
    const s: SummaryMessage = { ...base, vocab: null, stages: null, tokenDims: null, vocabKey: 3, planKey: 5, name: 'new' };
    const w = wholeSummary(s, last);
    assert.equal(w?.vocab, last.vocab);
    assert.equal(w?.stages, last.stages);
    assert.equal(w?.name, 'new');
  });

  it('null (everything again) when the last summary is of another key, or there is none', () => {
    assert.equal(wholeSummary({ ...base, vocab: null, stages: null, tokenDims: null, vocabKey: 3, planKey: 6 }, last), null);
    assert.equal(wholeSummary({ ...base, vocab: null, stages: [view('input')], tokenDims: [0], vocabKey: 4, planKey: 6 }, last), null);
    assert.equal(wholeSummary({ ...base, vocab: ['q'], stages: null, tokenDims: null, vocabKey: 4, planKey: 5 }, null), null);
  });

  it('a summary sent whole is taken as it is', () => {
    const stages = [view('output')];
    const w = wholeSummary({ ...base, vocab: ['q'], stages, tokenDims: [0], vocabKey: 9, planKey: 9 }, last);
    assert.deepEqual(w?.vocab, ['q']);
    assert.equal(w?.stages, stages);
  });

  it('a plan held at another T: its dims that are T set to the summary\'s, the rest as held', () => {
    const held: ModelSummary = { ...last, stages: [{ ...view('input'), shape: [2, 3] }, { ...view('attn'), shape: [4, 2, 2] }], tokenDims: [1, 6] };
    const w = wholeSummary({ ...base, T: 5, vocab: null, stages: null, tokenDims: null, vocabKey: 3, planKey: 5 }, held);
    assert.deepEqual(w?.stages.map((v) => v.shape), [[5, 3], [4, 5, 5]]);
    assert.deepEqual(w?.tokenDims, [1, 6]);
    assert.equal(w?.stages[0].title, 'input');
  });
});

/** A model of each kind the plan follows T in (hand-written vectors, GPT-2-like, llama-like with sliding windows and a lens). */
function specs(T: number): Array<[string, ModelSpec]> {
  const layer = (causal: boolean, window?: number) => ({
    attention: { NH: 4, KVH: 2, HS: 4, causal, rope: causal ? { theta: 10000 } : null, ...(window ? { window } : {}) },
    ffn: { F: 24, activation: causal ? 'swiglu' as const : 'gelu' as const },
  });
  const ids = Array.from({ length: T }, (_, t) => (t * 7) % 11);
  const common = { T, C: 16, eps: new Map(), residual: true, finalNorm: true };
  return [
    ['vectors, not causal', { ...common, normKind: 'layernorm', norm: 'pre', embedding: { kind: 'vectors', positional: 'sinusoidal' }, layers: [layer(false), layer(false)], head: null, lens: false }],
    ['gpt2-like', { ...common, normKind: 'layernorm', norm: 'pre', embedding: { kind: 'tokens', ids, positional: 'learned' }, layers: [layer(true), layer(true), layer(true)], head: { V: 11, temperature: 1 }, lens: true }],
    ['llama-like, windowed', { ...common, normKind: 'rmsnorm', norm: 'pre', embedding: { kind: 'tokens', ids, positional: 'none' }, layers: [layer(true, 3), layer(true)], head: { V: 11, temperature: 1 }, lens: false }],
  ];
}

describe('the plan at another T, made by the webview from the plan it holds (worker/planTokens + webview/wholeSummary)', () => {
  for (const [name] of specs(1)) {
    it(`${name}: the plan held at one T, made whole at another, equals the worker's plan at that T`, () => {
      for (const [Ta, Tb] of [[1, 2], [4, 9], [9, 4], [12, 3], [3, 16]]) {
        const spec = (T: number): ModelSpec => specs(T).find(([n]) => n === name)![1];
        const views = (T: number) => planModel(spec(T)).map(stageView);
        const dims = planTokenDims(views(Ta), spec(Ta));
        assert.ok(dims, `the plan follows T (T = ${Ta})`);
        assert.ok(dims.some((m) => m !== 0), 'some dims are T');
        const held: ModelSummary = { ...base, T: Ta, vocab: ['x'], stages: views(Ta), tokenDims: dims, vocabKey: 1, planKey: 1 };
        const w = wholeSummary({ ...base, T: Tb, vocab: null, stages: null, tokenDims: null, vocabKey: 1, planKey: 1 }, held);
        assert.deepEqual(w?.stages, views(Tb), `T ${Ta} → ${Tb}`);
        // the worker's dims of the plan at Tb are those it held
        assert.deepEqual(planTokenDims(views(Tb), spec(Tb)), dims);
      }
    });
  }

  it('a plan that differs in more than its dims that are T has none (it is sent whole when it changes)', () => {
    const [, spec] = specs(4)[1];
    const views = planModel(spec).map(stageView);
    // (the plan of another model: planned at T + 1 it differs in more than shapes)
    assert.equal(planTokenDims(views.slice(1), spec), null);
    assert.equal(planTokenDims(views.map((v, i) => (i === 3 ? { ...v, title: 'x' } : v)), spec), null);
  });
});
