// expf over f32x4 lanes in WebAssembly (../expf.ts says what and why). One instance per process
// with a memory of its own; values are copied in and out a chunk at a time, so it never grows.

import { hasWasmSimd } from './wasmKernel';
import { expModuleBytes } from './expModule';
import { wasmApi, WASM_PAGE_BYTES } from './wasmApi';

/** Values per call: one page of memory. */
const CHUNK = WASM_PAGE_BYTES / 4;

export interface WasmExp {
  /** buf[from … to) = e^buf[from … to). */
  expInPlace(buf: Float32Array, from: number, to: number): void;
}

/** The vector form, or null where WebAssembly or simd128 is unavailable. */
export function createWasmExp(): WasmExp | null {
  const api = wasmApi();
  if (api === null || !hasWasmSimd(api)) return null;
  try {
    const memory = new api.Memory({ initial: 1, maximum: 1 });
    const instance = new api.Instance(new api.Module(expModuleBytes()), { env: { memory } });
    const exp = instance.exports.exp as (ptr: number, n: number) => void;
    const mem = new Float32Array(memory.buffer);
    for (let i = 0; i < 8; i++) exp(0, 1024); // optimized before the first softmax over a vocabulary (wasmKernel.ts: warmUp)
    return {
      expInPlace(buf, from, to) {
        for (let s = from; s < to; s += CHUNK) {
          const e = Math.min(to, s + CHUNK);
          mem.set(buf.subarray(s, e));
          exp(0, (e - s + 3) & ~3); // (the lanes past e hold old values: computed, not copied out)
          buf.set(mem.subarray(0, e - s), s);
        }
      },
    };
  } catch {
    return null;
  }
}
