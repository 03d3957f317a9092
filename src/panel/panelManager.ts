// All panels: one per document, opened beside the editor, restored after a window reload
// (WebviewPanelSerializer), and, when ffnLens.followActiveEditor is on, the most recently used
// panel follows the active editor to another model file that has no panel of its own.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { ReadProgress } from '../compute/hostFiles';
import { readSettings } from '../host/config';
import { DiskModels, EXTENSION_FILE_LIMIT, fileSize, LARGE_FILE_NOTICE } from '../editor/diskModels';
import type { ModelDocuments } from '../editor/modelDocuments';
import { Disposable } from '../host/dispose';
import { unitActions } from '../editor/unitActions';
import { Panel, PANEL_VIEW_TYPE } from './panel';
import { documentSource, rangeOf, type PanelSource } from '../editor/panelSource';
import { restoreCandidates } from './restoreUri';

interface SavedState {
  readonly uri?: string;
}

export class PanelManager extends Disposable implements vscode.WebviewPanelSerializer<SavedState> {
  private readonly panels = new Set<Panel>();
  private lastActive: Panel | undefined;
  private readonly _onDidReveal = this._register(new vscode.EventEmitter<vscode.Uri>());
  /** A panel moved the editor's selection (a click on a cell). */
  readonly onDidReveal = this._onDidReveal.event;

