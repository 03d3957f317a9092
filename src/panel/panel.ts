// One panel, showing one model document (the markdown preview's model: one preview per document,
// opened beside it). It relays the worker's results for its document to the webview, dropping
// any that are older than the document (a newer result is on its way). It holds no numbers: the
// worker sends each stage in pieces already sized for the webview, forwarded as they come, and a
// webview that (re)starts asks the worker, which replays its last render (or computes it).
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { CheckpointRead, CompareSpec, FromWorker } from '../protocol/worker';
import { baselineFor, gitAvailable, type BaselineKind } from '../editor/baselines';
import { readSettings, writePanelSetting } from '../host/config';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import { panelHtml } from './html';
import type { FromWebview, ToWebview } from '../protocol/panel';
import { DroppedParts, modelToWebview, toWebview } from './relay';
import { rangeOf, type PanelSource } from '../editor/panelSource';
import type { ReadProgress } from '../compute/hostFiles';
import { loadingNotice, readIsFor, workerReadNotice, type ReadShown } from './loadingNotice';
import type { LensKind, LensResult } from '../protocol/lenses';
import { parseUnit } from '../model/checkpointRequest';
import { saeFeatureActions, unitActions } from '../editor/unitActions';
import { branchInput } from '../editor/branchEdit';
import { PanelGeneration } from './panelGeneration';
import { PanelExports } from './panelExports';

export const PANEL_VIEW_TYPE = 'ffnLens.preview';

/** What tests read to check the pipeline (also handy when debugging). */
export interface PanelStats {
  posted: { model: number; stage: number; problems: number; done: number };
  droppedStale: number;
  lastRenderedVersion: number;
  lastPostedVersion: number;
}

