// A matmul kernel's helper thread in the web worker extension host: a Web Worker the compute worker
// starts (webMatmulHelper.ts) from this bundle's text; its first message carries the compiled
// modules, the kernel's shared memory and its number, and it then takes its share of each large
// product until the kernel stops it (src/core/wasm/matmulThreads.ts).
import { runMatmulHelper } from '../core/wasm';
import type { HelperModules } from '../core/wasm/matmulThreads';
import { wasmApi, type WasmMemory } from '../core/wasm/wasmApi';

interface WorkerScope {
  addEventListener(type: 'message', h: (e: { data: { modules: HelperModules; memory: WasmMemory; index: number } }) => void, opts?: { once: boolean }): void;
}
const scope = globalThis as unknown as WorkerScope;
scope.addEventListener('message', (e) => {
  const api = wasmApi();
  if (api) runMatmulHelper(api, e.data.modules, e.data.memory, e.data.index);
}, { once: true });
