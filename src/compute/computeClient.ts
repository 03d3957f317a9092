// The extension host's end of the compute worker: starts it when the first model document is
// opened (any JSON file activates the extension; a user who never opens a model pays for no
// worker), sends it messages, answers queries, and restarts it if it ever dies (then everything
// is sent to it again).
import * as vscode from 'vscode';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import type { FromWorker, Query, QueryResult, ToWorker } from '../protocol/worker';
import type { StartWorker, WorkerPort } from './workerPort';
import type { HostFiles } from './hostFiles';

export class ComputeClient extends Disposable {
  private worker: WorkerPort | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (r: QueryResult | null) => void>();
  /** Progress of long queries (patching), by query id. */
  private readonly progress = new Map<number, (done: number, total: number) => void>();
  private exits: number[] = [];
  /** Settings sent before the worker runs: given to it when it starts. */
  private config: ToWorker | null = null;

  private readonly _onMessage = this._register(new vscode.EventEmitter<FromWorker>());
  /** Each message of the worker's (a batch's one by one). */
  readonly onMessage = this._onMessage.event;
  /** A batch's messages begin (true) and end (false): what they make a panel post can go as one message. */
  private readonly _onBatch = this._register(new vscode.EventEmitter<boolean>());
  readonly onBatch = this._onBatch.event;
  /** Fired after a restart: documents must be opened again. */
  private readonly _onRestart = this._register(new vscode.EventEmitter<void>());
  readonly onRestart = this._onRestart.event;

  /** `files`: where the worker reads checkpoints through the host (the web worker host), else null. */
  constructor(private readonly startWorker: StartWorker, private readonly log: vscode.LogOutputChannel, private readonly files: HostFiles | null = null) {
    super();
  }

  /** The worker has been started (a model document was opened). */
  get started(): boolean {
    return this.worker !== null;
  }

  private start(): void {
    const w = this.startWorker();
    this.worker = w;
    const take = (msg: FromWorker): void => {
      if (msg.type === 'batch') {
        this._onBatch.fire(true);
        try {
          for (const m of msg.messages) take(m);
        } finally {
          this._onBatch.fire(false);
        }
      } else if (msg.type === 'fs') {
        // (a large file comes in parts: each goes to the worker that asked, while it lives)
        void this.files?.answer(msg, (reply, transfer) => {
          if (this.worker !== w) return false;
          w.postMessage(reply, transfer);
          return true;
        });
      } else if (msg.type === 'reply') {
        this.pending.get(msg.id)?.(msg.result);
        this.pending.delete(msg.id);
        this.progress.delete(msg.id);
      } else if (msg.type === 'progress') {
        this.progress.get(msg.id)?.(msg.done, msg.total);
      } else if (msg.type === 'log') {
        this.log.warn(msg.message);
      } else {
        this._onMessage.fire(msg);
      }
    };
    w.onMessage((msg: FromWorker) => timed(`worker message ${msg.type}`, () => take(msg)));
    w.onError((message) => this.log.error(`compute worker failed: ${message}`));
    if (this.config) w.postMessage(this.config);
    w.onExit((code) => {
      if (this.isDisposed || this.worker !== w) return;
      this.worker = null;
      for (const resolve of this.pending.values()) resolve(null);
      this.pending.clear();
      this.progress.clear();
      this.log.error(`compute worker exited (code ${code}); restarting`);
      // give up only on a worker that keeps dying: five exits within ten minutes
      const now = Date.now();
      this.exits = this.exits.filter((t) => now - t < 10 * 60 * 1000);
      this.exits.push(now);
      if (this.exits.length > 5) {
        void vscode.window.showErrorMessage('FFN Lens: the compute worker keeps stopping; see the "FFN Lens" output for details.');
        return;
      }
      setTimeout(() => {
        if (this.isDisposed) return;
        if (!this.worker) this.start(); // (a document opened meanwhile may have started it)
        this._onRestart.fire();
      }, 200);
    });
  }

  send(msg: ToWorker): void {
    if (msg.type === 'config') this.config = msg;
    if (!this.worker) {
      // only a document brings the worker up; anything else has nothing to act on yet
      if (msg.type !== 'open' && msg.type !== 'openFile' || this.isDisposed || this.exits.length > 5) return;
      this.start();
    }
    this.worker?.postMessage(msg);
  }

  /**
   * Asks the worker about a document. A long query (patching) reports `onProgress` and stops when
   * `token` is cancelled (its reply then says so).
   */
  query(doc: string, query: Query, timeoutMs = 3000, opts: { onProgress?: (done: number, total: number) => void; token?: vscode.CancellationToken } = {}): Promise<QueryResult | null> {
    if (!this.worker) return Promise.resolve(null); // (no document was ever sent: nothing to ask)
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.progress.delete(id);
        this.send({ type: 'cancel', id });
        resolve(null);
      }, timeoutMs);
      const cancel = opts.token?.onCancellationRequested(() => this.send({ type: 'cancel', id }));
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        cancel?.dispose();
        resolve(r);
      });
      if (opts.onProgress) this.progress.set(id, opts.onProgress);
      this.send({ type: 'query', id, doc, query });
    });
  }

  override dispose(): void {
    const w = this.worker;
    this.worker = null;
    super.dispose();
    w?.terminate();
  }
}
