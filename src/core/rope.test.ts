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
