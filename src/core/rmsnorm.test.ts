// RMSNorm against values worked out by hand; gemma's one-plus form x̂ · (1 + w) against the plain
// form with 1 + w as its gain and against the naive formula, in the vector form (C a multiple of
// 4) and the JavaScript one.
import * as assert from 'node:assert/strict';
import { onePlusGamma, rmsnormForward } from './rmsnorm';

describe('rmsnormForward', () => {
  it('divides each row by its root mean square (plus eps), then scales by gamma; no mean, no shift', () => {
    // row [3, 4]: mean square 12.5, r = 1/sqrt(12.5 + 0.5) = 1/sqrt(13); row [1, 1]: r = 1/sqrt(1.5)
    const out = new Float32Array(4);
    rmsnormForward(out, new Float32Array([3, 4, 1, 1]), new Float32Array([2, 0.5]), 0.5, 2, 2);
    const r0 = 1 / Math.sqrt(13);
    const r1 = 1 / Math.sqrt(1.5);
    assert.deepEqual(Array.from(out), [3 * r0 * 2, 4 * r0 * 0.5, r1 * 2, r1 * 0.5].map(Math.fround));
  });
  it('without gamma, a row keeps its direction and gets unit root mean square', () => {
    const out = new Float32Array(3);
    rmsnormForward(out, new Float32Array([-2, 6, 9]), null, 0, 1, 3);
    const ms = (out[0] ** 2 + out[1] ** 2 + out[2] ** 2) / 3;
    assert.ok(Math.abs(ms - 1) < 1e-6);
    assert.ok(Math.abs(out[1] / out[0] + 3) < 1e-6);
  });
});

// x · rsqrt(mean(x²) + eps) · (1 + w), each step in float32 as torch (Gemma2RMSNorm)
function onePlusNaive(x: Float32Array, w: Float32Array, eps: number, T: number, C: number): Float32Array {
  const f = Math.fround;
  const out = new Float32Array(T * C);
  for (let t = 0; t < T; t++) {
    let ss = 0;
    for (let i = 0; i < C; i++) ss += x[t * C + i] * x[t * C + i];
    const r = f(1 / Math.sqrt(f(f(ss / C) + eps)));
    for (let i = 0; i < C; i++) out[t * C + i] = f(f(x[t * C + i] * r) * f(1 + w[i]));
  }
  return out;
}

describe('rmsnormForward, one-plus (gemma: x̂ · (1 + w))', () => {
  it('worked by hand: row [3, 4], w [1, −0.5], eps 0.5 → [3·2, 4·0.5] / √13', () => {
    const out = new Float32Array(2);
    rmsnormForward(out, new Float32Array([3, 4]), new Float32Array([1, -0.5]), 0.5, 1, 2, true);
    assert.deepEqual(Array.from(out), [6 / Math.sqrt(13), 2 / Math.sqrt(13)].map(Math.fround));
  });
  for (const C of [16, 6]) {
    it(`C ${C} (${C % 4 === 0 ? 'vector' : 'JavaScript'} form): the bits of the plain form with gain 1 + w; the naive formula`, () => {
      const T = 5;
      const x = Float32Array.from({ length: T * C }, (_, i) => Math.sin(i * 1.7) * 3);
      const w = Float32Array.from({ length: C }, (_, i) => Math.cos(i) * 0.1);
      const got = new Float32Array(T * C);
      rmsnormForward(got, x, w, 1e-6, T, C, true);
      const plain = new Float32Array(T * C);
      rmsnormForward(plain, x, onePlusGamma(w), 1e-6, T, C);
      assert.deepEqual(got, plain);
      const want = onePlusNaive(x, w, 1e-6, T, C);
      for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-6 * Math.abs(want[i]) + 1e-7, `${i}: ${got[i]} vs ${want[i]}`);
      // and not the plain norm with w as its gain
      const wrong = new Float32Array(T * C);
      rmsnormForward(wrong, x, w, 1e-6, T, C);
      assert.ok(Math.abs(wrong[1] - got[1]) > 0.1, `${wrong[1]} vs ${got[1]}`);
    });
  }
  it('absent, the plain form as before (gain w)', () => {
    const x = new Float32Array([1, 2, 3, 4]);
    const w = new Float32Array([0.5, 1, 2, 3]);
    const a = new Float32Array(4);
    const b = new Float32Array(4);
    rmsnormForward(a, x, w, 1e-5, 1, 4);
    rmsnormForward(b, x, w, 1e-5, 1, 4, false);
    assert.deepEqual(a, b);
    assert.ok(Math.abs(a[3] / a[0] - 24) < 1e-5);
  });
});
