// One panel, showing one model document (the markdown preview's model: one preview per document,
// opened beside it). It relays the worker's results for its document to the webview, dropping
// any that are older than the document (a newer result is on its way), and keeps the last good
// render so a reloaded webview, or a text that stops parsing, still has something to show.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { FromWorker, WorkerProblem } from '../protocol/worker';
import { readSettings, writePanelSetting } from '../config';
import { timed } from '../util/busy';
import { Disposable } from '../util/dispose';
import { panelHtml } from './html';
import type { FromWebview, ModelSummary, ProblemInfo, ToWebview } from '../protocol/panel';
import { rangeOf, type PanelSource } from './source';

export const PANEL_VIEW_TYPE = 'ffnLens.preview';

/** Floats per piece of a stage sent to the webview (128 KB): each postMessage stays short. */
const PIECE = 32768;

interface Render {
  version: number;
  summary: ModelSummary;
  warnings: ProblemInfo[];
  stages: Map<string, { shape: readonly number[]; data: ArrayBuffer }>;
  done: boolean;
}

/** What tests read to check the pipeline (also handy when debugging). */
export interface PanelStats {
  posted: { model: number; stage: number; problems: number; done: number };
  droppedStale: number;
  lastRenderedVersion: number;
  lastPostedVersion: number;
}

export class Panel extends Disposable {
  private render: Render | null = null;
  /**
   * The worker's latest numbers of each stage, whatever version they came with (a stale version's
   * are not shown, but the next version may keep them), and the buffer the webview has of each.
   */
  private readonly latest = new Map<string, { shape: readonly number[]; data: ArrayBuffer }>();
  private readonly inWebview = new Map<string, ArrayBuffer>();
  private problems: { version: number; list: ProblemInfo[] } | null = null;
  private webviewReady = false;
  readonly stats: PanelStats = { posted: { model: 0, stage: 0, problems: 0, done: 0 }, droppedStale: 0, lastRenderedVersion: -1, lastPostedVersion: -1 };

  private readonly _onDidDispose = this._register(new vscode.EventEmitter<void>());
  readonly onDidDispose = this._onDidDispose.event;
  private readonly _onDidActivate = this._register(new vscode.EventEmitter<void>());
  /** The panel became the active one. */
  readonly onDidActivate = this._onDidActivate.event;
  private readonly _onDidRender = this._register(new vscode.EventEmitter<number>());
  /** The webview drew a render of this version. */
  readonly onDidRender = this._onDidRender.event;

