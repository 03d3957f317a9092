// The compute worker in the web worker extension host (vscode.dev, github.dev, code-server's web
// host): a Web Worker running dist/web/worker.js. An extension's own URL cannot always start a
// worker ("Creating workers from remote extensions is currently not supported" in code-server), so
// the script is fetched and started from a Blob URL when the plain URL is refused.
import type { FromWorker } from '../protocol/worker';
import type { WorkerPort } from './workerPort';

// (the browser's Worker, Blob, URL and fetch, declared here: the extension's code is typed without
// the DOM library, which the Node host does not have)
interface WebWorker {
  onmessage: ((e: { data: FromWorker }) => void) | null;
  onerror: ((e: { message: string }) => void) | null;
  postMessage(msg: unknown, transfer: ArrayBuffer[]): void;
  terminate(): void;
}
interface Web {
  Worker: new (url: string) => WebWorker;
  Blob: new (parts: string[], opts: { type: string }) => object;
  URL: { createObjectURL(blob: object): string };
  fetch(url: string): Promise<{ ok: boolean; status: number; text(): Promise<string> }>;
}
const web = globalThis as unknown as Web;

export function webWorkerPort(scriptUrl: string): WorkerPort {
  let worker: WebWorker | null = null;
  const queue: Array<{ msg: unknown; transfer?: ArrayBuffer[] }> = [];
  const handlers: { message: Array<(m: FromWorker) => void>; error: Array<(s: string) => void>; exit: Array<(c: number) => void> } = { message: [], error: [], exit: [] };
  let stopped = false;
  const attach = (w: WebWorker): void => {
    worker = w;
    w.onmessage = (e) => handlers.message.forEach((h) => h(e.data));
    w.onerror = (e) => handlers.error.forEach((h) => h(e.message));
    for (const q of queue.splice(0)) w.postMessage(q.msg, q.transfer ?? []);
  };
  try {
    attach(new web.Worker(scriptUrl));
  } catch {
    void web.fetch(scriptUrl).then((r) => {
      if (!r.ok) throw new Error(`${scriptUrl}: ${r.status}`);
      return r.text();
    }).then((code) => {
      if (stopped) return;
      attach(new web.Worker(web.URL.createObjectURL(new web.Blob([code], { type: 'text/javascript' }))));
    }).catch((e: unknown) => {
      handlers.error.forEach((h) => h(`cannot start the compute worker: ${(e as Error).message}`));
      handlers.exit.forEach((h) => h(1));
    });
  }
  return {
    postMessage: (msg, transfer) => {
      if (worker) worker.postMessage(msg, transfer ?? []);
      else queue.push({ msg, transfer });
    },
    onMessage: (h) => void handlers.message.push(h),
    onError: (h) => void handlers.error.push(h),
    onExit: (h) => void handlers.exit.push(h),
    terminate: () => {
      stopped = true;
      worker?.terminate();
    },
  };
}
