// How the web compute worker starts the matmul kernel's helper threads (src/core/wasm/matmulThreads.ts):
// nested Web Workers made from a Blob of the helper's bundle (webMatmulHelperMain.ts, whose text
// esbuild puts into the compute worker's bundle: webMatmulHelperSource.ts), each sent the compiled
// modules and the kernel's shared memory. Only where the page is cross-origin isolated: elsewhere a
// WebAssembly memory cannot be shared between workers, and the kernel runs on one thread.

import type { SpawnMatmulHelper } from '../core/wasm';

interface WebWorker {
  onerror: ((e: { preventDefault?(): void }) => void) | null;
  postMessage(msg: unknown): void;
  terminate(): void;
}
interface Web {
  crossOriginIsolated?: boolean;
  Worker?: new (url: string, opts?: { name?: string }) => WebWorker;
  Blob: new (parts: string[], opts: { type: string }) => object;
  URL: { createObjectURL(blob: object): string };
}

/** Helper threads where this scope can share memory with nested workers, else null (one thread). */
export function webMatmulHelper(source: string): SpawnMatmulHelper | null {
  const web = globalThis as unknown as Web;
  if (web.crossOriginIsolated !== true || typeof web.Worker !== 'function' || source.length === 0) return null;
  let url: string | null = null;
  return (modules, memory, index) => {
    try {
      url ??= web.URL.createObjectURL(new web.Blob([source], { type: 'text/javascript' }));
      const w = new web.Worker!(url, { name: `ffn-lens-matmul-${index}` });
      w.onerror = (e) => e.preventDefault?.(); // (the kernel notices a helper that stops answering)
      w.postMessage({ modules, memory, index });
      return w;
    } catch {
      return null;
    }
  };
}

/** What the worker says once when it runs on one thread though more cores were asked for. */
export function webOneThreadNote(): string | undefined {
  const web = globalThis as unknown as Web;
  return web.crossOriginIsolated === true ? undefined
    : 'FFN Lens computes on one thread here: this page is not cross-origin isolated, so its compute worker cannot share memory with helper threads (ffnLens.threads applies where it is, and in desktop VS Code).';
}
