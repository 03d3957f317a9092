// One panel, showing one model document (the markdown preview's model: one preview per document,
// opened beside it). It relays the worker's results for its document to the webview, dropping
// any that are older than the document (a newer result is on its way), and keeps the last good
// render so a reloaded webview, or a text that stops parsing, still has something to show.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { FromWorker, WorkerProblem } from '../compute/protocol';
import { readSettings, writePanelSetting } from '../config';
import { Disposable } from '../util/dispose';
import { panelHtml } from './html';
import type { FromWebview, ModelSummary, ProblemInfo, ToWebview } from './protocol';

export const PREVIEW_VIEW_TYPE = 'ffnLens.preview';

interface Render {
  version: number;
  summary: ModelSummary;
  warnings: ProblemInfo[];
  stages: Map<string, { shape: readonly number[]; data: ArrayBuffer }>;
  done: boolean;
}

/** What tests read to check the pipeline (also handy when debugging). */
export interface PreviewStats {
  posted: { model: number; stage: number; problems: number; done: number };
  droppedStale: number;
  lastRenderedVersion: number;
  lastPostedVersion: number;
}

export class Preview extends Disposable {
  private render: Render | null = null;
  private problems: { version: number; list: ProblemInfo[] } | null = null;
  private webviewReady = false;
  readonly stats: PreviewStats = { posted: { model: 0, stage: 0, problems: 0, done: 0 }, droppedStale: 0, lastRenderedVersion: -1, lastPostedVersion: -1 };

