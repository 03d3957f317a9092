// Model files too large for VS Code to hand to extensions (over 50 MB, as a GPT-2-small block is):
// the worker reads them from disk, and again each time they change on disk (on save), once the
// write is complete (settle.ts): a save of 83 MB takes a while, and a half-written file is never read.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { PanelSource } from './panelSource';
import { Disposable } from '../host/dispose';
import { Settle } from './settle';

/** VS Code does not synchronize documents above this size with extensions. */
export const EXTENSION_FILE_LIMIT = 50 * 1024 * 1024;

export const LARGE_FILE_NOTICE = 'This file is over 50 MB, and VS Code does not hand files that large to extensions. FFN Lens reads it from disk instead: the panel updates when you save, not as you type, and hovers and lenses are not available for it.';

class DiskSource implements PanelSource {
  version = 1;
  readonly document = null;
  settle: Settle | null = null;
  constructor(readonly uri: vscode.Uri, readonly watcher: vscode.Disposable) {}
  /** Its own key in the worker: an editor may have the same file open as a document too. */
  get key(): string {
    return `disk:${this.uri.toString()}`;
  }
}

/** Watches one file, wherever it is (a '**' glob only covers the workspace folders). */
export function watchFile(uri: vscode.Uri, onChange: () => void): vscode.Disposable {
  const dir = vscode.Uri.joinPath(uri, '..');
  const name = uri.path.split('/').pop() ?? '';
  // a save in place is a change; `sed -i`, editors that write a temporary file and rename it, and
  // a fresh `git checkout` are a create (after a delete): each means new contents
  const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(dir, name), false, false, true);
  const subs = [w.onDidChange(onChange), w.onDidCreate(onChange)];
  return { dispose: () => { subs.forEach((s) => s.dispose()); w.dispose(); } };
}

export class DiskModels extends Disposable {
  private readonly files = new Map<string, DiskSource>();
  private readonly told = new Set<string>();
  private readonly _onDidClose = this._register(new vscode.EventEmitter<vscode.Uri>());
  /** No panel shows the file any more. */
  readonly onDidClose = this._onDidClose.event;

  constructor(private readonly client: ComputeClient) {
    super();
    this._register({ dispose: () => this.files.forEach((f) => { f.watcher.dispose(); f.settle?.dispose(); }) });
    this._register(client.onRestart(() => {
      for (const f of this.files.values()) this.client.send({ type: 'openFile', doc: f.key, path: f.uri.fsPath, version: f.version });
    }));
  }

  get(key: string): PanelSource | undefined {
    return this.files.get(key);
  }

  /** `notice`: say once that the file is too large for VS Code (not for a file whose editor closed). */
  open(uri: vscode.Uri, notice = true): PanelSource {
    const key = `disk:${uri.toString()}`;
    let f = this.files.get(key);
    if (!f) {
      const settle = new Settle(async () => {
        try {
          const st = await vscode.workspace.fs.stat(uri);
          return { size: st.size, mtime: st.mtime };
        } catch {
          return null;
        }
      }, () => this.reload(key));
      f = new DiskSource(uri, watchFile(uri, () => settle.changed()));
      f.settle = settle;
      this.files.set(key, f);
      this.client.send({ type: 'openFile', doc: key, path: uri.fsPath, version: f.version });
    }
    if (notice && !this.told.has(key)) {
      this.told.add(key); // said once, plainly
      void vscode.window.showInformationMessage(`FFN Lens: ${LARGE_FILE_NOTICE}`);
    }
    return f;
  }

  close(key: string): void {
    const f = this.files.get(key);
    if (!f) return;
    this.files.delete(key);
    f.watcher.dispose();
    f.settle?.dispose();
    this.client.send({ type: 'close', doc: key });
    this._onDidClose.fire(f.uri);
  }

  private reload(key: string): void {
    const f = this.files.get(key);
    if (!f) return;
    f.version++;
    this.client.send({ type: 'reloadFile', doc: f.key, version: f.version });
  }
}

/** The file of the active editor tab, even when VS Code gives extensions no document for it. */
export function activeTabUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri : undefined;
}

export async function fileSize(uri: vscode.Uri): Promise<number> {
  try {
    return (await vscode.workspace.fs.stat(uri)).size;
  } catch {
    return 0;
  }
}
