// The vector forms of the forward's elementwise and row ops in WebAssembly (expModule.ts): expf,
// the row softmax, SiLU / GELU-tanh, LayerNorm / RMSNorm, and exact GELU (geluModule.ts), each
// giving the bits of its JavaScript form (../expf.ts, ../softmax.ts, ../activation.ts,
// ../layernorm.ts, ../gelu.ts say what and why). One instance per process with a memory of its own
// (GELU's, with erf's table, another); values are copied in and out a block at a time, so it stays
// small (it grows to one block, or one row wider than a block).

import { hasWasmSimd } from './wasmFeatures';
import { expModuleBytes } from './expModule';
import { geluModuleBytes } from './geluModule';
import { ERF_TAYLOR } from '../erf';
import { wasmApi, WASM_PAGE_BYTES, type WasmApi, type WasmMemory } from './wasmApi';

/** Values per exp call: one page of memory. */
const CHUNK = WASM_PAGE_BYTES / 4;
/** Values per softmax or norm call (whole rows: at least one, however wide): 4 MB. */
const BLOCK = 1 << 20;

export interface WasmExp {
  /** buf[from … to) = e^buf[from … to). */
  expInPlace(buf: Float32Array, from: number, to: number): void;
  /** out (R,N) = softmax(inp (R,N) · scale) by row, scale > 0: the bits softmaxForward's scalar form gives. */
  softmax(out: Float32Array, inp: Float32Array, R: number, N: number, scale: number): void;
  /**
   * out[0 … n) = x / (1 + e^g(x)) (· up): SiLU (g = −x) or GELU-tanh (g: ../geluTanh.ts), the bits
   * activationColumns' loops give.
   */
  sigmoidAct(out: Float32Array, x: Float32Array, up: Float32Array | null, n: number, kind: 'silu' | 'gelu_tanh'): void;
  /**
   * out (T,C) = LayerNorm (beta given, or null with `rms` false) or RMSNorm (`rms`) of inp by row,
   * C a multiple of 4: the bits layernormForward's and rmsnormForward's loops give.
   */
  norm(out: Float32Array, inp: Float32Array, gamma: Float32Array | null, beta: Float32Array | null, eps: number, T: number, C: number, rms: boolean): void;
  /** out[0 … n) = GELU(x) (· up), exact GELU: the bits activationColumns' loops give (../gelu.ts). */
  geluAct(out: Float32Array, x: Float32Array, up: Float32Array | null, n: number): void;
}

/** The vector form, or null where WebAssembly or simd128 is unavailable. */
export function createWasmExp(): WasmExp | null {
  const api = wasmApi();
  if (api === null || !hasWasmSimd(api)) return null;
  try {
    const memory = new api.Memory({ initial: 1 });
    const instance = new api.Instance(new api.Module(expModuleBytes()), { env: { memory } });
    const fns = expExportsOf(instance.exports);
    const mem = new ExpMemory(memory);
    warmUp(fns, mem);
    return { ...vectorForms(fns, mem), geluAct: geluForm(api) };
  } catch {
    return null;
  }
}

/** The module's functions (expModule.ts says what each takes). */
interface ExpExports {
  readonly exp: (ptr: number, n: number) => void;
  readonly softmax: (ptr: number, R: number, N4: number, scale: number) => void;
  readonly sigmoidAct: (x: number, up: number, out: number, n: number, kind: number) => void;
  readonly normRows: (ptr: number, T: number, C: number, g: number, b: number, eps: number, rms: number) => void;
}

function expExportsOf(exports: Record<string, unknown>): ExpExports {
  return {
    exp: exports.exp as ExpExports['exp'],
    softmax: exports.softmax as ExpExports['softmax'],
    sigmoidAct: exports.sigmoid_act as ExpExports['sigmoidAct'],
    normRows: exports.norm_rows as ExpExports['normRows'],
  };
}

/** The instance's memory as floats, grown to what a call needs. */
class ExpMemory {
  f32: Float32Array;

  constructor(private readonly memory: WasmMemory) {
    this.f32 = new Float32Array(memory.buffer);
  }

  /** The floats, at least `floats` of them. */
  room(floats: number): Float32Array {
    if (floats * 4 > this.memory.buffer.byteLength) {
      grow(this.memory, floats * 4);
      this.f32 = new Float32Array(this.memory.buffer);
    }
    return this.f32;
  }
}

// Each function run a few times, so it is optimized before the first softmax over a vocabulary
// (wasmKernel.ts: warmUp says why).
function warmUp(x: ExpExports, mem: ExpMemory): void {
  for (let i = 0; i < 8; i++) x.exp(0, 1024);
  for (let i = 0; i < 8; i++) x.softmax(0, 4, 256, 1);
  mem.room(2 * CHUNK);
  for (let i = 0; i < 8; i++) for (const kind of [0, 1]) x.sigmoidAct(0, CHUNK * 4, 0, 1024, kind);
  for (let i = 0; i < 8; i++) for (const rms of [0, 1]) x.normRows(8192, 16, 256, 0, 4096, 1e-5, rms);
}

