// A matmul kernel's helper thread on Node (dist/matmulHelper.js): started by the compute worker
// with the compiled module, the shared memory and its number, it takes its share of each large
// product (src/core/wasm/matmulThreads.ts) until the kernel stops it.
import { workerData } from 'node:worker_threads';
import { runMatmulHelper } from '../core/wasm';
import type { HelperModules } from '../core/wasm/matmulThreads';
import { wasmApi, type WasmMemory } from '../core/wasm/wasmApi';

const data = workerData as { modules: HelperModules; memory: WasmMemory; index: number };
const api = wasmApi();
if (api) runMatmulHelper(api, data.modules, data.memory, data.index);
