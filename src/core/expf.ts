// e^x in float32, as one polynomial (Cephes' expf: x = n·ln2 + r, |r| ≤ ln2/2, e^r by a degree-6
// polynomial, ≤ 2 ulp), in two forms that give the same bits: `expf` (scalar, every float32
// operation written out with Math.fround) and `expfInPlace` (f32x4 in WebAssembly where the
// runtime has simd128, else the scalar loop). Math.exp costs ~25 ns a value in V8; the softmax over
// GPT-2's 50,257 words and the SiLU / GELU of every neuron are mostly exp, so they use this one.
// Since both forms agree bit for bit, a column or a row recomputed with the scalar form equals the
// whole stage computed with the vector form (the engine's incremental rules rely on it).
//
// Range: inputs below LO give exactly 0 (−∞, a masked score, among them); above HI, +∞ (true e^x
// is finite up to 88.72: the last 0.4 saturate early, far past anything a softmax or a gate sees).

import { createWasmExp, type WasmExp } from './wasm/wasmExp';

const f = Math.fround;
export const EXPF = {
  LO: f(-87.33654475), // ln 2^-126: the smallest normal result
  HI: f(88.3), // n ≤ 127 after rounding
  LOG2E: f(1.44269504088896341),
  C1: f(0.693359375), // ln 2 = C1 − C2, C1 with few bits so n·C1 is exact
  C2: f(-2.12194440e-4),
  P: [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1].map(f),
} as const;

// round half to even, as f32x4.nearest
function nearestEven(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** e^x, x rounded to float32 first; bit-identical to one lane of expfInPlace. */
export function expf(x0: number): number {
  const x = f(x0);
  if (x !== x) return NaN;
  if (x > EXPF.HI) return Infinity;
  if (x < EXPF.LO) return 0;
  const { LOG2E, C1, C2, P } = EXPF;
  const n = nearestEven(f(x * LOG2E));
  let r = f(x - f(n * C1));
  r = f(r - f(n * C2));
  const z = f(r * r);
  let y = P[0];
  for (let i = 1; i < P.length; i++) y = f(f(y * r) + P[i]);
  y = f(f(f(y * z) + r) + 1);
  return f(y * 2 ** n);
}

let vector: WasmExp | null | undefined;

/** The vector forms (exp, softmax) of this process, or null where it runs the scalar ones. */
export function vectorExp(): WasmExp | null {
  if (vector === undefined) vector = createWasmExp();
  return vector;
}

/** buf[from … to) = e^buf[from … to), in float32. */
export function expfInPlace(buf: Float32Array, from = 0, to = buf.length): void {
  const v = vectorExp();
  if (v !== null) v.expInPlace(buf, from, to);
  else for (let i = from; i < to; i++) buf[i] = expf(buf[i]);
}

/** Tests only: the scalar loop in place of WebAssembly (false) or back (true). */
export function useWasmExp(on: boolean): void {
  vector = on ? createWasmExp() : null;
}
