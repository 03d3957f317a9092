// The compute worker's body, the same on both hosts: it reads model files and runs the forward
// pass, so the extension host's thread (the editor's) never waits on either. One DocSession per
// document. Its entries give it the platform: computeWorker.ts (a worker_threads worker, Node's
// files) and webWorker.ts (a Web Worker, files through the extension host's workspace.fs).
import type { FromWorker, QueryResult, ToWorker } from '../protocol/worker';
import { defaultKernel, type MatmulKernel } from '../core/kernel';
import { vectorExp } from '../core/expf';
import type { SpawnMatmulHelper } from '../core/wasm';
import { DocSession } from './session';
import { CheckpointStore } from '../checkpoint/store';
import type { CheckpointFiles } from '../checkpoint/files';
import type { SpawnTokenizerThread } from '../tokenizer/threadProtocol';
import { TokenizerRunner } from '../tokenizer/tokenizerRunner';

/** What the worker's body needs from where it runs. */
export interface WorkerPlatform {
  post(msg: FromWorker, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: ToWorker) => void): void;
  /** Checkpoint files. */
  readonly files: CheckpointFiles;
  /** A model file too large for VS Code's documents, whole, as bytes (a path as `openFile` names it). */
  readFile(path: string): Promise<Uint8Array>;
  /** A second thread for the matmul kernel's large products, where the platform has one. */
  readonly spawnMatmulHelper?: SpawnMatmulHelper;
  /** A thread for tokenizers (their own patterns may backtrack for minutes: stopped there after a budget), where the platform has one. */
  readonly spawnTokenizerThread?: SpawnTokenizerThread | null;
}

