// A large checkpoint being read, in VS Code: a notification with its percent (bytes of its tensors
// read / to read, as the compute worker tells them: src/checkpoint/readProgress.ts) and a Cancel
// button, which tells the worker to stop between two parts of a tensor. One notification per
// checkpoint, however many files name it. A cancelled read is no error: the panels and the
// `checkpoint` key say it, and "FFN Lens: Read Cancelled Checkpoints Again" (or an edit) reads it.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { CheckpointRead } from '../protocol/worker';
import { Disposable } from '../host/dispose';

export const RETRY_READS_COMMAND = 'ffnLens.retryCheckpointReads';

interface Shown {
  report(done: number, total: number): void;
  end(): void;
  /** Cancel was pressed (a read that then ends 'read' had read its last part before it came). */
  readonly cancelAsked: boolean;
}

export class CheckpointProgress extends Disposable {
  private readonly shown = new Map<string, Shown>();

  /** `notify`: show the notification (the web worker host shows its own for the file it streams: src/compute/hostFiles.ts). */
  constructor(private readonly client: ComputeClient, private readonly notify: boolean) {
    super();
    this._register(client.onMessage((m) => {
      if (m.type === 'checkpointRead') this.read(m);
    }));
    // (a worker that restarted reads nothing of before: its notifications end, never left open)
    this._register(client.onRestart(() => this.endAll()));
    this._register(vscode.commands.registerCommand(RETRY_READS_COMMAND, () => client.send({ type: 'retryReads' })));
  }

  private read(r: CheckpointRead): void {
    const open = this.shown.get(r.folder);
    if (r.state !== 'reading') {
      open?.end();
      this.shown.delete(r.folder);
      // (Cancel came after the last part was read: the model computes, and that is said)
      if (open?.cancelAsked && r.state === 'read') void vscode.window.setStatusBarMessage(`FFN Lens: ${nameOf(r.folder)} was read whole before Cancel reached it: nothing was cancelled`, 10_000);
      return;
    }
    if (open) return open.report(r.done, r.total);
    if (!this.notify || r.done >= r.total) return;
    const shown = this.show(r.folder, r.total);
    this.shown.set(r.folder, shown);
    shown.report(r.done, r.total);
  }

  // The notification, open until end(): its bar moves by whole percents.
  private show(folder: string, total: number): Shown {
    const name = nameOf(folder);
    let progress: vscode.Progress<{ message?: string; increment?: number }> | null = null;
    let pending: { done: number; total: number } | null = null;
    let end: () => void = () => undefined;
    let ended = false;
    let pct = 0;
    const report = (done: number, of: number): void => {
      if (!progress) return void (pending = { done, total: of });
      const now = Math.floor((100 * done) / of);
      progress.report({ increment: Math.max(0, now - pct), message: `${now} %` });
      pct = Math.max(pct, now);
    };
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `FFN Lens: reading the checkpoint ${name} (${sizeText(total)})`, cancellable: true },
      (p, token) => new Promise<void>((resolve) => {
        progress = p;
        end = resolve;
        if (ended) return resolve();
        const cancel = token.onCancellationRequested(() => {
          cancel.dispose();
          shown.cancelAsked = true;
          p.report({ message: 'cancelling…' });
          this.client.send({ type: 'cancelRead', folder });
        });
        if (pending) report(pending.done, pending.total);
      }),
    );
    const shown = {
      report,
      end: () => {
        ended = true;
        end();
      },
      cancelAsked: false,
    };
    return shown;
  }

  private endAll(): void {
    for (const s of this.shown.values()) s.end();
    this.shown.clear();
  }

  override dispose(): void {
    this.endAll();
    super.dispose();
  }
}

function nameOf(folder: string): string {
  return folder.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? folder;
}

function sizeText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}
