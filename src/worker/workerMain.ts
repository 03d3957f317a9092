// The compute worker's body, the same on both hosts: it reads model files and runs the forward
// pass, so the extension host's thread (the editor's) never waits on either. One DocSession per
// document. Its entries give it the platform: computeWorker.ts (a worker_threads worker, Node's
// files) and webWorker.ts (a Web Worker, files through the extension host's workspace.fs).
import { batchedPost } from './postBatch';
import type { FromWorker, QueryResult, ToWorker } from '../protocol/worker';
import { defaultKernel, type MatmulKernel } from '../core/kernel';
import { vectorExp } from '../core/expf';
import { threadCount, type SpawnMatmulHelper, type WasmMatmulKernel } from '../core/wasm';
import { DocSession } from './session';
import { CheckpointStore } from '../checkpoint/store';
import type { CheckpointFiles } from '../checkpoint/files';
import type { SpawnTokenizerThread } from '../tokenizer/threadProtocol';
import { TokenizerRunner } from '../tokenizer/tokenizerRunner';
import { errorDetail } from '../common/faultText';
import { named } from '../checkpoint/errors';

/** What the worker's body needs from where it runs. */
export interface WorkerPlatform {
  post(msg: FromWorker, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: ToWorker) => void): void;
  /** Checkpoint files. */
  readonly files: CheckpointFiles;
  /** A model file too large for VS Code's documents, whole, as bytes (a path as `openFile` names it). */
  readFile(path: string): Promise<Uint8Array>;
  /** Helper threads for the matmul kernel's large products, where the platform has them. */
  readonly spawnMatmulHelper?: SpawnMatmulHelper;
  /** The machine's cores: how many threads `ffnLens.threads` = 0 means. */
  readonly cores?: number;
  /** Said once (a log line) when the kernel runs on one thread though more were asked for, and why (the web without cross-origin isolation). */
  readonly oneThreadNote?: string;
  /** A thread for tokenizers (their own patterns may backtrack for minutes: stopped there after a budget), where the platform has one. */
  readonly spawnTokenizerThread?: SpawnTokenizerThread | null;
}

export function runWorker(platform: WorkerPlatform): void {
  const worker = new WorkerBody(platform);
  platform.onMessage((msg: ToWorker) => {
    try {
      worker.handle(msg);
    } catch (e) {
      platform.post({ type: 'log', message: `worker: ${(e as Error)?.stack ?? String(e)}` });
    }
  });
}

/** The worker's documents (a DocSession each), its kernel, its checkpoints, and what it does with each message. */
class WorkerBody {
  private readonly sessions = new Map<string, DocSession>();
  /** The version of the last file read asked for, per document read from disk. */
  private readonly asked = new Map<string, number>();
  /** Documents read from disk: where. */
  private readonly paths = new Map<string, string>();
  private debounceMs = 150;
  /** ffnLens.threads (0: every core). */
  private threadsSetting = 0;
  private kernel: MatmulKernel | null = null;
  /** Checkpoints, loaded once for every document that names them, their weights in the kernel's memory (held once). */
  private readonly store: CheckpointStore;
  /** What a task posts leaves as one message when it ends (postBatch.ts). */
  private readonly post = batchedPost((msg: FromWorker, transfer?: ArrayBuffer[]): void => this.platform.post(msg, transfer));
  private readonly getKernel = (): MatmulKernel => {
    if (this.kernel === null) {
      const threads = threadCount(this.threadsSetting, this.platform.cores ?? 1);
      this.kernel = defaultKernel(threads > 1 ? this.platform.spawnMatmulHelper : undefined, threads);
      if (threads > 1 && this.platform.oneThreadNote && !this.platform.spawnMatmulHelper) this.platform.post({ type: 'log', message: this.platform.oneThreadNote });
      vectorExp(); // (the vector ops' module compiled and warmed with the kernel: in a first forward it took 19-20 ms of GPT-2's first LayerNorm)
    }
    return this.kernel;
  };

  constructor(private readonly platform: WorkerPlatform) {
    this.store = new CheckpointStore(platform.files, undefined, {
      weightArray: (n, zeroed, room) => this.getKernel().weightArray(n, zeroed, room),
      halfArray: (n, room) => this.getKernel().halfArray(n, room),
      intoPanels: (w, K, N, layout) => this.getKernel().intoPanels(w, K, N, layout),
      weightLimits: () => this.getKernel().weightLimits?.(),
      kernel: () => this.getKernel(),
    }, new TokenizerRunner(platform.spawnTokenizerThread ?? null));
    // (a large checkpoint's read: the host's progress bar and Cancel)
    this.store.onRead = (r) => this.post({ type: 'checkpointRead', ...r });
  }