  private readonly _onDidDispose = this._register(new vscode.EventEmitter<void>());
  readonly onDidDispose = this._onDidDispose.event;
  private readonly _onDidRender = this._register(new vscode.EventEmitter<number>());
  /** The webview drew a render of this version. */
  readonly onDidRender = this._onDidRender.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private doc: vscode.TextDocument,
    private readonly client: ComputeClient,
    extensionUri: vscode.Uri,
    private readonly onReveal: (p: Preview, stageId: string, index: readonly number[]) => void,
  ) {
    super();
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
    };
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    panel.webview.html = panelHtml(panel.webview, extensionUri);
    this.setTitle(null);
    this._register(panel.webview.onDidReceiveMessage((m: FromWebview) => this.fromWebview(m)));
    this._register(panel.onDidDispose(() => {
      this.client.send({ type: 'subscribe', doc: this.doc.uri.toString(), on: false });
      this._onDidDispose.fire();
      this.dispose();
    }));
    this.client.send({ type: 'subscribe', doc: doc.uri.toString(), on: true });
  }

  get document(): vscode.TextDocument {
    return this.doc;
  }

  /** Shows another document in this panel (the panel follows the active editor). */
  retarget(doc: vscode.TextDocument): void {
    if (doc.uri.toString() === this.doc.uri.toString()) return;
    this.client.send({ type: 'subscribe', doc: this.doc.uri.toString(), on: false });
    this.doc = doc;
    this.render = null;
    this.problems = null;
    this.stats.lastPostedVersion = -1;
    this.setTitle(null);
    this.sendInit();
    this.client.send({ type: 'subscribe', doc: doc.uri.toString(), on: true });
  }

  /** The same file as a new TextDocument (closed and opened again). */
  rebind(doc: vscode.TextDocument): void {
    this.doc = doc;
    // Its versions start again at 1: keep showing the last render, as older than any of them.
    if (this.render) this.render.version = 0;
    if (this.problems) this.problems.version = 0;
    this.sendInit();
    this.client.send({ type: 'subscribe', doc: doc.uri.toString(), on: true });
  }

  /** The worker reopened the document after a restart: ask for everything again. */
  resubscribe(): void {
    this.client.send({ type: 'subscribe', doc: this.doc.uri.toString(), on: true });
  }

  updateSettings(): void {
    this.post({ type: 'settings', settings: readSettings().panel });
  }

  private setTitle(name: string | null): void {
    this.panel.title = name ? `FFN Lens: ${name}` : `FFN Lens: ${this.doc.uri.path.split('/').pop() ?? ''}`;
  }

  private post(msg: ToWebview): void {
    if (!this.webviewReady && msg.type !== 'init') return; // sent in full on 'ready'
    void this.panel.webview.postMessage(msg);
  }

  private isStale(version: number): boolean {
    return version < this.doc.version;
  }

  /** A message from the worker about this panel's document. */
  fromWorker(m: FromWorker): void {
    if (m.type === 'model') {
      if (this.isStale(m.version)) {
        this.stats.droppedStale++;
        return;
      }
      if (m.summary) {
        this.problems = null;
        this.render = { version: m.version, summary: m.summary, warnings: this.infos(m.problems), stages: new Map(), done: false };
        this.setTitle(m.summary.name);
        this.stats.posted.model++;
        this.stats.lastPostedVersion = m.version;
        this.post({ type: 'model', version: m.version, summary: m.summary, warnings: this.render.warnings });
      } else {
        this.problems = { version: m.version, list: this.infos(m.problems) };
        this.stats.posted.problems++;
        this.post({ type: 'problems', version: m.version, problems: this.problems.list });
      }
    } else if (m.type === 'stage') {
      const r = this.render;
      if (!r || r.version !== m.version || this.isStale(m.version)) {
        this.stats.droppedStale++;
        return;
      }
      r.stages.set(m.id, { shape: m.shape, data: m.data });
      this.stats.posted.stage++;
      this.post({ type: 'stage', version: m.version, id: m.id, shape: m.shape, data: m.data });
    } else if (m.type === 'done') {
      const r = this.render;
      if (!r || r.version !== m.version) return;
      r.done = true;
      this.stats.posted.done++;
      this.post({ type: 'done', version: m.version, ms: m.ms.parse + m.ms.forward });
    }
  }

  private infos(problems: readonly WorkerProblem[]): ProblemInfo[] {
    return problems.map((p) => {
      const pos = this.doc.positionAt(p.start);
      return { severity: p.severity, code: p.code, message: p.message, path: p.path, line: pos.line + 1, col: pos.character + 1 };
    });
  }

  private sendInit(): void {
    this.post({ type: 'init', settings: readSettings().panel, uri: this.doc.uri.toString() });
    const r = this.render;
    if (r) {
      this.post({ type: 'model', version: r.version, summary: r.summary, warnings: r.warnings });
      for (const [id, s] of r.stages) this.post({ type: 'stage', version: r.version, id, shape: s.shape, data: s.data });
      if (r.done) this.post({ type: 'done', version: r.version, ms: 0 });
    }
    if (this.problems) this.post({ type: 'problems', version: this.problems.version, problems: this.problems.list });
  }

  private fromWebview(m: FromWebview): void {
    switch (m.type) {
      case 'ready':
        this.webviewReady = true;
        this.sendInit();
        return;
      case 'reveal':
        this.onReveal(this, m.stageId, m.index);
        return;
      case 'gotoProblem': {
        const pos = new vscode.Position(Math.max(0, m.line - 1), Math.max(0, m.col - 1));
        void vscode.window.showTextDocument(this.doc, { viewColumn: this.editorColumn(), selection: new vscode.Range(pos, pos) });
        return;
      }
      case 'rendered':
        this.stats.lastRenderedVersion = m.version;
        this._onDidRender.fire(m.version);
        return;
      case 'setSetting':
        void writePanelSetting(m.key, m.value);
        return;
    }
  }

  /** The column of an editor showing this document, else the first. */
  editorColumn(): vscode.ViewColumn {
    const ed = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.doc.uri.toString());
    return ed?.viewColumn ?? vscode.ViewColumn.One;
  }

  postHighlight(msg: ToWebview & { type: 'highlight' }): void {
    this.post(msg);
  }
}
