// The WebAssembly simd128 matmul kernel (createWasmKernel returns null where it cannot run).
export { createWasmKernel, type WasmMatmulKernel } from './wasmKernel';
export { PANEL } from './wasmWeights';
export { hasFusedMadd, hasWasmSimd } from './wasmFeatures';
export { runMatmulHelper, setShareClock, threadCount, type SpawnMatmulHelper } from './matmulThreads';
export { createMultiKernel, DEFAULT_MEMORY_CAP, type MultiMatmulKernel } from './multiKernel';
