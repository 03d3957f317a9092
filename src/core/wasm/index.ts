// The WebAssembly simd128 matmul kernel (createWasmKernel returns null where it cannot run).
export { createWasmKernel, hasFusedMadd, hasWasmSimd, PANEL, type WasmMatmulKernel } from './wasmKernel';
export { runMatmulHelper, type SpawnMatmulHelper } from './matmulThreads';
