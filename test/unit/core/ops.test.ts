// The ops against values worked out by hand (or with Python's math.erf/erfc, noted where used).
import * as assert from 'node:assert/strict';
import { activationForward } from '../../../src/core/activation';
import { isMasked } from '../../../src/core/attentionWeights';
import { forward } from '../../../src/core/forward';
import { biasAdd } from '../../../src/core/bias';
import { erf, erfc } from '../../../src/core/erf';
import { gelu } from '../../../src/core/gelu';
import { geluTanh } from '../../../src/core/geluTanh';
import { tsKernel } from '../../../src/core/kernel';
import { layernormForward } from '../../../src/core/layernorm';
import { linearForward } from '../../../src/core/linear';
import { positionalForward } from '../../../src/core/positional';
import { relu } from '../../../src/core/relu';
import { residualForward } from '../../../src/core/residual';
import { silu } from '../../../src/core/silu';
import { softmaxForward } from '../../../src/core/softmax';

const f32 = (xs: number[]): Float32Array => new Float32Array(xs);
function close(got: ArrayLike<number>, want: number[], tol = 1e-6, what = ''): void {
  assert.equal(got.length, want.length, `${what} length`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= tol * (1 + Math.abs(want[i])), `${what}[${i}]: got ${got[i]}, want ${want[i]}`);
  }
}

describe('erf / erfc (against Python math.erf, math.erfc)', () => {
  const cases: Array<[number, number]> = [[0.1, 0.1124629160182849], [0.5, 0.5204998778130465], [1, 0.8427007929497149],
    [2, 0.9953222650189527], [2.4, 0.999311486103355], [2.5, 0.999593047982555], [3, 0.9999779095030014], [5, 0.9999999999984626]];
  for (const [x, want] of cases) {
    it(`erf(${x}) and erf(-${x})`, () => {
      assert.ok(Math.abs(erf(x) - want) < 1e-15, `erf(${x}) = ${erf(x)}`);
      assert.ok(Math.abs(erf(-x) + want) < 1e-15);
    });
  }
  it('erfc keeps its digits far in the tail', () => {
    for (const [x, want] of [[2.5, 0.0004069520174449589], [3, 2.2090496998585438e-05], [5, 1.5374597944280351e-12], [10, 2.088487583762545e-45], [-1, 1.842700792949715]]) {
      assert.ok(Math.abs(erfc(x) - want) <= 1e-13 * want, `erfc(${x}) = ${erfc(x)}, want ${want}`);
    }
  });
  it('erf(0) = 0', () => assert.equal(erf(0), 0));
});

describe('activations', () => {
  it('GELU at 0, ±3, -10 (x·Φ(x))', () => {
    assert.equal(gelu(0), 0);
    assert.ok(Math.abs(gelu(3) - 2.99595030590511) < 1e-14);
    assert.ok(Math.abs(gelu(-3) / -0.004049694094890287 - 1) < 1e-13, `gelu(-3) = ${gelu(-3)}`);
    // far left: tiny but not zero, and negative (erfc form, no cancellation)
    assert.ok(Math.abs(gelu(-10) / -7.619853024160593e-23 - 1) < 1e-12, `gelu(-10) = ${gelu(-10)}`);
  });
  it('GELU tanh approximation, SiLU, ReLU at hand-checked points (e^x in float32: to ~1e-7)', () => {
    assert.ok(Math.abs(geluTanh(1) / 0.8411919906082768 - 1) < 2e-7, `geluTanh(1) = ${geluTanh(1)}`);
    assert.ok(Math.abs(silu(1) / 0.7310585786300049 - 1) < 2e-7, `silu(1) = ${silu(1)}`);
    assert.ok(Object.is(geluTanh(-200), -0));
    assert.equal(silu(0), 0);
    assert.equal(relu(-2), 0);
    assert.equal(relu(2.5), 2.5);
  });
  it('gated: act = f(gate) ⊙ up', () => {
    const out = new Float32Array(3);
    activationForward(out, f32([2, 3, 4]), f32([-1, 0, 1]), 'reglu', 3);
    close(out, [0, 0, 4]);
    activationForward(out, f32([2, 3, 4]), f32([-1, 0, 1]), 'swiglu', 3);
    close(out, [2 * silu(-1), 0, 4 * silu(1)]);
  });
  it('linear leaves values as they are', () => {
    const out = new Float32Array(3);
    activationForward(out, f32([-2, 0, 5]), null, 'linear', 3);
    close(out, [-2, 0, 5]);
  });
});

describe('softmax', () => {
  it('of [1000, -1000] is [1, 0] (the row max is subtracted first)', () => {
    const out = new Float32Array(2);
    softmaxForward(out, f32([1000, -1000]), 1, 2);
    assert.deepEqual([...out], [1, 0]);
  });
  it('of [1000, 1000] is [0.5, 0.5]', () => {
    const out = new Float32Array(2);
    softmaxForward(out, f32([1000, 1000]), 1, 2);
    assert.deepEqual([...out], [0.5, 0.5]);
  });
  it('of [0, ln 3] is [1/4, 3/4]; -∞ entries give exactly 0', () => {
    const out = new Float32Array(3);
    softmaxForward(out, f32([0, Math.log(3), -Infinity]), 1, 3);
    close(out, [0.25, 0.75, 0]);
    assert.equal(out[2], 0);
  });
  it('an all-masked row gives zeros, not NaN', () => {
    const out = new Float32Array(2);
    softmaxForward(out, f32([-Infinity, -Infinity]), 1, 2);
    assert.deepEqual([...out], [0, 0]);
  });
  it('applies the scale (1/temperature) before exp', () => {
    const out = new Float32Array(2);
    softmaxForward(out, f32([0, Math.log(3)]), 1, 2, 2); // softmax([0, 2 ln 3]) = [1/10, 9/10]
    close(out, [0.1, 0.9]);
  });
  it('a causal mask never leaves a row without a visible key', () => {
    for (let T = 1; T <= 64; T++) {
      for (let i = 0; i < T; i++) assert.equal(isMasked(true, i, i), false);
    }
  });
});

