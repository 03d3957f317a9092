// RoPE (rotate-half) against a naive rendering of Hugging Face's apply_rotary_pos_emb, and its
// properties: position 0 is left alone, every pair keeps its length, and a query·key dot product
// depends only on the distance between the two positions.
import * as assert from 'node:assert/strict';
import { ropeAngles, ropeForward, ropeInvFreq } from './rope';

// q·cos + rotate_half(q)·sin with cos, sin = cat(freqs, freqs), rotate_half(x) = cat(-x2, x1)
function ropeNaive(x: Float32Array, H: number, T: number, HS: number, theta: number): Float32Array {
  const out = new Float32Array(x.length);
  const half = HS / 2;
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const o = (h * T + t) * HS;
      for (let d = 0; d < HS; d++) {
        const i = d % half;
        const f = Math.fround(t * Math.fround(1 / Math.fround(Math.pow(theta, Math.fround((2 * i) / HS)))));
        const rot = d < half ? -x[o + d + half] : x[o + d - half];
        out[o + d] = x[o + d] * Math.fround(Math.cos(f)) + rot * Math.fround(Math.sin(f));
      }
    }
  }
  return out;
}

const rand = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + seed) * 2);

describe('ropeForward (rotate-half)', () => {
  it('keeps the last angles only while T, HS and the rope spec are the same', () => {
    const a = { theta: 10000 };
    const b = { theta: 10000 }; // equal, but another spec: computed again
    const first = ropeAngles(4, 8, a);
    assert.equal(ropeAngles(4, 8, a), first);
    for (const other of [ropeAngles(4, 8, b), ropeAngles(5, 8, a), ropeAngles(4, 6, a), ropeAngles(4, 8, { theta: 500 })]) assert.notEqual(other, first);
    // each time the right numbers for what was asked, after another spec was asked between
    for (const [T, HS, theta] of [[3, 4, 10000], [3, 4, 500], [3, 4, 10000]] as const) {
      const x = rand(T * HS, 7);
      const want = ropeNaive(x, 1, T, HS, theta);
      ropeForward(x, 1, T, HS, { theta });
      for (let i = 0; i < x.length; i++) assert.ok(Math.abs(x[i] - want[i]) < 1e-6, `θ ${theta}, ${i}: ${x[i]} vs ${want[i]}`);
    }
  });
  it('equals the naive formula', () => {
    const x = rand(2 * 5 * 8, 1);
    const want = ropeNaive(x, 2, 5, 8, 10000);
    ropeForward(x, 2, 5, 8, { theta: 10000 });
    for (let i = 0; i < x.length; i++) assert.ok(Math.abs(x[i] - want[i]) < 1e-6, `${i}: ${x[i]} vs ${want[i]}`);
  });
  it('leaves position 0 as it is and keeps the length of every (d, d + HS/2) pair', () => {
    const x = rand(6 * 4, 2);
    const before = x.slice();
    ropeForward(x, 1, 6, 4, { theta: 500000 });
    assert.deepEqual(Array.from(x.subarray(0, 4)), Array.from(before.subarray(0, 4)));
    for (let t = 0; t < 6; t++) for (let d = 0; d < 2; d++) {
      const a = Math.hypot(before[t * 4 + d], before[t * 4 + d + 2]);
      const b = Math.hypot(x[t * 4 + d], x[t * 4 + d + 2]);
      assert.ok(Math.abs(a - b) < 1e-5);
    }
  });
  it('q_m · k_n depends only on m − n (the point of rotary positions)', () => {
    const HS = 8;
    const q = rand(HS, 3);
    const k = rand(HS, 4);
    const dot = (m: number, n: number): number => {
      const T = Math.max(m, n) + 1;
      const Q = new Float32Array(T * HS);
      const K = new Float32Array(T * HS);
      Q.set(q, m * HS);
      K.set(k, n * HS);
      ropeForward(Q, 1, T, HS, { theta: 10000 });
      ropeForward(K, 1, T, HS, { theta: 10000 });
      let s = 0;
      for (let d = 0; d < HS; d++) s += Q[m * HS + d] * K[n * HS + d];
      return s;
    };
    assert.ok(Math.abs(dot(5, 2) - dot(3, 0)) < 1e-4);
    assert.ok(Math.abs(dot(7, 7) - dot(0, 0)) < 1e-4);
  });

});

describe('ropeInvFreq: rope_scaling as Hugging Face computes it', () => {
  const close = (got: Float32Array, want: number[]): void => {
    assert.equal(got.length, want.length);
    for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1e-6 * Math.abs(want[i]), `[${i}] ${got[i]} vs ${want[i]}`);
  };
  it('plain: 1 / θ^(2i/HS)', () => close(ropeInvFreq(8, { theta: 10000 }), [1, 0.1, 0.01, 0.001]));
  it('linear: each divided by the factor', () => close(ropeInvFreq(8, { theta: 10000, scaling: { type: 'linear', factor: 4 } }), [0.25, 0.025, 0.0025, 0.00025]));
  it('llama3: the high frequencies kept, the low ones divided, those between blended (worked by hand)', () => {
    // original context 64, low 1, high 4: wavelengths 2π/inv = 6.28 (under 64/4 = 16: kept), 62.8
    // (between 16 and 64: blended with smooth = (64/62.83 − 1)/(4 − 1) = 0.0061972), 628 and 6283 (over 64: / 8)
    const smooth = (64 / (2 * Math.PI / 0.1) - 1) / 3;
    close(ropeInvFreq(8, { theta: 10000, scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 64 } }),
      [1, (1 - smooth) * 0.1 / 8 + smooth * 0.1, 0.01 / 8, 0.001 / 8]);
    assert.ok(Math.abs(smooth - 0.0061972) < 1e-6);
  });
});

