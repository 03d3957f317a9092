// FFN Lens: activation wires the parts together; each part owns its own disposables. The same on
// both hosts: the entries (src/extension.ts on Node, src/extensionWeb.ts in the web worker host)
// give it what differs (HostPlatform).
import * as vscode from 'vscode';
import type { HostFiles } from './compute/hostFiles';
import type { StartWorker } from './compute/workerPort';
import type { LocalFiles } from './commands/localFiles';
import { newModelFile } from './commands/newModel';
import { openSample, pickSample, SAMPLES } from './commands/samples';
import { ComputeClient } from './compute/computeClient';
import { onDidChangeRestriction, restrictedFolders } from './compute/restricted';
import { readSettings } from './host/config';
import { ModelCodeActionProvider } from './editor/codeActions';
import { ModelCodeLensProvider } from './editor/codeLens';
import { ModelCompletionProvider } from './editor/completion';
import { runPatching } from './commands/patching';
import { exportFromPanel } from './commands/exports';
import type { Panel } from './panel/panel';
import { gitAvailable, type BaselineKind } from './editor/baselines';
import { openCheckpoint } from './commands/openCheckpoint';
import { stopGenerating } from './commands/stopGenerating';
import { CursorLink } from './panel/cursorLink';
import { ModelDiagnostics } from './editor/diagnostics';
import { activeTabUri, DiskModels, EXTENSION_FILE_LIMIT, fileSize } from './editor/diskModels';
import { ModelHoverProvider } from './editor/hover';
import { ModelStatusBar } from './editor/statusBar';
import { looksLikeModelDocument, ModelDocuments } from './editor/modelDocuments';
import { busy, resetBusy, type BusyStats } from './host/busy';
import { Disposable } from './host/dispose';
import { PanelManager } from './panel/panelManager';
import { CheckpointProgress } from './editor/checkpointProgress';

/** Handed to the integration tests (the return value of activate). */
export interface FfnLensApi {
  readonly panels: PanelManager;
  readonly documents: ModelDocuments;
  readonly client: ComputeClient;
  /** The longest our code held this thread (the benchmark reads it). */
  readonly busy: BusyStats;
  resetBusy(): void;
}

/** What differs between the Node extension host and the web worker host. */
export interface HostPlatform {
  readonly kind: 'node' | 'web';
  /** Starts the compute worker (a worker_threads worker, or a Web Worker). */
  readonly startWorker: (context: vscode.ExtensionContext) => StartWorker;
  /** Files the worker asks the host for (the web host: its worker has no file system), or null. */
  readonly hostFiles: HostFiles | null;
  /** The disk, where there is one (New Model File… streams to it, writes checkpoint folders). */
  readonly local: LocalFiles | null;
  /** An environment variable (`npm run demo`'s FFN_LENS_OPEN), where there are any. */
  env(name: string): string | undefined;
}

