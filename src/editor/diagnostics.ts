// The reader's problems, and the warnings only the computed stages can give, as diagnostics on
// the model file, on the exact range they are about; replaced with every new read, cleared when
// the file is fixed or closed. Ranges come as lines and columns from the worker, so a file read
// from disk (too large for VS Code to hand over) gets them too.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { WorkerProblem } from '../protocol/worker';
import { rangeOf } from './panelSource';
import { Disposable } from '../host/dispose';
import type { DiskModels } from './diskModels';
import type { ModelDocuments } from './modelDocuments';

export class ModelDiagnostics extends Disposable {
  private readonly collection = this._register(vscode.languages.createDiagnosticCollection('ffn-lens'));
  private readonly latest = new Map<string, { version: number; problems: readonly WorkerProblem[]; runtime: readonly WorkerProblem[] }>();

  constructor(client: ComputeClient, docs: ModelDocuments, disk: DiskModels) {
    super();
    this._register(client.onMessage((m) => {
      if (m.type !== 'model' && m.type !== 'runtime') return;
      const src = docs.get(m.doc) ?? disk.get(m.doc);
      if (!src || src.version !== m.version) return; // a newer read is on its way
      const prev = this.latest.get(m.doc);
      const same = prev?.version === m.version;
      const entry = m.type === 'model'
        ? { version: m.version, problems: m.problems, runtime: same ? prev.runtime : [] }
        : { version: m.version, problems: same ? prev.problems : [], runtime: m.problems };
      this.latest.set(m.doc, entry);
      this.collection.set(src.uri, [...entry.problems, ...entry.runtime].map(toDiagnostic));
    }));
    this._register(docs.onDidClose((uri) => {
      this.collection.delete(uri);
      this.latest.delete(uri.toString());
    }));
    this._register(disk.onDidClose((uri) => {
      this.collection.delete(uri);
      this.latest.delete(`disk:${uri.toString()}`);
    }));
  }
}

export function toDiagnostic(p: WorkerProblem): vscode.Diagnostic {
  const r = rangeOf(p);
  const range = r.isEmpty ? new vscode.Range(r.start, r.start.translate(0, 1)) : r;
  const d = new vscode.Diagnostic(range, p.message, p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = 'FFN Lens';
  d.code = p.code;
  return d;
}
