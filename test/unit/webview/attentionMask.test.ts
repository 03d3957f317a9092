import { strict as assert } from 'node:assert';
import { attentionMask, maskReason, repeatMask, stageMask } from '../../../webview/views/attentionMask';
import { headSize, slidingWindow } from '../../../webview/stagePicks';
import type { ModelSummary, StageView } from '../../../src/protocol/stages';

// rows as strings of 0/1: row i, column j
const rows = (m: Uint8Array, T: number): string[] => Array.from({ length: T }, (_, i) => Array.from(m.subarray(i * T, (i + 1) * T)).join(''));

describe('attention mask (webview)', () => {
  it('causal: every later key is masked', () => {
    assert.deepEqual(rows(attentionMask(4), 4), ['0111', '0011', '0001', '0000']);
  });

  it('a sliding window of 2 also masks keys j ≤ i − 2 (query i sees i − 1 and i)', () => {
    assert.deepEqual(rows(attentionMask(5, 2), 5), ['01111', '00111', '10011', '11001', '11100']);
  });

  it('a window as long as the input masks nothing more than the causal mask; a window of 1 leaves the diagonal', () => {
    assert.deepEqual(attentionMask(4, 4), attentionMask(4));
    assert.deepEqual(attentionMask(4, 99), attentionMask(4));
    assert.deepEqual(rows(attentionMask(3, 1), 3), ['011', '101', '110']);
  });

  it('a stage masks by the plan: causal, windowed, or not at all', () => {
    assert.equal(stageMask({ masked: false, show: {} }, 3), undefined);
    assert.deepEqual(stageMask({ masked: true, show: {} }, 3), attentionMask(3));
    assert.deepEqual(stageMask({ masked: true, show: { window: 2 } }, 4), attentionMask(4, 2));
    assert.deepEqual(Array.from(repeatMask(Uint8Array.from([1, 0]), 3)), [1, 0, 1, 0, 1, 0]);
  });

  it('says why a cell is masked', () => {
    const info = { masked: true, show: { window: 2 } };
    assert.match(maskReason(info, 0, 1), /later token/);
    assert.match(maskReason(info, 3, 0), /sliding window .* last 2 tokens/);
    assert.match(maskReason({ masked: true, show: {} }, 0, 2), /later token/);
  });
});

describe('head size and window from the plan (webview)', () => {
  const stage = (id: string, layer: number, shape: number[], show: StageView['show']): StageView => ({
    id, shape, kind: id, layer, group: 'attention', title: id, meaning: '', cols: 'dim', perHead: false, masked: false, source: null, inputs: [], params: [], show,
  });
  // gemma-like: C 8, 2 heads of 6 (not 8 / 2)
  const s = {
    C: 8,
    layers: [{ attention: { NH: 2, KVH: 1, causal: true, rope: true, identity: [] }, ffn: null }, { attention: null, ffn: null }],
    stages: [stage('layers.0.attn.weights', 0, [2, 5, 5], { attentionPattern: true, window: 3 }), stage('layers.0.attn.context', 0, [5, 12], { units: 'head' })],
  } as unknown as Pick<ModelSummary, 'stages' | 'layers' | 'C'>;

  it('reads the head size off the heads\' context, not C / NH', () => {
    assert.equal(headSize(s, 0), 6);
    assert.equal(headSize(s, 1), 0);
  });

  it('reads the sliding window off the stage that carries it', () => {
    assert.equal(slidingWindow(s, 0), 3);
    assert.equal(slidingWindow(s, 1), undefined);
  });
});
