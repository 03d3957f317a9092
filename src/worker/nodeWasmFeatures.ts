// Node 20 (V8 11.3) has WebAssembly relaxed-simd behind a V8 flag; it is on by default from V8
// 11.4 (Node 22, VS Code's Electron, Chromium). The matmul kernel's relaxed_madd is one FMA
// instruction where the CPU has it: 1.2-1.3× its GFLOPS. The flag is process-wide and only lets
// modules that use those instructions validate; it is set only where they would not.
import { setFlagsFromString } from 'node:v8';
import { hasFusedMadd } from '../core/wasm';

/** Call before the first matmul kernel of the process is made (it decides fused or not once). */
export function enableWasmRelaxedSimd(): void {
  if (hasFusedMadd()) return;
  try {
    setFlagsFromString('--experimental-wasm-relaxed-simd');
  } catch {
    // (a runtime without the flag: the kernel multiplies then adds)
  }
}
