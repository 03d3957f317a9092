// 16-bit weights: a checkpoint's BF16 or F16 matrices held as their own bits (2 bytes a weight,
// not 4), widened to float32 where they are read: inside the kernel's product, panel by panel
// (wasm/matmulProducts.ts), and here for every other reader (params.ts routes them through
// widen()). Widening is exact: every BF16 and F16 number is a float32, so a product of widened
// weights is the product of the checkpoint's numbers decoded to float32, bit for bit.

/** The 16-bit dtypes held as they are. */
export type HalfDtype = 'BF16' | 'F16';

/** A tensor's numbers as their 16-bit patterns, in `dtype`. */
export interface HalfBits {
  readonly dtype: HalfDtype;
  readonly bits: Uint16Array;
}

/** The float32 bits of a bfloat16: its 16 bits are the top half (NaN, infinities, subnormals included). */
export function bf16Bits(h: number): number {
  return ((h & 0xffff) << 16) >>> 0;
}

/**
 * The float32 bits of an IEEE half, exactly: the exponent and mantissa shifted into float32's
 * place (<< 13) and scaled by 2^112 (the exponents' bias difference, which also normalizes a
 * subnormal), infinity and NaN (exponent 31) kept as such with their payload, the sign OR'd in.
 * The SIMD form (matmulProducts.ts) does the same steps, lane by lane.
 */
export function f16Bits(h: number): number {
  const em = h & 0x7fff;
  const sign = (h & 0x8000) << 16;
  if (em >= 0x7c00) return (sign | 0x7f800000 | ((em & 0x3ff) << 13)) >>> 0;
  scratchU32[0] = em << 13;
  scratchF32[0] = scratchF32[0] * 2 ** 112;
  return (scratchU32[0] | sign) >>> 0;
}

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** The number a 16-bit pattern stands for, as float32. */
export function widenOne(dtype: HalfDtype, h: number): number {
  scratchU32[0] = dtype === 'BF16' ? bf16Bits(h) : f16Bits(h);
  return scratchF32[0];
}

/** out[at + i] ← bits[from + i] widened, for i < n: the numbers as float32 bits (NaN payloads kept). */
export function widenInto(h: HalfBits, from: number, n: number, out: Float32Array, at = 0): void {
  const u = new Uint32Array(out.buffer, out.byteOffset + 4 * at, n);
  const b = h.bits;
  if (h.dtype === 'BF16') for (let i = 0; i < n; i++) u[i] = b[from + i] << 16;
  else for (let i = 0; i < n; i++) u[i] = f16Bits(b[from + i]);
}

/** All of h's numbers as a new float32 array. */
export function widen(h: HalfBits): Float32Array {
  const out = new Float32Array(h.bits.length);
  widenInto(h, 0, h.bits.length, out);
  return out;
}

/** Numbers as float32: the array itself, or 16-bit ones widened (a copy: for a kernel that packs a copy anyway). */
export function floatWeights(b: Float32Array | HalfBits): Float32Array {
  return b instanceof Float32Array ? b : widen(b);
}

/** Output units per panel (params.ts's PANEL_UNITS, which imports this file). */
const UNITS = 16;

/**
 * out ← the panels (params.ts's 'panels': ceil(N/16) panels of [K][16], zero past unit N) of a
 * matrix's 16-bit patterns, src (K,N) as 'kn' or (N,K) as 'nk'. out must not overlap src.
 */
export function halfPanelsInto(src: Uint16Array, out: Uint16Array, K: number, N: number, layout: 'kn' | 'nk'): void {
  for (let p = 0; p * UNITS < N; p++) {
    for (let c = 0; c < UNITS; c++) {
      const j = p * UNITS + c;
      const base = p * K * UNITS + c;
      if (j >= N) for (let k = 0; k < K; k++) out[base + k * UNITS] = 0;
      else if (layout === 'nk') for (let k = 0, s = j * K; k < K; k++) out[base + k * UNITS] = src[s + k];
      else for (let k = 0; k < K; k++) out[base + k * UNITS] = src[k * N + j];
    }
  }
}

/**
 * The reference of the kernel's products from 16-bit panels (wasm/matmulHalves.ts) as its module
 * without fused multiply-add computes them: out (M,N) = a (M,K) · B, B in `h`'s panels (as
 * halfPanelsInto makes them), each output summed in float32, acc + a·w rounded at each step in
 * the order k = 0…K−1.
 */
export function halfPanelProduct(out: Float32Array, a: Float32Array, h: HalfBits, M: number, K: number, N: number): void {
  const f = Math.fround;
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      const base = Math.floor(j / UNITS) * K * UNITS + (j % UNITS);
      let acc = 0;
      for (let k = 0; k < K; k++) acc = f(acc + f(a[i * K + k] * widenOne(h.dtype, h.bits[base + k * UNITS])));
      out[i * N + j] = acc;
    }
  }
}