export function runWorker(platform: WorkerPlatform): void {
const sessions = new Map<string, DocSession>();
/** The version of the last file read asked for, per document read from disk. */
const asked = new Map<string, number>();
/** Documents read from disk: where. */
const paths = new Map<string, string>();
let debounceMs = 150;
let kernel: MatmulKernel | null = null;
const getKernel = (): MatmulKernel => {
  if (kernel === null) {
    kernel = defaultKernel(platform.spawnMatmulHelper);
    vectorExp(); // (the vector ops' module compiled and warmed with the kernel: in a first forward it took 19-20 ms of GPT-2's first LayerNorm)
  }
  return kernel;
};
/** Checkpoints, loaded once for every document that names them, their weights in the kernel's memory (held once). */
const store = new CheckpointStore(platform.files, undefined, {
  weightArray: (n, zeroed, room) => getKernel().weightArray(n, zeroed, room),
  intoPanels: (w, K, N, layout) => getKernel().intoPanels(w, K, N, layout),
}, new TokenizerRunner(platform.spawnTokenizerThread ?? null));
const post = (msg: FromWorker, transfer?: ArrayBuffer[]): void => platform.post(msg, transfer);

platform.onMessage((msg: ToWorker) => {
  try {
    handle(msg);
  } catch (e) {
    post({ type: 'log', message: `worker: ${(e as Error)?.stack ?? String(e)}` });
  }
});

function handle(msg: ToWorker): void {
  switch (msg.type) {
    case 'open': {
      sessions.get(msg.doc)?.dispose();
      sessions.set(msg.doc, new DocSession(msg.doc, msg.fileName, msg.text, msg.version, post, getKernel, () => debounceMs, msg.sniffed, store));
      return;
    }
    case 'openFile':
    case 'reloadFile': {
      const path = msg.type === 'openFile' ? msg.path : paths.get(msg.doc);
      if (!path) return;
      paths.set(msg.doc, path);
      // As bytes: a file too large for VS Code is too large to copy into a JS string for nothing.
      // (read asynchronously: a read overtaken by a newer one of the same document is dropped)
      asked.set(msg.doc, msg.version);
      void platform.readFile(path).then((text) => opened(msg, path, text), (e: unknown) => {
        const code = (e as { code?: string }).code;
        post({ type: 'fileError', doc: msg.doc, message: `cannot read ${path}: ${code === 'ENOENT' || code === 'FileNotFound' ? 'no such file' : (e as Error).message}` });
      });
      return;
    }

    case 'change':
      sessions.get(msg.doc)?.change(msg.version, msg.changes, msg.length, msg.at);
      return;
    case 'close':
      sessions.get(msg.doc)?.dispose();
      sessions.delete(msg.doc);
      paths.delete(msg.doc);
      asked.delete(msg.doc);
      return;
    case 'subscribe':
      sessions.get(msg.doc)?.subscribe(msg.on);
      return;
    case 'want':
      sessions.get(msg.doc)?.want(msg.ids, msg.cols);
      return;
    case 'config':
      debounceMs = msg.debounceMs;
      // Workspace Trust granted (or the workspace's folders changed): what names a checkpoint reads again
      if (store.restrictTo(msg.restrictedTo ?? null)) for (const s of sessions.values()) s.reread();
      return;
    case 'compare':
      sessions.get(msg.doc)?.setCompare(msg.baseline);
      return;
    case 'cancel':
      for (const s of sessions.values()) s.stopJob('cancelled', msg.id);
      return;
    case 'query': {
      if (msg.query.kind === 'speed') {
        post({ type: 'reply', id: msg.id, result: measureSpeed(getKernel()) });
        return;
      }
      const s = sessions.get(msg.doc);
      if (s && msg.query.kind === 'lens' && msg.query.request.kind === 'patch') {
        // a job: its reply comes when it ends (progress meanwhile)
        try {
          s.patch(msg.id, msg.query.request, (result) => post({ type: 'reply', id: msg.id, result }));
        } catch (e) {
          post({ type: 'reply', id: msg.id, result: null });
          throw e;
        }
        return;
      }
      let result = null;
      try {
        result = s ? s.query(msg.query) : null;
      } finally {
        post({ type: 'reply', id: msg.id, result }); // an answer always, so the host never waits out its timeout
      }
      return;
    }
  }
}

function opened(msg: Extract<ToWorker, { type: 'openFile' | 'reloadFile' }>, path: string, text: Uint8Array): void {
  if (asked.get(msg.doc) !== msg.version) return;
  const s = sessions.get(msg.doc);
  // A document VS Code has open: its text as VS Code decodes it (UTF-8, without a BOM).
  const content = msg.type === 'openFile' && msg.asDocument ? new TextDecoder('utf-8').decode(text) : text;
  if (s && msg.type === 'reloadFile') s.replace(msg.version, content);
  else {
    s?.dispose();
    sessions.set(msg.doc, new DocSession(msg.doc, path, content, msg.version, post, getKernel, () => debounceMs, msg.type === 'openFile' && msg.sniffed, store));
  }
}
}

// GFLOPS of this worker's kernel on an FFN shape of GPT-2-small (32 tokens, 768 → 3072): the
// median of 9 runs after 3 to warm up, the weights packed once as between two edits.
function measureSpeed(kernel: MatmulKernel): QueryResult {
  const [M, K, N] = [32, 768, 3072] as const;
  const a = new Float32Array(M * K).map((_, i) => Math.sin(i) * 0.5);
  const b = new Float32Array(K * N).map((_, i) => Math.cos(i) * 0.02);
  const out = new Float32Array(M * N);
  const packed = kernel.pack(b, K, N, 'kn');
  try {
    const ms: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      kernel.matmul(out, a, M, packed);
      if (i >= 3) ms.push(performance.now() - t0);
    }
    ms.sort((x, y) => x - y);
    const median = ms[Math.floor(ms.length / 2)];
    return { kind: 'speed', version: 0, kernel: kernel.name, fused: kernel.fused, threads: kernel.threads, gflops: Math.round((2 * M * K * N) / (median * 1e6) * 10) / 10, shape: [M, K, N] };
  } finally {
    kernel.release(packed);
  }
}
