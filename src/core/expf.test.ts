// expf: close to e^x (Math.exp in float64) over the range a softmax or a gate sees, exact at the
// edges, and the WebAssembly lanes bit-identical to the scalar form on every kind of input.
import * as assert from 'node:assert/strict';
import { expf, expfInPlace, useWasmExp } from './expf';
import { createWasmExp } from './wasm/wasmExp';

const ulp = (v: number): number => {
  const a = Math.abs(Math.fround(v));
  const b = new Float32Array([a]);
  const u = new Uint32Array(b.buffer);
  u[0] += 1;
  return b[0] - a;
};

function inputs(): Float32Array {
  const xs: number[] = [0, -0, 1, -1, 0.5, -0.5, 88.3, 88.31, 88.7, -87.33, -87.34, -100, 100, -Infinity, Infinity, NaN, 1e-30, -1e-30];
  let s = 12345;
  const rnd = (): number => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < 20000; i++) xs.push((rnd() - 0.5) * 180);
  for (let i = 0; i < 20000; i++) xs.push((rnd() - 0.5) * 8);
  for (let i = 0; i < 2000; i++) xs.push(Math.round((rnd() - 0.5) * 200) * Math.LN2 * 0.5); // ties of n·ln2/2
  return Float32Array.from(xs);
}

describe('expf', () => {
  it('is within 2 ulp of e^x where the result is normal, and exact at 0', () => {
    assert.equal(expf(0), 1);
    assert.equal(expf(-0), 1);
    let worst = 0;
    for (const x of inputs()) {
      if (!(x >= -87.3 && x <= 88.3)) continue;
      const want = Math.exp(x);
      const err = Math.abs(expf(x) - want) / ulp(want);
      worst = Math.max(worst, err);
    }
    assert.ok(worst <= 2, `worst error ${worst} ulp`);
  });

  it('gives 0 for −∞ and below the normal range, +∞ above it, NaN for NaN', () => {
    assert.equal(expf(-Infinity), 0);
    assert.equal(expf(-88), 0);
    assert.equal(expf(Infinity), Infinity);
    assert.equal(expf(89), Infinity);
    assert.ok(Number.isNaN(expf(NaN)));
  });

  it('computes the same bits in WebAssembly as the scalar form, at any offset and length', () => {
    assert.ok(createWasmExp() !== null, 'this Node has WebAssembly simd128');
    const xs = inputs();
    const want = xs.map(expf);
    for (const [from, to] of [[0, xs.length], [3, xs.length - 5], [1, 2], [7, 7 + 70000 % xs.length]] as const) {
      const got = xs.slice();
      expfInPlace(got, from, Math.min(to, xs.length));
      for (let i = 0; i < xs.length; i++) {
        const w = i >= from && i < Math.min(to, xs.length) ? want[i] : xs[i];
        assert.ok(Object.is(got[i], w) || (Number.isNaN(got[i]) && Number.isNaN(w)), `x = ${xs[i]} at ${i}: ${got[i]} vs ${w}`);
      }
    }
  });

  it('falls back to the scalar form without WebAssembly', () => {
    try {
      useWasmExp(false);
      const xs = Float32Array.of(-1, 0, 2.5, -Infinity);
      expfInPlace(xs);
      assert.deepEqual([...xs], [expf(-1), 1, expf(2.5), 0]);
    } finally {
      useWasmExp(true);
    }
  });
});
