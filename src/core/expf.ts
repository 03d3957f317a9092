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

import { expf } from './expfScalar';
import { createWasmExp, type WasmExp } from './wasm/wasmExp';

// (the scalar form and its constants: ./expfScalar.ts, which wasm/expModule.ts reads too)
export { expf } from './expfScalar';

let vector: WasmExp | null | undefined;

/** The vector forms (exp, softmax) of this process, or null where it runs the scalar ones. */
export function vectorExp(): WasmExp | null {
  if (vector === undefined) vector = createWasmExp();
  return vector;
}

/**
 * From now on the vector forms split over `kernel`'s threads where it has them (wasm/vectorThreads.ts:
 * the same bits), the one-thread forms doing what is small.
 */
export function shareVectorOps(kernel: { vectorForm?(plain: WasmExp): WasmExp | null }): void {
  const plain = vectorExp();
  if (plain !== null) vector = kernel.vectorForm?.(plain) ?? plain;
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
