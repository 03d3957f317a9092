import * as assert from 'node:assert/strict';
import type { ModelSummary, StageView, SummaryMessage } from '../protocol/stages';
import type { FromWorker } from '../protocol/worker';
import { DroppedParts, toWebview } from './relay';

const view = (id: string): StageView => ({ id, shape: [2, 3], kind: id, layer: -1, group: 'input', title: id, meaning: '', cols: 'dim', perHead: false, masked: false, source: null, inputs: [], params: [], show: {} });
const summary = (keys: { vocabKey: number; planKey: number }, parts: { vocab: readonly string[] | null; stages: readonly StageView[] | null; T?: number }): SummaryMessage => ({
  name: 'm', tokens: ['a', 'b'], T: 2, C: 3, layout: 'out_in', norm: 'none', normKind: 'layernorm', residual: false, positional: 'none', finalNorm: false,
  layers: [], head: null, params: { attention: 0, ffn: 0, norm: 0, head: 0, total: 0 } as ModelSummary['params'], layoutKey: 1, ...keys, tokenDims: parts.stages && parts.stages.map(() => 1), ...parts,
});

describe('panel/relay: what the host passes on to the webview', () => {
  it('a stage message in each of its four encodings, the top words and compare go on as the very objects the worker posted', () => {
    const data = new Float32Array([1, 2]).buffer;
    const msgs: FromWorker[] = [
      { type: 'stage', doc: 'd', version: 3, id: 'input', shape: [1, 2], data, offset: 0, total: 2 },
      { type: 'cols', doc: 'd', version: 3, id: 'input', shape: [1, 8], cols: [1, 5], data, base: 2 },
      { type: 'same', doc: 'd', version: 3, id: 'output', of: 'input' },
      { type: 'kept', doc: 'd', version: 3, id: 'input', base: 2 },
      { type: 'top', doc: 'd', version: 3, top: { k: 1, ids: [4], p: [0.5] } },
      { type: 'compare', doc: 'd', version: 3, label: null, error: null, incomparable: [], top: null },
      { type: 'generation', event: 'end', doc: 'd', version: 3, reason: 'done', message: null, note: null, text: '', ms: 1 },
    ];
    for (const m of msgs) assert.equal(toWebview(m), m, m.type);
  });

  it('the model message becomes the webview\'s (its problems without their offsets), or its problems when the text does not read', () => {
    const problem = { severity: 'error' as const, code: 'c', message: 'x', path: '$', start: 4, end: 5, line: 1, col: 5, endLine: 1, endCol: 6 };
    const s = summary({ vocabKey: 1, planKey: 1 }, { vocab: ['a'], stages: [view('input')] });
    assert.deepEqual(toWebview({ type: 'model', doc: 'd', version: 2, problems: [problem], summary: s }), { type: 'model', version: 2, summary: s, warnings: [{ severity: 'error', code: 'c', message: 'x', path: '$', line: 1, col: 5 }] });
    assert.deepEqual(toWebview({ type: 'model', doc: 'd', version: 2, problems: [], summary: null }), { type: 'problems', version: 2, problems: [] });
    assert.equal(toWebview({ type: 'runtime', doc: 'd', version: 2, problems: [] }), null);
  });

  it('DroppedParts: the words and plan of a summary dropped as stale go into the next that leaves them out under the same keys, once', () => {
    const parts = new DroppedParts();
    const stages = [view('input')];
    parts.dropped(summary({ vocabKey: 2, planKey: 7 }, { vocab: ['w'], stages }));
    const restored = parts.restore(summary({ vocabKey: 2, planKey: 7 }, { vocab: null, stages: null }));
    assert.deepEqual(restored.vocab, ['w']);
    assert.equal(restored.stages, stages);
    assert.deepEqual(restored.tokenDims, [1], 'the plan\'s dims that are T come with it');
    // once passed on, the webview holds them: nothing is put back again
    const after = summary({ vocabKey: 2, planKey: 7 }, { vocab: null, stages: null });
    assert.equal(parts.restore(after), after);
    // another key: not theirs
    parts.dropped(summary({ vocabKey: 2, planKey: 8 }, { vocab: null, stages }));
    assert.equal(parts.restore(summary({ vocabKey: 2, planKey: 9 }, { vocab: null, stages: null })).stages, null);
  });

  it('DroppedParts: a plan dropped at another T goes on as it was sent, with its dims that are T (the webview sets them to the T of the summary)', () => {
    const parts = new DroppedParts();
    const stages = [view('input')];
    parts.dropped(summary({ vocabKey: 2, planKey: 7 }, { vocab: null, stages, T: 2 }));
    const restored = parts.restore(summary({ vocabKey: 2, planKey: 7 }, { vocab: null, stages: null, T: 5 }));
    assert.equal(restored.T, 5);
    assert.equal(restored.stages, stages);
    assert.deepEqual(restored.tokenDims, [1]);
  });
});