// Values copied into the instance's memory a chunk or a block of rows at a time, and back.
function vectorForms(x: ExpExports, mem: ExpMemory): Omit<WasmExp, 'geluAct'> {
  return {
    expInPlace(buf, from, to) {
      for (let s = from; s < to; s += CHUNK) {
        const e = Math.min(to, s + CHUNK);
        mem.f32.set(buf.subarray(s, e));
        x.exp(0, (e - s + 3) & ~3); // (the lanes past e hold old values: computed, not copied out)
        buf.set(mem.f32.subarray(0, e - s), s);
      }
    },
    softmax(out, inp, R, N, scale) {
      if (!(scale > 0)) throw new RangeError(`softmax: scale ${scale}; the vector form takes scale > 0 (its rows' padding is −∞)`);
      // rows padded to whole f32x4 with −∞ (e^−∞ = 0: nothing to the max or the sum)
      const N4 = (N + 3) & ~3;
      const rows = Math.max(1, Math.floor(BLOCK / Math.max(1, N4)));
      for (let r0 = 0; r0 < R; r0 += rows) {
        const n = Math.min(rows, R - r0);
        const m = mem.room(n * N4);
        if (N4 === N) m.set(inp.subarray(r0 * N, (r0 + n) * N));
        else {
          for (let r = 0; r < n; r++) {
            m.set(inp.subarray((r0 + r) * N, (r0 + r + 1) * N), r * N4);
            m.fill(-Infinity, r * N4 + N, (r + 1) * N4);
          }
        }
        x.softmax(0, n, N4, scale);
        if (N4 === N) out.set(m.subarray(0, n * N), r0 * N);
        else for (let r = 0; r < n; r++) out.set(m.subarray(r * N4, r * N4 + N), (r0 + r) * N);
      }
    },
    norm(out, inp, gamma, beta, eps, T, C, rms) {
      // gamma (or ones) and beta (or zeros) first, then as many whole rows as a block holds
      const rows = Math.max(1, Math.floor(BLOCK / Math.max(1, C)));
      let m = mem.room(2 * C + Math.min(T, rows) * C);
      if (gamma) m.set(gamma.subarray(0, C));
      else m.fill(1, 0, C);
      if (beta) m.set(beta.subarray(0, C), C);
      else m.fill(0, C, 2 * C);
      for (let t0 = 0; t0 < T; t0 += rows) {
        const n = Math.min(rows, T - t0);
        m = mem.room(2 * C + n * C);
        m.set(inp.subarray(t0 * C, (t0 + n) * C), 2 * C);
        x.normRows(8 * C, n, C, 0, 4 * C, eps, rms ? 1 : 0);
        out.set(m.subarray(2 * C, (2 + n) * C), t0 * C);
      }
    },
    sigmoidAct(out, xs, up, n, kind) {
      // x (then the result) in the first page, up in the second; the lanes past n compute old values, not copied out
      const m = mem.room(2 * CHUNK);
      for (let s = 0; s < n; s += CHUNK) {
        const e = Math.min(n, s + CHUNK);
        m.set(xs.subarray(s, e));
        if (up) m.set(up.subarray(s, e), CHUNK);
        x.sigmoidAct(0, up ? CHUNK * 4 : 0, 0, (e - s + 3) & ~3, kind === 'gelu_tanh' ? 1 : 0);
        out.set(m.subarray(0, e - s), s);
      }
    },
  };
}

// GELU's instance: erf's table from byte 0, x (then the result) in page 1, up in page 2
function geluForm(api: WasmApi): WasmExp['geluAct'] {
  if (ERF_TAYLOR.byteLength > WASM_PAGE_BYTES) throw new Error('erf.ts: the table outgrew a page');
  const memory = new api.Memory({ initial: 3 });
  const instance = new api.Instance(new api.Module(geluModuleBytes()), { env: { memory } });
  const geluAct = instance.exports.gelu_act as (x: number, up: number, out: number, n: number, table: number) => void;
  new Float64Array(memory.buffer).set(ERF_TAYLOR);
  const m = new Float32Array(memory.buffer);
  const X = CHUNK;
  const U = 2 * CHUNK;
  for (let i = 0; i < 8; i++) geluAct(X * 4, U * 4, X * 4, 1024, 0); // (warm-up: wasmKernel.ts says why)
  return (out, xs, up, n) => {
    // the lanes past n compute old values, not copied out
    for (let s = 0; s < n; s += CHUNK) {
      const e = Math.min(n, s + CHUNK);
      m.set(xs.subarray(s, e), X);
      if (up) m.set(up.subarray(s, e), U);
      geluAct(X * 4, up ? U * 4 : 0, X * 4, (e - s + 3) & ~3, 0);
      out.set(m.subarray(X, X + e - s), s);
    }
  };
}

function grow(memory: WasmMemory, bytes: number): void {
  memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / WASM_PAGE_BYTES));
}
