// The compute worker in the web worker extension host: a Web Worker (dist/web/worker.js, one
// bundled file). Files come through the extension host (hostFilesClient.ts). Its body is
// workerMain.ts, shared with the Node worker (computeWorker.ts).
import type { FromWorker, ToWorker } from '../protocol/worker';
import { hostFilesClient, KEEP_MS } from './hostFilesClient';
import { memoryProbe } from '../checkpoint/memoryFit';
import { runWorker } from './workerMain';
import { webTokenizerThread } from '../tokenizer/webTokenizerThread';
import { TOKENIZER_THREAD_SOURCE } from '../tokenizer/webTokenizerSource';
import { webMatmulHelper, webOneThreadNote } from './webMatmulHelper';
import { MATMUL_HELPER_SOURCE } from './webMatmulHelperSource';

interface WorkerScope {
  postMessage(msg: unknown, transfer: ArrayBuffer[]): void;
  addEventListener(type: 'message', h: (e: { data: ToWorker }) => void): void;
}
const scope = globalThis as unknown as WorkerScope;
const post = (msg: FromWorker, transfer?: ArrayBuffer[]): void => scope.postMessage(msg, transfer ?? []);
// (a file is read whole here, its weights taken beside it: one larger than half the memory this browser gives is refused before it comes)
const host = hostFilesClient(post, KEEP_MS, () => {
  const p = memoryProbe();
  return { bytes: p.free() / 2, what: p.what };
});
let handler: ((m: ToWorker) => void) | null = null;
scope.addEventListener('message', (e) => {
  if (e.data.type === 'fsReply' || e.data.type === 'fsData') host.reply(e.data);
  else handler?.(e.data);
});

runWorker({
  post,
  onMessage: (h) => {
    handler = h;
  },
  files: host.files,
  readFile: (path) => host.readWhole(path),
  spawnTokenizerThread: webTokenizerThread(TOKENIZER_THREAD_SOURCE),
  // every core where the page is cross-origin isolated (ffnLens.threads caps it), else one and a note
  spawnMatmulHelper: webMatmulHelper(MATMUL_HELPER_SOURCE) ?? undefined,
  cores: (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1,
  oneThreadNote: webOneThreadNote(),
});