  constructor(
    private readonly client: ComputeClient,
    private readonly docs: ModelDocuments,
    private readonly disk: DiskModels,
    private readonly extensionUri: vscode.Uri,
  ) {
    super();
    this._register(vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, this));
    this._register(client.onMessage((m) => {
      if (m.type === 'checkpointRead') for (const p of this.panels) p.checkpointRead(m);
      if (!('doc' in m)) return;
      for (const p of this.panels) {
        if (p.source.key !== m.doc) continue;
        if (m.type === 'fileError') p.showNotice(`FFN Lens ${m.message}`);
        else p.fromWorker(m);
      }
    }));
    this._register(client.onBatch((begins) => {
      for (const p of this.panels) p.batch(begins);
    }));
    this._register(client.onRestart(() => {
      for (const p of this.panels) p.resubscribe();
    }));
    this._register(vscode.window.onDidChangeActiveTextEditor((e) => this.activeEditorChanged(e)));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ffnLens')) for (const p of this.panels) p.updateSettings();
    }));
    // A document closed and opened again is a new TextDocument (its versions start again):
    // the panel keeps its last render meanwhile, then follows the new one.
    // The document is open (again): a panel of its file follows it, from the document's text.
    this._register(docs.onDidChange((doc) => {
      for (const p of this.panels) {
        if (p.uri.toString() !== doc.uri.toString() || p.document === doc) continue;
        const left = p.source;
        p.rebind(documentSource(doc));
        this.release(left);
      }
    }));
    // Its editor closed: the panel stays and follows the file on disk (read by the worker, again
    // on every change there), so clicks and changes still work until the document is back.
    this._register(docs.onDidClose((uri) => {
      if (uri.scheme !== 'file') return;
      for (const p of this.panels) if (p.document && p.uri.toString() === uri.toString()) p.rebind(this.disk.open(uri, false));
    }));
  }

  /** A large read of the host's went on (the web worker host): the panels waiting for it say how far. */
  readProgress(p: ReadProgress): void {
    for (const panel of this.panels) panel.readProgress(p);
  }

  all(): Panel[] {
    return [...this.panels];
  }

  find(uri: vscode.Uri): Panel | undefined {
    const key = uri.toString();
    return [...this.panels].find((p) => p.uri.toString() === key);
  }

  /** Shows the panel of a document beside it: creates it, or reveals the one there is. */
  show(doc: vscode.TextDocument, column?: vscode.ViewColumn): Panel {
    this.docs.track(doc);
    return this.showSource(documentSource(doc), column);
  }

  /** A file too large for VS Code to hand over: the panel reads it from disk. */
  showFile(uri: vscode.Uri, column?: vscode.ViewColumn): Panel {
    const p = this.showSource(this.disk.open(uri), column);
    p.showNotice(LARGE_FILE_NOTICE);
    return p;
  }

  private showSource(src: PanelSource, column?: vscode.ViewColumn): Panel {
    const existing = this.find(src.uri);
    if (existing) {
      existing.panel.reveal(existing.panel.viewColumn, true);
      this.lastActive = existing;
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'FFN Lens', { viewColumn: column ?? vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      enableFindWidget: true,
    });
    return this.attach(panel, src);
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: SavedState | undefined): Promise<void> {
    try {
      if (!state?.uri) throw new Error('no document recorded');
      const uri = await this.findSaved(vscode.Uri.parse(state.uri));
      if ((await fileSize(uri)) > EXTENSION_FILE_LIMIT) {
        const p = this.attach(panel, this.disk.open(uri));
        p.showNotice(LARGE_FILE_NOTICE);
        return;
      }
      const doc = await vscode.workspace.openTextDocument(uri);
      this.docs.track(doc);
      this.attach(panel, documentSource(doc));
    } catch {
      // (no script, no style: the strictest policy there is)
      panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none';"></head><body><p>FFN Lens could not restore this panel: its model file is gone. Close it and run "FFN Lens: Visualize FFN" again.</p></body></html>`;
    }
  }

  /** The saved file as this host names it (it may have been saved by the other host): the first of the candidates there is. */
  private async findSaved(saved: vscode.Uri): Promise<vscode.Uri> {
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri);
    for (const c of restoreCandidates(saved, folders)) {
      const uri = c === saved ? saved : saved.with({ scheme: c.scheme, authority: c.authority, path: c.path });
      try {
        if ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.File) return uri;
      } catch {
        // (not there, or no file system for that scheme here: the next)
      }
    }
    return saved;
  }

  private attach(panel: vscode.WebviewPanel, src: PanelSource): Panel {
    const p = new Panel(panel, src, this.client, this.extensionUri, (pv, id, index) => void this.reveal(pv, id, index));
    this.panels.add(p);
    this.lastActive = p;
    p.onDidActivate(() => {
      this.lastActive = p;
    });
    p.onDidDispose(() => {
      this.panels.delete(p);
      if (this.lastActive === p) this.lastActive = undefined;
      this.release(p.source);
    });
    return p;
  }

  /** A file read from disk that no panel shows any more: the worker lets it go. */
  private release(src: PanelSource): void {
    if (!src.document && ![...this.panels].some((q) => q.source.key === src.key)) this.disk.close(src.key);
  }

  private activeEditorChanged(e: vscode.TextEditor | undefined): void {
    if (!e || !readSettings().followActiveEditor) return;
    const doc = e.document;
    if (!this.docs.isTracked(doc.uri) || this.find(doc.uri)) return;
    const p = this.lastActive;
    if (!p || !p.panel.visible) return;
    const left = p.retarget(documentSource(doc));
    if (left) this.release(left);
  }

  /** A heatmap cell was clicked: select the numbers it comes from in the editor. */
  private async reveal(p: Panel, stageId: string, index: readonly number[]): Promise<void> {
    const src = p.source;
    // a checkpoint file: its numbers are not in the text; offer to switch the cell's unit off instead
    const u = await this.client.query(src.key, { kind: 'unit', stageId, index });
    if (u && u.kind === 'unit' && u.unit && src.document && u.version === src.version) {
      await unitActions(src.document, u.unit, p.editorColumn());
      return;
    }
    const r = await this.client.query(src.key, { kind: 'locate', stageId, index });
    if (!r || r.kind !== 'locate' || !r.located || r.version !== src.version) {
      vscode.window.setStatusBarMessage('FFN Lens: nothing in the file to show for this cell', 3000);
      return;
    }
    const doc = src.document;
    const range = doc ? new vscode.Range(doc.positionAt(r.located.start), doc.positionAt(r.located.end)) : rangeOf(r.located);
    this._onDidReveal.fire(src.uri);
    await p.showInEditor(range);
    vscode.window.setStatusBarMessage(`FFN Lens: ${r.located.what}`, 5000);
  }
}
