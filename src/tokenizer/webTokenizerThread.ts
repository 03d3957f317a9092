// How the compute worker starts its tokenizer thread in the web worker extension host: a nested
// Web Worker made from a Blob of the thread's bundle, whose text esbuild puts into the compute
// worker's bundle (an extension's own URL cannot always start a worker there; a Blob URL can).
// Where this fails, the runner tokenizes in the compute worker (tokenizerRunner.ts).
import type { FromTokenizerThread, SpawnTokenizerThread, TokenizerThread } from './threadProtocol';

interface WebWorker {
  onmessage: ((e: { data: FromTokenizerThread }) => void) | null;
  onerror: ((e: { message?: string; preventDefault?(): void }) => void) | null;
  postMessage(msg: unknown): void;
  terminate(): void;
}
interface Web {
  Worker?: new (url: string, opts?: { name?: string }) => WebWorker;
  Blob: new (parts: string[], opts: { type: string }) => object;
  URL: { createObjectURL(blob: object): string };
}

/** `source`: the thread's bundled script; null when the platform has no nested workers. */
export function webTokenizerThread(source: string): SpawnTokenizerThread | null {
  const web = globalThis as unknown as Web;
  if (typeof web.Worker !== 'function' || source.length === 0) return null;
  let url: string | null = null;
  return () => {
    url ??= web.URL.createObjectURL(new web.Blob([source], { type: 'text/javascript' }));
    const w = new web.Worker!(url, { name: 'ffn-lens-tokenizer' });
    const messages: Array<(m: FromTokenizerThread) => void> = [];
    const errors: Array<(s: string) => void> = [];
    w.onmessage = (e) => messages.forEach((h) => h(e.data));
    w.onerror = (e) => {
      e.preventDefault?.();
      errors.forEach((h) => h(e.message ?? 'the worker failed'));
    };
    const thread: TokenizerThread = {
      post: (msg) => w.postMessage(msg),
      onMessage: (h) => void messages.push(h),
      onError: (h) => void errors.push(h),
      terminate: () => w.terminate(),
    };
    return thread;
  };
}
