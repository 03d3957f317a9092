// How Node starts the matmul kernel's helper threads (src/core/wasm/matmulThreads.ts): each a
// worker_threads worker running `script` (dist/matmulHelper.js), which never keeps the process alive.
import { Worker } from 'node:worker_threads';
import type { SpawnMatmulHelper } from '../core/wasm';

export function nodeMatmulHelper(script: string): SpawnMatmulHelper {
  return (modules, memory, index) => {
    try {
      const w = new Worker(script, { workerData: { modules, memory, index }, name: `ffn-lens-matmul-${index}` });
      w.unref();
      w.on('error', () => undefined); // (the kernel notices a helper that stops answering)
      return w;
    } catch {
      return null;
    }
  };
}
