// What the tests of the WebAssembly matmul kernel share (src/core/wasm/wasmKernel.test.ts,
// wasmWeights.test.ts): deterministic operands, the float32 error bound against the reference,
// and kernels of either kind (fused multiply-add or not).
import * as assert from 'node:assert/strict';
import type { BLayout } from '../../src/core/matmulNaive';
import { createWasmKernel, type WasmMatmulKernel } from '../../src/core/wasm/wasmKernel';

export const LAYOUTS: readonly ('kn' | 'nk')[] = ['kn', 'nk'];

// Deterministic values of mixed sign and magnitude (1e-3 … 1e3), with some exact zeros.
export function mixed(n: number, seed: number): Float32Array {
  let t = seed >>> 0;
  const rand = (): number => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = rand();
    out[i] = u < 0.05 ? 0 : (rand() < 0.5 ? -1 : 1) * 10 ** (6 * rand() - 3) * (0.5 + u);
  }
  return out;
}

function bAt(b: Float32Array, k: number, j: number, K: number, N: number, layout: BLayout): number {
  return layout === 'kn' ? b[k * N + j] : b[j * K + k];
}

// |got − exact| ≤ γ·Σ|a·b| with γ = (K+2)·2⁻²⁴: the error bound of a float32 dot product
// accumulated in order (K roundings of sums, one of each product, one of the float64 reference),
// so about 1e-5 relative to the size of the terms for the K used here.
export function assertClose(
  got: Float32Array, want: Float32Array, a: Float32Array, b: Float32Array,
  M: number, K: number, N: number, layout: BLayout, what: string,
): void {
  const gamma = (K + 2) * 2 ** -24;
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let mag = 0;
      for (let k = 0; k < K; k++) mag += Math.abs(a[i * K + k] * bAt(b, k, j, K, N, layout));
      const err = Math.abs(got[i * N + j] - want[i * N + j]);
      if (!(err <= gamma * mag)) {
        assert.fail(`${what}: out[${i},${j}] = ${got[i * N + j]}, reference ${want[i * N + j]}, error ${err} > ${gamma * mag}`);
      }
    }
  }
}

// A weight array's block: its numbers and 16 of slack, in 64-byte blocks (wasmWeights.ts, wasmHeap.ts)
export function alignedBytes(n: number): number {
  return Math.ceil(((n + 16) * 4) / 64) * 64;
}

export function bits(x: Float32Array): Uint32Array {
  return new Uint32Array(x.buffer, x.byteOffset, x.length);
}

/** b as the kernel would be given it: an ordinary array (packed: a copy), or its own weight array (read where it lies). */
export function held(k: WasmMatmulKernel, b: Float32Array, inPlace: boolean): Float32Array {
  if (!inPlace) return b;
  const w = k.weightArray(b.length);
  w.set(b);
  return w;
}
export const FORMS = [false, true].map((inPlace) => ({ inPlace, name: inPlace ? 'in place' : 'packed' }));

export function kernel(fused = true): WasmMatmulKernel {
  const k = createWasmKernel(undefined, { fused });
  assert.ok(k, 'Node 20 has WebAssembly simd128: createWasmKernel() should not return null');
  assert.equal(k.fused, fused);
  return k;
}
// The module with relaxed_madd (what the worker and the CLI run, relaxed-simd on: test/unit/setup.ts) and without.
export const FUSED = [true, false].map((fused) => ({ fused, name: fused ? 'fused multiply-add' : 'multiply then add' }));