export class FfnLens extends Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly client: ComputeClient;
  readonly documents: ModelDocuments;
  readonly panels: PanelManager;

  constructor(context: vscode.ExtensionContext, private readonly platform: HostPlatform) {
    super();
    this.log = this._register(vscode.window.createOutputChannel('FFN Lens', { log: true }));
    this.client = this._register(new ComputeClient(platform.startWorker(context), this.log, platform.hostFiles));
    // (settings, and Workspace Trust: in Restricted Mode nothing outside the workspace is read)
    const sendConfig = (): void => this.client.send({ type: 'config', debounceMs: readSettings().debounceMs, threads: readSettings().threads, restrictedTo: restrictedFolders(platform.kind, context.extensionUri) });
    sendConfig();
    this._register(onDidChangeRestriction(sendConfig));
    this.documents = this._register(new ModelDocuments(this.client));
    const disk = this._register(new DiskModels(this.client));
    this._register(new ModelDiagnostics(this.client, this.documents, disk));
    this.panels = this._register(new PanelManager(this.client, this.documents, disk, context.extensionUri));
    if (platform.hostFiles) this._register(platform.hostFiles.onDidProgress((p) => this.panels.readProgress(p)));
    this._register(new CheckpointProgress(this.client, platform.kind === 'node'));
    this._register(new ModelHoverProvider(this.client, this.documents));
    this._register(new ModelCodeLensProvider(this.client, this.documents));
    this._register(new ModelCodeActionProvider(this.client, this.documents));
    this._register(new ModelCompletionProvider(this.client, this.documents));
    this._register(new ModelStatusBar(this.client, this.documents));
    this._register(new CursorLink(this.client, this.documents, this.panels));

    // (a lens passes the stage to show: the panel opens scrolled to it)
    this._register(vscode.commands.registerCommand('ffnLens.visualize', (uri?: vscode.Uri, stageId?: unknown) => this.visualize(uri, typeof stageId === 'string' ? stageId : undefined)));
    this._register(vscode.commands.registerCommand('ffnLens.newModel', async () => {
      const uri = await newModelFile(this.platform.local, context.extensionUri);
      if (uri) await this.visualize(uri);
    }));
    this._register(vscode.commands.registerCommand('ffnLens.openCheckpoint', () => openCheckpoint()));
    // (the webview's context menu passes its data-vscode-context: the stage under the pointer)
    const activePanel = (): Panel | undefined => this.panels.all().find((p) => p.panel.active) ?? this.panels.all()[0];
    const stageOf = (ctx: unknown): string | null => (ctx && typeof ctx === 'object' && typeof (ctx as { stageId?: unknown }).stageId === 'string' ? (ctx as { stageId: string }).stageId : null);
    for (const kind of ['png', 'csv', 'npy'] as const) {
      this._register(vscode.commands.registerCommand(`ffnLens.export${kind[0].toUpperCase()}${kind.slice(1)}`, (ctx?: unknown) => exportFromPanel(activePanel(), kind, stageOf(ctx))));
    }
    this._register(vscode.commands.registerCommand('ffnLens.exportReport', () => exportFromPanel(activePanel(), 'report', null)));
    this._register(vscode.commands.registerCommand('ffnLens.speed', () => this.speed()));
    this._register(vscode.commands.registerCommand('ffnLens.compare', () => this.compare(activePanel())));
    this._register(vscode.commands.registerCommand('ffnLens.stopGenerating', () => stopGenerating(this.panels)));
    this._register(vscode.commands.registerCommand('ffnLens.patch', async (uri?: unknown, views?: unknown) => {
      // (from the palette with a panel in front: that panel's document)
      const fromPanel = this.panels.all().find((p) => p.panel.active)?.document;
      const doc = uri instanceof vscode.Uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document ?? fromPanel ?? undefined;
      if (!doc) {
        void vscode.window.showInformationMessage('FFN Lens: open a model file that names a checkpoint and has a "corrupted_prompt" first.');
        return;
      }
      await runPatching(this.client, this.panels.find(doc.uri) ?? this.panels.show(doc), views === 'heads' ? 'heads' : 'resid');
    }));
    // (an argument, the sample's file name, skips the list: for links and tests)
    this._register(vscode.commands.registerCommand('ffnLens.openSample', async (file?: unknown) => {
      const known = typeof file === 'string' && SAMPLES.some((x) => x.file === file);
      const doc = known ? await openSample(context.extensionUri, file) : await pickSample(context.extensionUri);
      if (!doc) return;
      await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
      this.panels.show(doc);
    }));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ffnLens.debounceMs') || e.affectsConfiguration('ffnLens.threads')) sendConfig();
    }));

    this.trackModelFileContext();
  }

  /** FFN Lens: Measure Compute Speed: what the worker's kernel multiplies at. */
  private async speed(): Promise<void> {
    const r = this.client.started ? await this.client.query('', { kind: 'speed' }, 30_000) : null;
    if (r?.kind !== 'speed') {
      void vscode.window.showInformationMessage('FFN Lens: the compute worker starts with the first model file: open one (or a sample), then measure.');
      return;
    }
    const where = this.platform.kind === 'web' ? 'a Web Worker of the web worker extension host' : 'a worker thread of the Node extension host';
    void vscode.window.showInformationMessage(`FFN Lens: the compute worker (${where}) multiplies ${r.shape.join('×')} at ${r.gflops} GFLOPS with its ${r.kernel === 'wasm-simd' ? 'WebAssembly SIMD' : 'TypeScript'} kernel (${r.kernel}${r.fused ? ', fused multiply-add' : ''}) on ${r.threads === 1 ? 'one thread' : `${r.threads} threads`}.${r.note ? ` ${r.note}` : ''}`);
  }

  /** FFN Lens: Compare with…: the panel's baseline, picked. */
  private async compare(panel: Panel | undefined): Promise<void> {
    if (!panel) {
      void vscode.window.showInformationMessage('FFN Lens: open a panel first (Visualize FFN).');
      return;
    }
    const items: Array<vscode.QuickPickItem & { baseline: BaselineKind }> = [
      { label: 'This file without "ablate", "scale" and "weights"', detail: 'what the overrides change (a model file that names a checkpoint)', baseline: 'plain' },
      { label: 'This file without its "steer"', detail: 'the steered and unsteered predictions side by side (a file that steers a stage)', baseline: 'unsteered' },
      // (where VS Code's Git extension is not, as on vscode.dev, there is no HEAD to ask for)
      ...(gitAvailable() ? [{ label: 'This file as committed (HEAD)', detail: 'what the edits since the last commit change', baseline: 'head' as const }] : []),
      { label: 'Another model file…', detail: 'any model file with the same shapes', baseline: 'file' },
      { label: 'Nothing', detail: 'show the numbers themselves again', baseline: 'none' },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'FFN Lens: compare the panel with…' });
    if (pick) await panel.setCompare(pick.baseline);
  }

  /** The context key behind the editor title button (set when it changes, not on every keystroke). */
  private trackModelFileContext(): void {
    let isModelFile: boolean | undefined;
    const updateContext = (): void => {
      const doc = vscode.window.activeTextEditor?.document;
      const now = !!doc && (this.documents.isTracked(doc.uri) || looksLikeModelDocument(doc));
      if (now === isModelFile) return;
      isModelFile = now;
      void vscode.commands.executeCommand('setContext', 'ffnLens.isModelFile', now);
    };
    this._register(vscode.window.onDidChangeActiveTextEditor(updateContext));
    this._register(this.documents.onDidChange(updateContext));
    updateContext();
  }

  async visualize(uri?: vscode.Uri, stageId?: string): Promise<void> {
    // Too large for VS Code to hand to extensions: no document, only a tab. Read it from disk.
    const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor ? undefined : activeTabUri();
    // (the worker reads it: from the disk, or, in the web worker host, through the host's workspace.fs)
    const readable = target && (target.scheme === 'file' || this.platform.hostFiles !== null);
    if (target && readable && (await fileSize(target)) > EXTENSION_FILE_LIMIT) {
      this.panels.showFile(target);
      return;
    }
    let doc: vscode.TextDocument | undefined;
    if (target) doc = await vscode.workspace.openTextDocument(target);
    else doc = vscode.window.activeTextEditor?.document;
    if (!doc) {
      const pick = await vscode.window.showInformationMessage('FFN Lens: open a model file (*.ffn.json) first, or try a sample.', 'Open Sample');
      if (pick) await vscode.commands.executeCommand('ffnLens.openSample');
      return;
    }
    if (!this.documents.isTracked(doc.uri) && !looksLikeModelDocument(doc)) {
      const go = await vscode.window.showWarningMessage(
        `FFN Lens: ${doc.uri.path.slice(doc.uri.path.lastIndexOf('/') + 1)} does not look like a model file (a *.ffn.json, or JSON with "version": 1 and "ffn", "attention" or "layers"). Visualize it anyway?`,
        'Visualize', 'Open Sample');
      if (go === 'Open Sample') await vscode.commands.executeCommand('ffnLens.openSample');
      if (go !== 'Visualize') return;
    }
    const p = this.panels.show(doc);
    if (stageId) p.focusStage(stageId);
  }

  /** `npm run demo` sets FFN_LENS_OPEN: open that file with its panel beside, once. */
  async openFromEnvironment(state: vscode.Memento): Promise<void> {
    const file = this.platform.env('FFN_LENS_OPEN');
    if (!file || state.get('ffnLens.openedFromEnvironment') === file) return; // a reload restores the panel itself
    await state.update('ffnLens.openedFromEnvironment', file);
    try {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
      this.panels.show(doc, vscode.ViewColumn.Two);
    } catch (e) {
      this.log.warn(`FFN_LENS_OPEN=${file}: ${(e as Error).message}`);
    }
  }
}

export function activateWith(context: vscode.ExtensionContext, platform: HostPlatform): FfnLensApi {
  const lens = new FfnLens(context, platform);
  context.subscriptions.push(lens);
  void lens.openFromEnvironment(context.globalState);
  return { panels: lens.panels, documents: lens.documents, client: lens.client, busy, resetBusy };
}
