// The matmul kernel's helper thread on Node (dist/matmulHelper.js): started by the compute worker
// with the compiled module and the shared memory, it computes half of each large product
// (src/core/wasm/matmulThreads.ts) until the kernel stops it.
import { workerData } from 'node:worker_threads';
import { runMatmulHelper } from '../core/wasm';
import { wasmApi, type WasmMemory, type WasmModule } from '../core/wasm/wasmApi';

const data = workerData as { module: WasmModule; memory: WasmMemory };
const api = wasmApi();
if (api) runMatmulHelper(api, data.module, data.memory);
