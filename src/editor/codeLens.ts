// A lens above each matrix (its shape and role, and the live count of dead neurons for FFN
// matrices) and a "Visualize" lens above each FFN. Refreshed whenever a computation finishes.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import { SECTION } from '../host/config';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import type { ModelDocuments } from './modelDocuments';
import { MODEL_SELECTOR } from './selector';

export class ModelCodeLensProvider extends Disposable implements vscode.CodeLensProvider {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this._onDidChange.event;

  constructor(private readonly client: ComputeClient, private readonly docs: ModelDocuments) {
    super();
    this._register(vscode.languages.registerCodeLensProvider(MODEL_SELECTOR, { onDidChangeCodeLenses: this.onDidChangeCodeLenses, provideCodeLenses: (d, t) => timed('code lenses', () => this.provideCodeLenses(d, t)) }));
    this._register(client.onMessage((m) => {
      if (m.type === 'runtime') this._onDidChange.fire();
    }));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SECTION}.codeLens.enabled`)) this._onDidChange.fire();
    }));
  }

  async provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    if (!vscode.workspace.getConfiguration(SECTION, doc).get<boolean>('codeLens.enabled', true) || !this.docs.isTracked(doc.uri)) return [];
    let r = await this.client.query(doc.uri.toString(), { kind: 'codeLenses' });
    if (r?.kind === 'codeLenses' && r.stale && r.version === doc.version) {
      // the counts are of an earlier text: the lenses VS Code shows stay until this version's run
      // is done, then change once, with the panel's (never the old counts beside the new panel)
      if (!(await this.runDone(doc, token))) return [];
      r = await this.client.query(doc.uri.toString(), { kind: 'codeLenses' });
    }
    if (token.isCancellationRequested || !r || r.kind !== 'codeLenses' || r.version !== doc.version) return [];
    return r.codeLenses.map((l) => {
      const range = new vscode.Range(doc.positionAt(l.start), doc.positionAt(l.end));
      return new vscode.CodeLens(range, l.visualize
        ? { title: `$(graph) ${l.title}`, command: 'ffnLens.visualize', arguments: [doc.uri, l.visualize], tooltip: 'Open the FFN Lens panel beside this file, at this FFN' }
        : { title: l.title, command: '' });
    });
  }

  /** Resolves true when the worker's run of this version of doc is done, false if the request is cancelled (a newer text). */
  private runDone(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<boolean> {
    const uri = doc.uri.toString();
    const version = doc.version;
    return new Promise((resolve) => {
      const subs: vscode.Disposable[] = [];
      const end = (ok: boolean): void => {
        subs.forEach((d) => d.dispose());
        resolve(ok);
      };
      subs.push(this.client.onMessage((m) => {
        if (m.type === 'runtime' && m.doc === uri && m.version >= version) end(true);
        else if (m.type === 'model' && m.doc === uri && m.version >= version && m.summary === null) end(true); // (no run: the text does not compute)
      }));
      subs.push(token.onCancellationRequested(() => end(false)));
    });
  }
}
