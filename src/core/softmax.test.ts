// The row softmax's two forms, WebAssembly lanes and JavaScript loops, give the same bits on every
// kind of row (widths that are not a multiple of 4, masked entries, all masked, NaN, ±∞, ties,
// huge and tiny logits, a temperature), in blocks of rows and rows wider than a block; and both are
// close to a float64 softmax.
import * as assert from 'node:assert/strict';
import { softmaxForward, softmaxScalar } from './softmax';
import { vectorExp } from './expf';
import { close, f32 } from '../../test/helpers/handChecked';

function rows(R: number, N: number, seed: number, kind: number): Float32Array {
  let s = seed >>> 0;
  const rnd = (): number => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const out = new Float32Array(R * N);
  for (let i = 0; i < out.length; i++) {
    const u = rnd();
    out[i] = kind === 0 ? (u - 0.5) * 20 : kind === 1 ? (u - 0.5) * 2000 : kind === 2 ? Math.round(u * 3) : (u - 0.5) * 1e-30;
    if (rnd() < 0.1) out[i] = -Infinity;
  }
  return out;
}

const bits = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);

describe('softmax: its two forms (src/core/softmax)', () => {
  it('the vector form is there (Node 20 has simd128)', () => assert.ok(vectorExp()));

  it('give the same bits: widths 1 … 9, 31, 50257; masked, all-masked, NaN and ±∞ rows; scales 1, 1/0.7, 3', () => {
    const v = vectorExp()!;
    for (const [R, N] of [[1, 1], [3, 2], [4, 3], [2, 4], [5, 5], [3, 7], [2, 9], [32, 31], [2, 50257]] as const) {
      for (let kind = 0; kind < 4; kind++) {
        for (const scale of [1, 1 / 0.7, 3]) {
          const inp = rows(R, N, R * 1000 + N * 10 + kind, kind);
          if (R >= 3) {
            inp.fill(-Infinity, 0, N); // a row with no finite entry
            inp[N] = NaN; // a NaN in the second
            inp[2 * N] = Infinity; // +∞ in the third
          }
          const want = new Float32Array(R * N).fill(7);
          softmaxScalar(want, inp, R, N, scale);
          const got = new Float32Array(R * N).fill(7);
          v.softmax(got, inp, R, N, scale);
          assert.deepEqual(bits(got), bits(want), `${R}×${N}, kind ${kind}, scale ${scale}`);
        }
      }
    }
  });

  it('the vector form refuses a scale ≤ 0 (its padding is −∞); softmaxForward then runs the loops', () => {
    const inp = Float32Array.of(1, 2, 3);
    for (const scale of [0, -1, NaN]) {
      assert.throws(() => vectorExp()!.softmax(new Float32Array(3), inp, 1, 3, scale), /scale/);
      const got = new Float32Array(3);
      softmaxForward(got, inp, 1, 3, scale);
      const want = new Float32Array(3);
      softmaxScalar(want, inp, 1, 3, scale);
      assert.deepEqual(bits(got), bits(want), `scale ${scale}`);
    }
  });

  it('rows wider than a block (1,048,576 values), and more rows than a block holds, come out the same', () => {
    const v = vectorExp()!;
    for (const [R, N] of [[2, (1 << 20) + 3], [70, 50257]] as const) {
      const inp = rows(R, N, N, 0);
      const want = new Float32Array(R * N);
      softmaxScalar(want, inp, R, N, 1);
      const got = new Float32Array(R * N);
      v.softmax(got, inp, R, N, 1);
      assert.deepEqual(bits(got), bits(want), `${R}×${N}`);
    }
  });

  it('is close to a float64 softmax, sums to 1, and gives zeros to a row with nothing visible', () => {
    const [R, N] = [4, 1001];
    const inp = rows(R, N, 9, 0);
    inp.fill(-Infinity, 3 * N, 4 * N);
    const out = new Float32Array(R * N);
    softmaxForward(out, inp, R, N, 1 / 0.7);
    for (let r = 0; r < 3; r++) {
      let max = -Infinity;
      for (let j = 0; j < N; j++) max = Math.max(max, inp[r * N + j] / 0.7);
      let sum = 0;
      for (let j = 0; j < N; j++) sum += Math.exp(inp[r * N + j] / 0.7 - max);
      let total = 0;
      for (let j = 0; j < N; j++) {
        const want = Math.exp(inp[r * N + j] / 0.7 - max) / sum;
        assert.ok(Math.abs(out[r * N + j] - want) <= 1e-6 * want + 1e-12, `row ${r}, ${j}: ${out[r * N + j]} vs ${want}`);
        total += out[r * N + j];
      }
      assert.ok(Math.abs(total - 1) < 1e-5, `row ${r} sums to ${total}`);
    }
    assert.deepEqual([...out.subarray(3 * N)], new Array(N).fill(0));
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
});