export class Panel extends Disposable {
  /** The version of the render the webview is being sent (its stages and 'done' pass), or -1. */
  private shown = -1;
  /** What this panel posts while a worker's batch is taken (null: none is), to go as one message. */
  private held: ToWebview[] | null = null;
  /**
   * What the webview last asked to be shown of this document (null: everything): told to the worker
   * again on (re)subscribing. Undefined until it asks: the worker then sends what a new panel shows.
   */
  private wanted: { readonly ids: readonly string[] | null; readonly cols: number } | undefined = undefined;
  private webviewReady = false;
  /** The worker said it is reading a checkpoint: the notice goes when the model comes. */
  private loading = false;
  /** The checkpoint it reads (as the model file names it), and how far the host's read of it is. */
  private loadingWhat = '';
  private readShown: ReadShown | null = null;
  /** The folder the worker reads for it (CheckpointRead's), and the notice of a read cancelled, kept until it loads again. */
  private loadingFolder: string | undefined;
  private cancelled: string | null = null;
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
  /** The baseline the panel compares with, or null. */
  private compare: CompareSpec | null = null;
  private readonly exports = new PanelExports((m) => this.post(m), (stageId) => this.client.query(this.src.key, { kind: 'stage', stageId }, 60_000));
  /** The words and plan of a model message dropped as stale, for the next that leaves them out. */
  private readonly dropped = new DroppedParts();
  /** Generation (its "generate" key): passed on, cancelled, branched (panelGeneration.ts). */
  readonly generation = new PanelGeneration({
    send: (m) => this.client.send(m), source: () => this.src, post: (m) => this.post(m), say: (t) => void vscode.window.setStatusBarMessage(t, 5000),
    branch: (doc, ids, texts) => void branchInput(doc, ids, texts, this.editorColumn()),
  });

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
      this.generation.leave();
      this._onDidDispose.fire();
      this.dispose();
    }));
    this._register(panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this._onDidActivate.fire();
    }));
    // (the worker is asked for the numbers when the webview is ready for them: 'ready')
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
    this.generation.leave();
    this.src = src;
    this.shown = -1;
    this.notice = null;
    this.compare = null; // (a baseline belongs to the file it was picked for)
    this.wanted = undefined; // (so are the stages it asked for)
    this.stats.lastPostedVersion = -1;
    this.stats.lastRenderedVersion = -1;
    this.setTitle(null);
    this.sendInit();
    if (this.webviewReady) this.resubscribe();
    return left;
  }

  /**
   * The same file from another source: a new TextDocument (closed and opened again), the file on
   * disk once its editor closed, or the document again when it reopens.
   */
  rebind(src: PanelSource): void {
    if (this.src.key !== src.key) this.client.send({ type: 'subscribe', doc: this.src.key, on: false });
    this.generation.leave(); // (its versions start again: generation too, once it renders)
    this.src = src;
    // Its versions start again: the webview keeps the last render until the worker's next one.
    this.shown = -1;
    this.sendInit();
    if (this.webviewReady) this.resubscribe();
  }

  /** Asks the worker for everything again (it restarted, or the webview did): it replays its last render. */
  resubscribe(): void {
    if (!this.webviewReady) return; // ('ready' asks, when it comes)
    this.shown = -1;
    this.dropped.clear(); // (the replay's summary comes whole)
    this.generation.resubscribe();
    this.client.send({ type: 'subscribe', doc: this.src.key, on: true });
    if (this.wanted !== undefined) this.client.send({ type: 'want', doc: this.src.key, ...this.wanted });
    if (this.compare) this.client.send({ type: 'compare', doc: this.src.key, baseline: this.compare });
  }

  /** The host read on (the web worker host): said while this panel waits for the checkpoint it is in. */
  readProgress(p: ReadProgress): void {
    if (!this.loading || !readIsFor(p.path, this.loadingWhat, this.src.uri.path)) return;
    this.readShown = p.ended ? null : p;
    this.post({ type: 'notice', text: loadingNotice(this.loadingWhat, this.readShown) });
  }

  /** The worker's read of a checkpoint (src/editor/checkpointProgress.ts): said while this panel waits for it. */
  checkpointRead(r: CheckpointRead): void {
    if (!this.loading || r.folder !== this.loadingFolder) return;
    const text = workerReadNotice(this.loadingWhat, r);
    if (r.state === 'cancelled') this.cancelled = text;
    if (text) this.post({ type: 'notice', text });
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

  /** A worker's batch begins (true: what this panel posts is held) or ends (false: it goes as one message). */
  batch(begins: boolean): void {
    const held = this.held;
    this.held = begins ? [] : null;
    if (begins || !held?.length) return;
    this.post(held.length === 1 ? held[0] : { type: 'batch', messages: held });
  }

  private post(msg: ToWebview): void {
    if (this.isDisposed) return; // (a late result, or the cursor moving, after the panel closed)
    if (!this.webviewReady && msg.type !== 'init') return; // sent in full on 'ready'
    if (this.held) return void this.held.push(msg);
    // (a webview disposed between the check and the post rejects: nothing to tell anyone)
    timed(`postMessage ${msg.type}`, () => this.panel.webview.postMessage(msg)).then(undefined, () => undefined);
  }

  private isStale(version: number): boolean { return version < this.src.version; }

  /** A message from the worker about this panel's document. */
  fromWorker(m: FromWorker): void {
    if (m.type === 'generation') return this.generation.fromWorker(m);
    if (m.type === 'model') {
      if (this.isStale(m.version)) {
        if (m.summary) this.dropped.dropped(m.summary);
        this.stats.droppedStale++;
        return;
      }
      // (the read was cancelled, told with the model message: said however late this panel came)
      if (m.readCancelled) [this.cancelled, this.loading] = [workerReadNotice(m.readCancelled.what, { ...m.readCancelled, state: 'cancelled' }), true];
      if (m.summary && this.cancelled) this.loading = true; // (a model after all: the cancelled notice goes)
      if (m.summary) this.cancelled = null;
      if (this.loading) {
        this.loading = false;
        this.readShown = null;
        this.post({ type: 'notice', text: this.cancelled ?? this.notice ?? '' }); // (the checkpoint is in, or was cancelled)
      }
      if (m.summary) {
        this.shown = m.version;
        this.setTitle(m.summary.name);
        this.stats.posted.model++;
        this.stats.lastPostedVersion = m.version;
        this.post(modelToWebview({ ...m, summary: this.dropped.restore(m.summary) }));
        return;
      }
      this.stats.posted.problems++;
    } else if (m.type === 'stage' || m.type === 'kept' || m.type === 'cols' || m.type === 'rows' || m.type === 'same') {
      // (a render overtaken by an edit while it streams stops here: the newer one is coming)
      if (m.version !== this.shown || this.isStale(m.version)) {
        this.stats.droppedStale++;
        return;
      }
      // (a stage's numbers, as pieces, changed columns or another stage's: each counts once)
      if (m.type === 'cols' || m.type === 'rows' || m.type === 'same' || (m.type === 'stage' && m.offset === 0)) this.stats.posted.stage++;
    } else if (m.type === 'top' || m.type === 'done') {
      // A render overtaken by an edit while it streamed is not shown as complete: its cards that
      // did not get numbers stay marked as older until the newer render comes.
      if (m.version !== this.shown || this.isStale(m.version)) {
        if (m.type === 'done') this.client.send({ type: 'drawn', doc: this.src.key, version: m.version }); // (never drawn: the next goes out)
        return;
      }
      if (m.type === 'done') this.stats.posted.done++;
      if (m.type === 'done') this.generation.rendered(m.version);
    } else if (m.type === 'compare') {
      if (this.isStale(m.version)) return;
    } else if (m.type === 'loading') {
      this.loading = true;
      this.loadingWhat = m.what;
      this.loadingFolder = m.folder;
      this.cancelled = null;
      this.post({ type: 'notice', text: loadingNotice(m.what, this.readShown) });
      return;
    }
    const out = toWebview(m);
    if (out) this.post(out);
  }

  /** A (re)started webview: its settings and notice now, the numbers from the worker's replay. */
  private sendInit(): void {
    this.post({ type: 'init', settings: readSettings().panel, uri: this.src.uri.toString(), gitHead: gitAvailable() });
    if (this.notice) this.post({ type: 'notice', text: this.notice });
  }

  private fromWebview(m: FromWebview): void {
    switch (m.type) {
      case 'ready':
        this.webviewReady = true;
        this.sendInit();
        this.resubscribe();
        return;
      case 'resync':
        this.resubscribe();
        return;
      case 'reveal':
        this.onReveal(this, m.stageId, m.index);
        return;
      case 'gotoProblem':
        void this.showInEditor(rangeOf({ line: m.line, col: m.col, endLine: m.line, endCol: m.col }), false);
        return;
      case 'rendered':
        this.client.send({ type: 'drawn', doc: this.src.key, version: m.version }); // (the worker's next render may go out: outbox.ts)
        this.stats.lastRenderedVersion = m.version;
        this._onDidRender.fire(m.version);
        return;
      case 'setSetting':
        void writePanelSetting(m.key, m.value);
        return;
      case 'want':
        this.wanted = { ids: m.ids, cols: m.cols };
        this.client.send({ type: 'want', doc: this.src.key, ...this.wanted });
        return;
      case 'lens':
        // (the logit lens of a 30-layer model over 50,257 words takes a second or two)
        void this.client.query(this.src.key, { kind: 'lens', request: m.request }, 60_000).then((r) => {
          if (r?.kind === 'lens') this.showLens(r.version, r.result);
        });
        return;
      case 'unit': return void this.unit(m.text);
      case 'exportStage': return void vscode.commands.executeCommand(m.kind === 'npy' ? 'ffnLens.exportNpy' : 'ffnLens.exportCsv', { stageId: m.stageId });
      case 'runPatching':
        void vscode.commands.executeCommand('ffnLens.patch', this.src.uri, m.views);
        return;
      case 'compare':
        void this.setCompare(m.kind);
        return;
      case 'generate':
      case 'branch':
      case 'showGenerated':
        return this.generation.fromWebview(m);
      case 'exported':
        return this.exports.answer(m);
    }
  }

  /** Compare the stages with a baseline (or stop comparing); remembered for the worker's replays. */
  async setCompare(kind: BaselineKind): Promise<void> {
    const spec = await baselineFor(kind, this.src.uri);
    if (spec === undefined) {
      this.post({ type: 'compare', version: -1, label: null, error: null, incomparable: [], top: null }); // (the picker goes back)
      if (this.compare) this.client.send({ type: 'compare', doc: this.src.key, baseline: this.compare });
      return;
    }
    this.compare = spec;
    this.client.send({ type: 'compare', doc: this.src.key, baseline: spec });
  }

  /** The bytes of an export (panelExports.ts). */
  exportBytes(kind: 'png' | 'csv' | 'npy' | 'report', stageId: string | null): Promise<Uint8Array> {
    return this.exports.request(kind, stageId);
  }

  /** A lens result for the webview (stale ones are dropped there: it knows the render shown). */
  showLens(version: number, result: LensResult): void {
    this.post({ type: 'lens', version, result });
  }

  showLensProgress(done: number, total: number): void {
    this.post({ type: 'lensProgress', done, total });
  }

  /** Opens the lenses section at a tab (the patching command shows its progress there). */
  focusLens(kind: LensKind): void {
    this.post({ type: 'focusLens', kind });
  }

  /** A head or neuron clicked in a lens: in a checkpoint model file, offer to ablate or scale it. */
  private async unit(text: string): Promise<void> {
    const doc = this.src.document;
    const u = parseUnit(text);
    if (!u) return doc ? saeFeatureActions(doc, text, this.editorColumn()) : undefined; // (an SAE feature's, or nothing)
    if (!doc || !/"checkpoint"\s*:/.test(doc.getText(new vscode.Range(0, 0, 200, 0)))) {
      void vscode.window.showInformationMessage(`FFN Lens: ${text} — switching units off ("ablate", "scale") works in model files that name a checkpoint.`);
      return;
    }
    await unitActions(doc, { text, kind: u.kind, layer: u.layer, index: u.index, w1: null }, this.editorColumn());
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
  focusStage(id: string): void { this.post({ type: 'focusStage', id }); }

  postHighlight(msg: ToWebview & { type: 'highlight' }): void { this.post(msg); }

  override dispose(): void {
    this.webviewReady = false;
    super.dispose();
  }
}
