// The tokenizer thread in the web worker extension host: a Web Worker the compute worker starts
// (webTokenizerThread.ts) from this bundle's text (dist/web/tokenizerWorker.js, built into the
// compute worker's bundle); its body is tokenizerThread.ts.
import type { FromTokenizerThread, ToTokenizerThread } from './threadProtocol';
import { serveTokenizers } from './tokenizerThread';

interface WorkerScope {
  postMessage(msg: FromTokenizerThread, transfer: ArrayBuffer[]): void;
  addEventListener(type: 'message', h: (e: { data: ToTokenizerThread }) => void): void;
}
const scope = globalThis as unknown as WorkerScope;
serveTokenizers((msg, transfer) => scope.postMessage(msg, transfer ?? []), (h) => scope.addEventListener('message', (e) => h(e.data)));
