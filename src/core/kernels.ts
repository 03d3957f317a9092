// Which matmul kernel to use: the WebAssembly SIMD one where the runtime has simd128 (Node 20,
// VS Code's extension host), else the TypeScript one. Both are tested against the naive kernel.
import { tsKernel, type MatmulKernel } from './kernel';
import { createWasmKernel } from './wasm';

let cached: MatmulKernel | null = null;

export function defaultKernel(): MatmulKernel {
  return (cached ??= createWasmKernel() ?? tsKernel);
}
