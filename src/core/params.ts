// The numbers of a model, by parameter id: `input`, `embed`, `pos`, `layers.2.attn.Wq`,
// `layers.2.ffn.b1`, `layers.2.ln1.gamma`, `ln_f.beta`, `head.W`, and the unit scales that
// `ablate`/`scale` set (`layers.2.ffn.units`, one per neuron; `layers.2.attn.units`, one per head).
// These are the ids the `weights` overrides of a checkpoint file name (without their [row]), the
// ids the reader binds each row of numbers in the text to, and the ids the block graph says each
// stage reads. A missing matrix is the identity (attention without matrices); a missing vector
// is zeros for a bias, ones for a gamma or a unit scale.

import { widenInto, widenOne, type HalfBits } from './halfWeights';
import type { Layout } from './spec';

/**
 * How a matrix param's numbers lie: [out][in] (out_in, as torch.nn.Linear), [in][out] (in_out,
 * as GPT-2's Conv1D), or 'panels': ceil(out/16) panels of [in][16], 16 output units side by side,
 * zero past the last unit. Panels are the form the WebAssembly kernel multiplies; a checkpoint's
 * matrices are held that way (checkpoint/load.ts), so they are held once and multiplied where
 * they lie, with no copy per product. A file's own matrices are out_in or in_out.
 */
export type MatrixLayout = Layout | 'panels';

/** Output units per panel of a 'panels' matrix. */
export const PANEL_UNITS = 16;

/**
 * A param's numbers: float32 in `data`, or (a checkpoint's BF16/F16 matrices) their 16-bit patterns
 * in `half`, widened where they are read. Only this file and the kernel read `half`: every other
 * reader of a weight goes through weightAt / readOutputRow / valuesAt / floatData, so that a
 * 16-bit matrix reads as the float32 numbers it stands for.
 */
export type Param = FloatParam | HalfParam;

interface ParamShape {
  /** [rows, cols] of a matrix as stored ([out, in] for 'panels'), [n] of a vector. */
  readonly shape: readonly number[];
  /** How a matrix is stored (MatrixLayout); absent for a vector. */
  readonly layout?: MatrixLayout;
}

export interface FloatParam extends ParamShape {
  readonly data: Float32Array;
  readonly half?: undefined;
}

/** A 16-bit matrix (vectors are always float32). */
export interface HalfParam extends ParamShape {
  readonly data?: undefined;
  readonly half: HalfBits;
  readonly layout: MatrixLayout;
}

/** The number at index i of p's storage (as weightIndex says), as float32. */
export function valueAt(p: Param, i: number): number {
  return p.half ? widenOne(p.half.dtype, p.half.bits[i]) : p.data[i];
}

/** W'[k][n] of a matrix param of K inputs and N outputs, as float32. */
export function weightAt(p: Param, k: number, n: number, K: number, N: number): number {
  return valueAt(p, weightIndex(p.layout, k, n, K, N));
}

/** The numbers at these storage indices, as float32. */
export function valuesAt(p: Param, indices: readonly number[]): Float32Array {
  return Float32Array.from(indices, (i) => valueAt(p, i));
}

/** What a kernel packs of p: its float32 numbers, or its 16-bit patterns (widened inside the product). */
export function weightsOf(p: Param): Float32Array | HalfBits {
  return p.half ?? p.data;
}

/** Bytes p's storage holds (2 a number for a 16-bit matrix, 4 for float32). */
export function storedBytes(p: Param): number {
  return p.half ? p.half.bits.byteLength : p.data.byteLength;
}

/** How many numbers p's storage holds (a panels matrix's padding included). */
export function storedLength(p: Param): number {
  return p.half ? p.half.bits.length : p.data.length;
}

/**
 * p's numbers as float32 in its own layout: `data` itself, or a widened copy of a 16-bit matrix
 * (as many bytes again as float32: for a reader that needs one matrix whole, or an edit of one,
 * which then holds that one matrix as float32).
 */