// transformers' partial rotary (gpt_neox, phi3): cat(x_rot·cos + rotate_half(x_rot)·sin, x_pass),
// x_rot the first R dims, inv_freq = 1 / θ^(arange(0, R, 2) / R)
function ropePartialNaive(x: Float32Array, H: number, T: number, HS: number, theta: number, R: number): Float32Array {
  const out = x.slice();
  const half = R / 2;
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const o = (h * T + t) * HS;
      for (let d = 0; d < R; d++) {
        const i = d % half;
        const f = Math.fround(t * Math.fround(1 / Math.fround(Math.pow(theta, Math.fround((2 * i) / R)))));
        const rot = d < half ? -x[o + d + half] : x[o + d - half];
        out[o + d] = x[o + d] * Math.fround(Math.cos(f)) + rot * Math.fround(Math.sin(f));
      }
    }
  }
  return out;
}

describe('ropeForward, partial rotary (rope.rotaryDims)', () => {
  it('rotates the first rotaryDims of each head with frequencies over rotaryDims, and passes the rest through bit for bit', () => {
    for (const [H, T, HS, R] of [[2, 5, 8, 4], [3, 4, 6, 2], [1, 7, 16, 10]] as const) {
      const x = rand(H * T * HS, R);
      const want = ropePartialNaive(x, H, T, HS, 10000, R);
      const got = x.slice();
      ropeForward(got, H, T, HS, { theta: 10000, rotaryDims: R });
      for (let i = 0; i < x.length; i++) {
        if (i % HS >= R) assert.ok(Object.is(got[i], x[i]), `HS ${HS} R ${R}, ${i}: passed through`);
        else assert.ok(Math.abs(got[i] - want[i]) < 1e-6, `HS ${HS} R ${R}, ${i}: ${got[i]} vs ${want[i]}`);
      }
    }
  });
  it('differs from rotating the whole head (its frequencies are over rotaryDims, not HS)', () => {
    const x = rand(6 * 8, 5);
    const partial = x.slice();
    ropeForward(partial, 1, 6, 8, { theta: 10000, rotaryDims: 4 });
    // dim 1 pairs with dim 3 (not 5) and turns at θ^(-2/4) = 0.01 per position
    const t = 5;
    const a = Math.fround(t * Math.fround(1 / Math.fround(Math.pow(10000, 0.5))));
    const want = x[t * 8 + 1] * Math.fround(Math.cos(a)) - x[t * 8 + 3] * Math.fround(Math.sin(a));
    assert.ok(Math.abs(partial[t * 8 + 1] - want) < 1e-6);
  });
  it('rotaryDims HS gives the bits of the whole-head rotation; 0 leaves x as it is', () => {
    const x = rand(2 * 5 * 8, 9);
    const whole = x.slice();
    ropeForward(whole, 2, 5, 8, { theta: 500 });
    const full = x.slice();
    ropeForward(full, 2, 5, 8, { theta: 500, rotaryDims: 8 });
    assert.deepEqual(full, whole);
    const none = x.slice();
    ropeForward(none, 2, 5, 8, { theta: 500, rotaryDims: 0 });
    assert.deepEqual(none, x);
  });
  it('rows appended at t0 are rotated as the whole input was', () => {
    const rope = { theta: 10000, rotaryDims: 4 };
    const x = rand(1 * 6 * 8, 11);
    const whole = x.slice();
    ropeForward(whole, 1, 6, 8, rope);
    const tail = x.slice(4 * 8);
    ropeForward(tail, 1, 2, 8, rope, 4);
    assert.deepEqual(tail, whole.subarray(4 * 8));
  });
  it('refuses a rotaryDims that is odd, negative or over HS', () => {
    for (const R of [3, -2, 10, 2.5]) assert.throws(() => ropeForward(new Float32Array(8), 1, 1, 8, { theta: 10000, rotaryDims: R }), /rotaryDims must be an even whole number from 0 to 8/);
  });
});

describe('ropeForward, a RoPE spec per layer (gemma3: another base on sliding layers)', () => {
  it('layers taking turns between two specs each get their own angles', () => {
    const local = { theta: 10000 };
    const global = { theta: 1000000 };
    const x = rand(2 * 6 * 8, 13);
    for (let layer = 0; layer < 5; layer++) {
      const theta = layer % 2 === 0 ? 10000 : 1000000;
      const got = x.slice();
      ropeForward(got, 2, 6, 8, layer % 2 === 0 ? local : global);
      const want = ropeNaive(x, 2, 6, 8, theta);
      for (let i = 0; i < x.length; i++) assert.ok(Math.abs(got[i] - want[i]) < 1e-6, `layer ${layer}, ${i}: ${got[i]} vs ${want[i]}`);
    }
    // both kept: asked again, the same arrays
    assert.equal(ropeAngles(6, 8, local), ropeAngles(6, 8, local));
    const g = ropeAngles(6, 8, global);
    ropeAngles(6, 8, local);
    assert.equal(ropeAngles(6, 8, global), g);
  });
});
