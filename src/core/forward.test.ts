// The reference forward through the block graph: the attention sublayer's stages worked out by hand.
import * as assert from 'node:assert/strict';
import { forward } from './forward';
import { parseStageId, STAGE } from './ids';
import { tsKernel } from './kernel';
import { close, f32 } from '../../test/helpers/handChecked';

/** The attention sublayer's stages for input x (T,C) with no matrices (the identity), through the block graph, by kind. */
function attentionForward(x: Float32Array, a: { heads: number; causal: boolean }, T: number, C: number): Record<string, Float32Array> {
  const HS = C / a.heads;
  const stages = forward({
    spec: {
      T, C, embedding: { kind: 'vectors', positional: 'none' }, norm: 'none', normKind: 'layernorm', eps: new Map(), residual: false,
      layers: [{ attention: { NH: a.heads, KVH: a.heads, HS, causal: a.causal, rope: null }, ffn: null }], finalNorm: false, head: null, lens: false,
    },
    params: new Map([['input', { data: x, shape: [T, C] }]]),
  }, tsKernel);
  return Object.fromEntries(stages.map((st) => [parseStageId(st.id).kind, st.data]));
}

describe('attention', () => {
  it('identity projections, 1 head, by hand: two orthogonal tokens', () => {
    // x = [[1, 0], [0, 1]]; scores = x·xᵀ/√2 = [[1/√2, 0], [0, 1/√2]]
    const x = f32([1, 0, 0, 1]);
    const s = attentionForward(x, { heads: 1, causal: false }, 2, 2);
    const a = Math.SQRT1_2;
    close(s[STAGE.scores], [a, 0, 0, a]);
    const p = Math.exp(a) / (Math.exp(a) + 1);
    close(s[STAGE.weights], [p, 1 - p, 1 - p, p]);
    close(s[STAGE.context], [p, 1 - p, 1 - p, p]);
    close(s[STAGE.attnOut], [p, 1 - p, 1 - p, p]);
  });
  it('causal: the first token sees only itself; scores keep their values, weights get 0 above the diagonal', () => {
    const x = f32([1, 0, 0, 1]);
    const s = attentionForward(x, { heads: 1, causal: true }, 2, 2);
    close(s[STAGE.scores], [Math.SQRT1_2, 0, 0, Math.SQRT1_2]);
    assert.equal(s[STAGE.weights][0], 1);
    assert.equal(s[STAGE.weights][1], 0);
    close(s[STAGE.context].subarray(0, 2), [1, 0]);
  });
  it('two heads split the columns: head h uses columns h·HS … (h+1)·HS−1', () => {
    // T=1, C=4, NH=2: q, k, v (NH,T,HS) = [[x0, x1], [x2, x3]]
    const s = attentionForward(f32([1, 2, 3, 4]), { heads: 2, causal: false }, 1, 4);
    close(s[STAGE.q], [1, 2, 3, 4]);
    close(s[STAGE.scores], [(1 + 4) / Math.SQRT2, (9 + 16) / Math.SQRT2]);
    close(s[STAGE.weights], [1, 1]);
    close(s[STAGE.context], [1, 2, 3, 4]);
  });
});