export function floatData(p: Param): Float32Array {
  if (!p.half) return p.data;
  const out = new Float32Array(p.half.bits.length);
  widenInto(p.half, 0, out.length, out);
  return out;
}

/** A param's numbers as float32 (floatData), or null where there is none (a bias or scale left out). */
export function floatOrNull(p: Param | undefined | null): Float32Array | null {
  return p ? floatData(p) : null;
}

// Index in data of W'[k][n]: input k, output n of a matrix of K inputs and N outputs
export function weightIndex(layout: MatrixLayout | undefined, k: number, n: number, K: number, N: number): number {
  if (layout === 'in_out') return k * N + n;
  if (layout === 'panels') return ((n >> 4) * K + k) * PANEL_UNITS + (n & 15);
  return n * K + k;
}

/** [outputs, inputs] of a matrix param, whatever its layout. */
export function outputsInputs(p: Param): [number, number] {
  return p.layout === 'in_out' ? [p.shape[1], p.shape[0]] : [p.shape[0], p.shape[1]];
}

/** True when a matrix's rows are its outputs (an edit of an out_in row changes one output column). */
export function rowsAreOutputs(p: Param): boolean {
  return p.layout !== 'in_out';
}

/** Numbers a 'panels' matrix of N outputs and K inputs takes (its last panel padded with zeros). */
export function panelsLength(K: number, N: number): number {
  return Math.ceil(N / PANEL_UNITS) * PANEL_UNITS * K;
}

/**
 * out[at … at + K) = output n's K weights (out_in row n) of a matrix of K inputs and N outputs:
 * a token's row of an embedding table, a neuron's input weights.
 */
export function readOutputRow(p: Param, n: number, K: number, N: number, out: Float32Array | number[], at = 0): void {
  if (p.half) {
    if ((p.layout === 'out_in' || p.layout === undefined) && out instanceof Float32Array) widenInto(p.half, n * K, K, out, at); // (a token's embedding row)
    else for (let k = 0; k < K; k++) out[at + k] = weightAt(p, k, n, K, N);
  } else if (p.layout === 'in_out') for (let k = 0; k < K; k++) out[at + k] = p.data[k * N + n];
  else if (p.layout === 'panels') for (let k = 0, i = ((n >> 4) * K) * PANEL_UNITS + (n & 15); k < K; k++, i += PANEL_UNITS) out[at + k] = p.data[i];
  else for (let k = 0, i = n * K; k < K; k++) out[at + k] = p.data[i + k];
}

/** A (K,N) ('kn') or (N,K) ('nk') matrix as panels (see MatrixLayout), in plain loops (the kernels have their own). */
export function toPanels(b: Float32Array, K: number, N: number, bLayout: 'kn' | 'nk'): Float32Array {
  const out = new Float32Array(panelsLength(K, N));
  for (let n = 0; n < N; n++) {
    for (let k = 0; k < K; k++) out[weightIndex('panels', k, n, K, N)] = bLayout === 'kn' ? b[k * N + n] : b[n * K + k];
  }
  return out;
}

export type Params = ReadonlyMap<string, Param>;

/**
 * What changed in a stage or a param since the last run: nothing (null), everything ('all'), or
 * these columns of a stage / rows of a matrix param / elements of a vector param.
 */
export type Cols = ReadonlySet<number> | 'all' | null;

/** The params an edit changed, and how; the engine recomputes what reads them. */
export type ParamChanges = ReadonlyMap<string, Cols>;

export function unionCols(a: Cols, b: Cols): Cols {
  if (a === 'all' || b === 'all') return 'all';
  if (a === null) return b;
  if (b === null) return a;
  const out = new Set(a);
  for (const x of b) out.add(x);
  return out;
}

/** Adds `c` to the change already recorded for `id`. */
export function addChange(changes: Map<string, Cols>, id: string, c: Cols): void {
  changes.set(id, unionCols(changes.get(id) ?? null, c));
}