describe('layernorm', () => {
  it('of a constant row is beta (variance 0, eps keeps it finite)', () => {
    const out = new Float32Array(4);
    layernormForward(out, f32([5, 5, 5, 5]), f32([2, 2, 2, 2]), f32([0.5, -1, 0, 3]), 1e-5, 1, 4);
    assert.deepEqual([...out], [0.5, -1, 0, 3]);
  });
  it('of [1, 2, 3, 4]: mean 2.5, biased variance 1.25', () => {
    const out = new Float32Array(4);
    layernormForward(out, f32([1, 2, 3, 4]), null, null, 0, 1, 4);
    const s = Math.sqrt(1.25);
    close(out, [-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s]);
  });
});

describe('linear, bias, residual', () => {
  it('out_in: y = x·Wᵀ + b; in_out: y = x·W + b; the same numbers transposed agree', () => {
    // W (out_in) = [[1, 2], [3, 4], [5, 6]]: 2 → 3
    const x = f32([1, -1, 2, 0.5]);
    const a = new Float32Array(6);
    linearForward(a, x, f32([1, 2, 3, 4, 5, 6]), f32([0.5, 0, -1]), 2, 2, 3, 'out_in', tsKernel);
    close(a, [1 - 2 + 0.5, 3 - 4, 5 - 6 - 1, 2 + 1 + 0.5, 6 + 2, 10 + 3 - 1]);
    const b = new Float32Array(6);
    linearForward(b, x, f32([1, 3, 5, 2, 4, 6]), f32([0.5, 0, -1]), 2, 2, 3, 'in_out', tsKernel);
    assert.deepEqual([...b], [...a]);
  });
  it('a missing weight is the identity', () => {
    const out = new Float32Array(2);
    linearForward(out, f32([3, 4]), null, f32([1, 1]), 1, 2, 2, 'out_in', tsKernel);
    close(out, [4, 5]);
  });
  it('biasAdd broadcasts over rows; residual adds', () => {
    const out = f32([1, 2, 3, 4]);
    biasAdd(out, f32([10, 20]), 2, 2);
    close(out, [11, 22, 13, 24]);
    const r = new Float32Array(2);
    residualForward(r, f32([1, 2]), f32([0.5, -2]), 2);
    close(r, [1.5, 0]);
  });
});

describe('positional encoding', () => {
  it('position 0 is [0, 1, 0, 1, …]; position 1 is [sin 1, cos 1, sin 0.01, cos 0.01] for d = 4', () => {
    const out = new Float32Array(8);
    positionalForward(out, new Float32Array(8), 2, 4);
    close(out, [0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)]);
  });
});

/** The attention sublayer's stages for input x (T,C) with no matrices (the identity), through the block graph. */
function attentionForward(x: Float32Array, a: { heads: number; causal: boolean }, T: number, C: number): Record<string, Float32Array> {
  const HS = C / a.heads;
  const stages = forward({
    spec: {
      T, C, embedding: { kind: 'vectors', positional: 'none' }, norm: 'none', normKind: 'layernorm', eps: new Map(), residual: false,
      layers: [{ attention: { NH: a.heads, KVH: a.heads, HS, causal: a.causal, rope: null }, ffn: null }], finalNorm: false, head: null, lens: false,
    },
    params: new Map([['input', { data: x, shape: [T, C] }]]),
  }, tsKernel);
  return Object.fromEntries(stages.map((st) => [st.id.replace('layers.0.attn.', ''), st.data]));
}

describe('attention', () => {
  it('identity projections, 1 head, by hand: two orthogonal tokens', () => {
    // x = [[1, 0], [0, 1]]; scores = x·xᵀ/√2 = [[1/√2, 0], [0, 1/√2]]
    const x = f32([1, 0, 0, 1]);
    const s = attentionForward(x, { heads: 1, causal: false }, 2, 2);
    const a = Math.SQRT1_2;
    close(s.scores, [a, 0, 0, a]);
    const p = Math.exp(a) / (Math.exp(a) + 1);
    close(s.weights, [p, 1 - p, 1 - p, p]);
    close(s.context, [p, 1 - p, 1 - p, p]);
    close(s.out, [p, 1 - p, 1 - p, p]);
  });
  it('causal: the first token sees only itself; scores keep their values, weights get 0 above the diagonal', () => {
    const x = f32([1, 0, 0, 1]);
    const s = attentionForward(x, { heads: 1, causal: true }, 2, 2);
    close(s.scores, [Math.SQRT1_2, 0, 0, Math.SQRT1_2]);
    assert.equal(s.weights[0], 1);
    assert.equal(s.weights[1], 0);
    close(s.context.subarray(0, 2), [1, 0]);
  });
  it('two heads split the columns: head h uses columns h·HS … (h+1)·HS−1', () => {
    // T=1, C=4, NH=2: q, k, v (NH,T,HS) = [[x0, x1], [x2, x3]]
    const s = attentionForward(f32([1, 2, 3, 4]), { heads: 2, causal: false }, 1, 4);
    close(s.q, [1, 2, 3, 4]);
    close(s.scores, [(1 + 4) / Math.SQRT2, (9 + 16) / Math.SQRT2]);
    close(s.weights, [1, 1]);
    close(s.context, [1, 2, 3, 4]);
  });
});
