// What this runtime's WebAssembly can run: simd128 (every module here needs it) and relaxed-simd's
// f32x4.relaxed_madd (the fused matmul module: matmulModule.ts). Each is asked by validating a
// tiny module that uses it: a runtime without the feature rejects the bytes.

import { encodeModule, FuncBuilder } from './wasmBytes';
import { wasmApi, type WasmApi } from './wasmApi';

/** True when this runtime runs WebAssembly with simd128. */
export function hasWasmSimd(api: WasmApi | null = wasmApi()): boolean {
  return validates(api, simdProbeBytes);
}

/** True when this runtime has relaxed-simd's f32x4.relaxed_madd (Node 20 only behind a V8 flag: src/worker/nodeWasmFeatures.ts). */
export function hasFusedMadd(api: WasmApi | null = wasmApi()): boolean {
  return validates(api, fusedProbeBytes);
}

function validates(api: WasmApi | null, probe: () => Uint8Array): boolean {
  if (api === null) return false;
  try {
    return api.validate(probe());
  } catch {
    return false;
  }
}

/** A tiny module that validates only where relaxed-simd's f32x4.relaxed_madd is supported. */
export function fusedProbeBytes(): Uint8Array {
  const f = new FuncBuilder([], []);
  f.v128Zero().v128Zero().v128Zero().f32x4RelaxedMadd().drop();
  return encodeModule({ functions: [{ name: 'probe', fn: f }] });
}

/** A tiny module that only validates where simd128 is supported. */
export function simdProbeBytes(): Uint8Array {
  const f = new FuncBuilder([], []);
  f.v128Zero().v128Zero().f32x4Mul().drop();
  return encodeModule({ functions: [{ name: 'probe', fn: f }] });
}
