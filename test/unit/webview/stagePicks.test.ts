// The parts of the panel find their stages by what the plan says of them (StageView.show), never
// by name: the overview's block (each sublayer from the first layer that has it, attention first),
// the stream map's layer outputs, the attention lens' patterns, the tokens lens' unit stages.
import * as assert from 'node:assert/strict';
import { planModel } from '../../../src/core/plan';
import type { ModelSpec } from '../../../src/core/spec';
import { attentionPatterns, overviewPicks, streamStage, unitsStage } from '../../../webview/stagePicks';

function spec(layers: ModelSpec['layers']): ModelSpec {
  return {
    T: 4, C: 8, embedding: { kind: 'vectors', positional: 'none' }, norm: 'pre', normKind: 'layernorm',
    eps: new Map(), residual: true, finalNorm: false, head: null, lens: false, layers,
  };
}
const attn = { NH: 2, KVH: 2, HS: 4, causal: true, rope: null };
const ffn = { F: 6, activation: 'gelu' as const };

describe('the panel\'s picks from the plan', () => {
  it('the overview: the first layer\'s scores, then its FFN', () => {
    const s = { stages: planModel(spec([{ attention: attn, ffn }, { attention: attn, ffn }])) };
    assert.deepEqual(overviewPicks(s).map((x) => x.id), ['layers.0.attn.scores', 'layers.0.ffn.up', 'layers.0.ffn.act', 'layers.0.ffn.down']);
  });
  it('the overview: each sublayer from the first layer that has it, attention first', () => {
    const s = { stages: planModel(spec([{ attention: null, ffn }, { attention: attn, ffn: null }, { attention: attn, ffn }])) };
    assert.deepEqual(overviewPicks(s).map((x) => x.id), ['layers.1.attn.scores', 'layers.0.ffn.up', 'layers.0.ffn.act', 'layers.0.ffn.down']);
    const onlyFfn = { stages: planModel(spec([{ attention: null, ffn }])) };
    assert.deepEqual(overviewPicks(onlyFfn).map((x) => x.id), ['layers.0.ffn.up', 'layers.0.ffn.act', 'layers.0.ffn.down']);
  });
  it('the stream, the attention patterns and the units\' stages by layer', () => {
    const s = { stages: planModel(spec([{ attention: null, ffn }, { attention: attn, ffn: null }])) };
    assert.equal(streamStage(s, 1)?.id, 'layers.1.out');
    assert.equal(streamStage(s, 2), undefined);
    assert.deepEqual(attentionPatterns(s).map((x) => x.id), ['layers.1.attn.weights']);
    assert.equal(unitsStage(s, 'neuron', 0)?.id, 'layers.0.ffn.act');
    assert.equal(unitsStage(s, 'head', 1)?.id, 'layers.1.attn.context');
    assert.equal(unitsStage(s, 'head', 0), undefined);
  });
});
