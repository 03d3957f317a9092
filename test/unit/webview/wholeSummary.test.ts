import * as assert from 'node:assert/strict';
import type { ModelSummary, StageView, SummaryMessage } from '../../../src/protocol/stages';
import { wholeSummary } from '../../../webview/wholeSummary';

const view = (id: string): StageView => ({ id, shape: [2, 3], kind: id, layer: -1, group: 'input', title: id, meaning: '', cols: 'dim', perHead: false, masked: false, source: null, inputs: [], params: [], show: {} });
const base = {
  name: 'm', tokens: ['a', 'b'], T: 2, C: 3, layout: 'out_in', norm: 'none', normKind: 'layernorm', residual: false, positional: 'none', finalNorm: false,
  layers: [], head: null, params: { attention: 0, ffn: 0, norm: 0, head: 0, total: 0 }, layoutKey: 1,
} as const;

describe('webview/wholeSummary: a summary the worker sent without the parts the panel holds', () => {
  const last: ModelSummary = { ...base, vocab: ['x', 'y'], stages: [view('input')], vocabKey: 3, planKey: 5 };

  it('takes the words and the plan of the last summary with the same keys', () => {
    const s: SummaryMessage = { ...base, vocab: null, stages: null, vocabKey: 3, planKey: 5, name: 'new' };
    const w = wholeSummary(s, last);
    assert.equal(w?.vocab, last.vocab);
    assert.equal(w?.stages, last.stages);
    assert.equal(w?.name, 'new');
  });

  it('null (everything again) when the last summary is of another key, or there is none', () => {
    assert.equal(wholeSummary({ ...base, vocab: null, stages: null, vocabKey: 3, planKey: 6 }, last), null);
    assert.equal(wholeSummary({ ...base, vocab: null, stages: [view('input')], vocabKey: 4, planKey: 6 }, last), null);
    assert.equal(wholeSummary({ ...base, vocab: ['q'], stages: null, vocabKey: 4, planKey: 5 }, null), null);
  });

  it('a summary sent whole is taken as it is', () => {
    const stages = [view('output')];
    const w = wholeSummary({ ...base, vocab: ['q'], stages, vocabKey: 9, planKey: 9 }, last);
    assert.deepEqual(w?.vocab, ['q']);
    assert.equal(w?.stages, stages);
  });
});
