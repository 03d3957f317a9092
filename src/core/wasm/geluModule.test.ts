// Exact GELU's vector form (geluModule.ts, through wasmExp.ts) against the scalar one (../gelu.ts)
// bit for bit: a sweep of every float32 bit pattern at a stride (NaNs, ±∞, subnormals, ±0, huge),
// a dense sweep of the range where GELU is neither ~0 nor ~x, the table's edges, and gated.
import * as assert from 'node:assert/strict';
import { ERFC_TABLE_MAX } from '../erf';
import { vectorExp } from '../expf';
import { gelu } from '../gelu';

const bitsOf = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);

/** Both forms on xs (· up): the first index where they differ (NaN = NaN), or −1. */
function firstDifference(xs: Float32Array, up: Float32Array | null): number {
  const v = vectorExp();
  assert.ok(v, 'no vector form here');
  const got = new Float32Array(xs.length).fill(7);
  v.geluAct(got, xs, up, xs.length);
  const want = new Float32Array(xs.length);
  for (let i = 0; i < xs.length; i++) want[i] = up ? gelu(xs[i]) * up[i] : gelu(xs[i]);
  const g = bitsOf(got);
  const w = bitsOf(want);
  for (let i = 0; i < xs.length; i++) {
    if (g[i] !== w[i] && !(Number.isNaN(got[i]) && Number.isNaN(want[i]))) return i;
  }
  return -1;
}

function assertSame(xs: Float32Array, up: Float32Array | null = null): void {
  const i = firstDifference(xs, up);
  if (i < 0) return;
  const v = new Float32Array(1);
  vectorExp()!.geluAct(v, xs.subarray(i, i + 1), up ? up.subarray(i, i + 1) : null, 1);
  assert.fail(`x = ${xs[i]} (bits 0x${bitsOf(xs.subarray(i, i + 1))[0].toString(16)}): vector ${v[0]}, scalar ${Math.fround(up ? gelu(xs[i]) * up[i] : gelu(xs[i]))}`);
}

describe('exact GELU: the vector form gives the scalar form\'s bits', () => {
  it('every float32 bit pattern at a stride of 4093 (1,049,345 values: NaNs, ±∞, subnormals, ±0, the largest)', () => {
    const n = Math.floor(2 ** 32 / 4093) + 1;
    const u = new Uint32Array(n);
    for (let i = 0; i < n; i++) u[i] = (i * 4093) >>> 0;
    assertSame(new Float32Array(u.buffer));
  });

  it('every 61st float32 with 2⁻⁶ ≤ |x| < 16, both signs (2.2 million values)', () => {
    const from = bitsOf(Float32Array.of(2 ** -6))[0];
    const to = bitsOf(Float32Array.of(16))[0];
    const n = Math.ceil((to - from) / 61);
    const u = new Uint32Array(2 * n);
    for (let i = 0; i < n; i++) {
      u[i] = from + 61 * i;
      u[n + i] = (from + 61 * i) | 0x80000000;
    }
    assertSame(new Float32Array(u.buffer));
  });

  it('±0, ±∞, NaN, the table\'s edges (|x|/√2 at 2.5 and 10.25) and the points\' midpoints, in order', () => {
    const xs: number[] = [0, -0, Infinity, -Infinity, NaN, 1e-45, -1e-45, 3.4e38, -3.4e38];
    for (const z of [2.5, ERFC_TABLE_MAX, 5, 1 / 64, 3 / 64]) {
      const x = Math.fround(z * Math.SQRT2);
      for (let k = -3; k <= 3; k++) xs.push(x + k * 2 ** -21 * x, -(x + k * 2 ** -21 * x));
    }
    const got = Float32Array.from(xs);
    assertSame(got);
    const out = new Float32Array(5);
    vectorExp()!.geluAct(out, Float32Array.of(0, -0, Infinity, -Infinity, -20), null, 5);
    assert.ok(Object.is(out[0], 0) && Object.is(out[1], -0) && out[2] === Infinity && Number.isNaN(out[3]) && Object.is(out[4], -0), `${[...out]}`);
  });

  it('gated (GELU(gate) · up), 70,001 values (past one chunk of the vector form)', () => {
    const n = 70001;
    const gate = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898) * 12);
    const up = Float32Array.from({ length: n }, (_, i) => Math.cos(i * 78.233) * 3);
    assertSame(gate, up);
  });
});
