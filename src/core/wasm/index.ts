// The WebAssembly simd128 matmul kernel (createWasmKernel returns null where it cannot run).
export { createWasmKernel, hasWasmSimd, PANEL, type WasmMatmulKernel } from './wasmKernel';