  private session(doc: string, fileName: string, text: string | Uint8Array, version: number, sniffed: boolean | undefined): DocSession {
    this.sessions.get(doc)?.dispose();
    const s = new DocSession(doc, fileName, text, version, this.post, this.getKernel, () => this.debounceMs, sniffed, this.store);
    this.sessions.set(doc, s);
    return s;
  }

  // A changed setting applies to the next product (helpers are started if more are asked for).
  private setThreads(setting: number): void {
    this.threadsSetting = setting;
    const k = this.kernel as Partial<WasmMatmulKernel> | null;
    k?.setThreads?.(threadCount(setting, this.platform.cores ?? 1));
  }

  handle(msg: ToWorker): void {
    const s = 'doc' in msg ? this.sessions.get(msg.doc) : undefined;
    switch (msg.type) {
      case 'open':
        this.session(msg.doc, msg.fileName, msg.text, msg.version, msg.sniffed);
        return;
      case 'openFile':
      case 'reloadFile':
        return this.readFile(msg);
      case 'change':
        s?.change(msg.version, msg.changes, msg.length, msg.at);
        return;
      case 'close':
        s?.dispose();
        this.sessions.delete(msg.doc);
        this.paths.delete(msg.doc);
        this.asked.delete(msg.doc);
        return;
      case 'subscribe':
        s?.subscribe(msg.on);
        return;
      case 'want':
        s?.want(msg.ids, msg.cols);
        return;
      case 'drawn':
        s?.drawn(msg.version);
        return;
      case 'config':
        this.debounceMs = msg.debounceMs;
        this.setThreads(msg.threads ?? 0);
        // Workspace Trust granted (or the workspace's folders changed): what names a checkpoint reads again
        if (this.store.restrictTo(msg.restrictedTo ?? null)) for (const x of this.sessions.values()) x.reread();
        return;
      case 'compare':
        s?.setCompare(msg.baseline);
        return;
      case 'cancel':
        for (const x of this.sessions.values()) x.stopJob('Patching was cancelled before its end. Run it again with the buttons above.', msg.id);
        return;
      case 'cancelRead':
        this.store.cancelRead(msg.folder);
        return;
      case 'retryReads':
        if (this.store.retryCancelled()) for (const x of this.sessions.values()) x.reread();
        return;
      case 'generate':
        s?.generate(msg.on);
        return;
      case 'showGenerated':
        s?.showGenerated(msg.version, msg.on);
        return;
      case 'query':
        return this.query(msg, s);
    }
  }

  private query(msg: Extract<ToWorker, { type: 'query' }>, s: DocSession | undefined): void {
    const reply = (result: QueryResult | null): void => this.post({ type: 'reply', id: msg.id, result });
    if (msg.query.kind === 'speed') {
      const r = measureSpeed(this.getKernel());
      return reply(r.kind === 'speed' && r.threads === 1 && !this.platform.spawnMatmulHelper && this.platform.oneThreadNote ? { ...r, note: this.platform.oneThreadNote } : r);
    }
    if (s && msg.query.kind === 'lens' && msg.query.request.kind === 'patch') {
      // a job: its reply comes when it ends (progress meanwhile)
      try {
        s.patch(msg.id, msg.query.request, reply);
      } catch (e) {
        reply(null);
        throw e;
      }
      return;
    }
    let result = null;
    try {
      result = s ? s.query(msg.query) : null;
    } finally {
      reply(result); // an answer always, so the host never waits out its timeout
    }
  }

  private readFile(msg: Extract<ToWorker, { type: 'openFile' | 'reloadFile' }>): void {
    const path = msg.type === 'openFile' ? msg.path : this.paths.get(msg.doc);
    if (!path) return;
    this.paths.set(msg.doc, path);
    // As bytes: a file too large for VS Code is too large to copy into a JS string for nothing.
    // (read asynchronously: a read overtaken by a newer one of the same document is dropped)
    this.asked.set(msg.doc, msg.version);
    void this.platform.readFile(path).then((text) => this.opened(msg, path, text), (e: unknown) => {
      const code = (e as { code?: string }).code;
      this.post({ type: 'fileError', doc: msg.doc, message: `cannot read ${named(path)}: ${code === 'ENOENT' || code === 'FileNotFound' ? 'no such file' : errorDetail(e)}` });
    });
  }

  private opened(msg: Extract<ToWorker, { type: 'openFile' | 'reloadFile' }>, path: string, text: Uint8Array): void {
    if (this.asked.get(msg.doc) !== msg.version) return;
    const s = this.sessions.get(msg.doc);
    // A document VS Code has open: its text as VS Code decodes it (UTF-8, without a BOM).
    const content = msg.type === 'openFile' && msg.asDocument ? new TextDecoder('utf-8').decode(text) : text;
    if (s && msg.type === 'reloadFile') s.replace(msg.version, content);
    else this.session(msg.doc, path, content, msg.version, msg.type === 'openFile' && msg.sniffed);
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
