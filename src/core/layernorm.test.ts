// LayerNorm and RMSNorm: their vector form (WebAssembly, C a multiple of 4) and their JavaScript
// loops give the same bits, gamma and beta given or not, on constant rows, huge and tiny values,
// ±∞ and NaN, in rows enough to take several blocks; and a row's numbers are what the formula says.
import * as assert from 'node:assert/strict';
import { useWasmExp, vectorExp } from './expf';
import { layernormForward } from './layernorm';
import { rmsnormForward } from './rmsnorm';
import { close, f32 } from '../../test/helpers/handChecked';

function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const rnd = (): number => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  return Float32Array.from({ length: n }, () => (rnd() - 0.5) * 10 ** (6 * rnd() - 3));
}

const bits = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);

function bothForms(run: (out: Float32Array) => void, n: number): [Float32Array, Float32Array] {
  const vector = new Float32Array(n).fill(7);
  run(vector);
  useWasmExp(false);
  try {
    const scalar = new Float32Array(n).fill(7);
    run(scalar);
    return [vector, scalar];
  } finally {
    useWasmExp(true);
  }
}

describe('LayerNorm and RMSNorm: their two forms (src/core/layernorm, rmsnorm)', () => {
  it('the vector form is there', () => assert.ok(vectorExp()));

  for (const [T, C] of [[1, 4], [7, 768], [5, 576], [300, 4096]] as const) {
    it(`${T} × ${C}: the same bits from both forms, with and without gamma and beta`, () => {
      const inp = values(T * C, T + C);
      inp.fill(0.25, 0, C); // a constant row: variance 0, beta comes out
      if (T > 2) {
        inp[C] = NaN;
        inp[2 * C] = Infinity;
        inp[2 * C + 1] = -3e38;
      }
      const gamma = values(C, 1);
      const beta = values(C, 2);
      for (const [g, b] of [[gamma, beta], [null, null], [gamma, null]] as const) {
        const [v, s] = bothForms((out) => layernormForward(out, inp, g, b, 1e-5, T, C), T * C);
        assert.deepEqual(bits(v), bits(s), `LayerNorm ${T}×${C}, gamma ${!!g}, beta ${!!b}`);
        const [rv, rs] = bothForms((out) => rmsnormForward(out, inp, g, 1e-6, T, C), T * C);
        assert.deepEqual(bits(rv), bits(rs), `RMSNorm ${T}×${C}, gamma ${!!g}`);
      }
    });
  }

  it('a row worked by hand: [1, 2, 3, 4] → LayerNorm ±1.342, ±0.447; RMSNorm x / √7.5', () => {
    const out = new Float32Array(4);
    layernormForward(out, Float32Array.of(1, 2, 3, 4), null, null, 0, 1, 4);
    const sd = Math.sqrt(1.25);
    assert.deepEqual([...out], [-1.5 / sd, -0.5 / sd, 0.5 / sd, 1.5 / sd].map(Math.fround));
    rmsnormForward(out, Float32Array.of(1, 2, 3, 4), Float32Array.of(1, 1, 2, 1), 0, 1, 4);
    const r = 1 / Math.sqrt(7.5);
    assert.deepEqual([...out], [r, 2 * r, 6 * r, 4 * r].map(Math.fround));
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