  private notice: string | null = null;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private src: PanelSource,
    private readonly client: ComputeClient,
    extensionUri: vscode.Uri,
    private readonly onReveal: (p: Panel, stageId: string, index: readonly number[]) => void,
  ) {
    super();
    panel.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
    };
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    panel.webview.html = panelHtml(panel.webview, extensionUri);
    this.setTitle(null);
    this._register(panel.webview.onDidReceiveMessage((m: FromWebview) => timed(`webview message ${m.type}`, () => this.fromWebview(m))));
    this._register(panel.onDidDispose(() => {
      this.client.send({ type: 'subscribe', doc: this.src.key, on: false });
      this._onDidDispose.fire();
      this.dispose();
    }));
    this._register(panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this._onDidActivate.fire();
    }));
    this.client.send({ type: 'subscribe', doc: src.key, on: true });
  }

  get source(): PanelSource {
    return this.src;
  }

  /** The document shown, or null for a file read from disk. */
  get document(): vscode.TextDocument | null {
    return this.src.document;
  }

  get uri(): vscode.Uri {
    return this.src.uri;
  }

  /** Shows another document in this panel (the panel follows the active editor). Returns the source it left. */
  retarget(src: PanelSource): PanelSource | null {
    if (src.key === this.src.key) return null;
    const left = this.src;
    this.client.send({ type: 'subscribe', doc: this.src.key, on: false });
    this.src = src;
    this.render = null;
    this.problems = null;
    this.latest.clear();
    this.notice = null;
    this.stats.lastPostedVersion = -1;
    this.stats.lastRenderedVersion = -1;
    this.setTitle(null);
    this.sendInit();
    this.client.send({ type: 'subscribe', doc: src.key, on: true });
    return left;
  }

  /**
   * The same file from another source: a new TextDocument (closed and opened again), the file on
   * disk once its editor closed, or the document again when it reopens.
   */
  rebind(src: PanelSource): void {
    if (this.src.key !== src.key) this.client.send({ type: 'subscribe', doc: this.src.key, on: false });
    this.src = src;
    this.latest.clear();
    // Its versions start again: keep showing the last render, as older than any of them.
    if (this.render) this.render.version = 0;
    if (this.problems) this.problems.version = 0;
    this.sendInit();
    this.client.send({ type: 'subscribe', doc: this.src.key, on: true });
  }

  /** The worker reopened the document after a restart: ask for everything again. */
  resubscribe(): void {
    this.client.send({ type: 'subscribe', doc: this.src.key, on: true });
  }

  /** A line at the top of the panel (the file is read from disk, or could not be read). */
  showNotice(text: string): void {
    this.notice = text;
    this.post({ type: 'notice', text });
  }

  updateSettings(): void {
    this.post({ type: 'settings', settings: readSettings().panel });
  }

  private setTitle(name: string | null): void {
    this.panel.title = name ? `FFN Lens: ${name}` : `FFN Lens: ${this.src.uri.path.split('/').pop() ?? ''}`;
  }

  private post(msg: ToWebview): void {
    if (!this.webviewReady && msg.type !== 'init') return; // sent in full on 'ready'
    void timed(`postMessage ${msg.type}`, () => this.panel.webview.postMessage(msg));
  }

  /** A stage's numbers to the webview, in pieces of at most PIECE floats. */
  private postStage(version: number, id: string, shape: readonly number[], data: ArrayBuffer): void {
    if (this.webviewReady) this.inWebview.set(id, data);
    const total = data.byteLength / 4;
    for (let offset = 0; offset < total || offset === 0; offset += PIECE) {
      const piece = total <= PIECE ? data : data.slice(offset * 4, Math.min(total, offset + PIECE) * 4);
      this.post({ type: 'stage', version, id, shape, data: piece, offset, total });
      if (total === 0) break;
    }
  }

  private isStale(version: number): boolean {
    return version < this.src.version;
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
    } else if (m.type === 'stage' || m.type === 'kept') {
      // 'kept': the same numbers as the worker's previous run of this stage, which came before
      const s = m.type === 'stage' ? { shape: m.shape, data: m.data } : this.latest.get(m.id);
      if (s) this.latest.set(m.id, s);
      const r = this.render;
      if (!s || !r || r.version !== m.version || this.isStale(m.version)) {
        this.stats.droppedStale++;
        return;
      }
      r.stages.set(m.id, s);
      this.stats.posted.stage++;
      if (this.inWebview.get(m.id) === s.data) this.post({ type: 'kept', version: m.version, id: m.id });
      else this.postStage(m.version, m.id, s.shape, s.data);
    } else if (m.type === 'done') {
      const r = this.render;
      // A render overtaken by an edit while it streamed is not shown as complete: its cards that
      // did not get numbers stay marked as older until the newer render comes.
      if (!r || r.version !== m.version || this.isStale(m.version)) return;
      r.done = true;
      this.stats.posted.done++;
      this.post({ type: 'done', version: m.version, ms: m.ms.parse + m.ms.forward });
    }
  }

  private infos(problems: readonly WorkerProblem[]): ProblemInfo[] {
    return problems.map((p) => ({ severity: p.severity, code: p.code, message: p.message, path: p.path, line: p.line, col: p.col }));
  }

  private sendInit(): void {
    this.inWebview.clear(); // a (re)started webview has nothing
    this.post({ type: 'init', settings: readSettings().panel, uri: this.src.uri.toString() });
    if (this.notice) this.post({ type: 'notice', text: this.notice });
    const r = this.render;
    if (r) {
      this.post({ type: 'model', version: r.version, summary: r.summary, warnings: r.warnings });
      for (const [id, s] of r.stages) this.postStage(r.version, id, s.shape, s.data);
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
      case 'gotoProblem':
        void this.showInEditor(rangeOf({ line: m.line, col: m.col, endLine: m.line, endCol: m.col }), false);
        return;
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
    const ed = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.src.key);
    if (ed?.viewColumn) return ed.viewColumn;
    for (const g of vscode.window.tabGroups.all) {
      if (g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === this.src.key)) return g.viewColumn;
    }
    return vscode.ViewColumn.One;
  }

  /** Selects a range in the editor of this file (for a file read from disk, through vscode.open). */
  async showInEditor(range: vscode.Range, reveal = true): Promise<void> {
    const doc = this.src.document;
    if (doc) {
      const editor = await vscode.window.showTextDocument(doc, { viewColumn: this.editorColumn(), selection: range, preserveFocus: false });
      if (reveal) editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    } else {
      await vscode.commands.executeCommand('vscode.open', this.src.uri, { viewColumn: this.editorColumn(), selection: range });
    }
  }

  /** Scrolls the panel to a stage's card (the webview waits for the card if need be). */
  focusStage(id: string): void {
    this.post({ type: 'focusStage', id });
  }

  postHighlight(msg: ToWebview & { type: 'highlight' }): void {
    this.post(msg);
  }

  override dispose(): void {
    // the numbers held for this panel go with it
    this.render = null;
    this.problems = null;
    this.latest.clear();
    this.inWebview.clear();
    super.dispose();
  }
}
