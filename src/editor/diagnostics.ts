// The reader's problems as diagnostics on the model file, on the exact range they are about;
// replaced with every new read, cleared when the file is fixed or closed.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { WorkerProblem } from '../compute/protocol';
import { Disposable } from '../util/dispose';
import type { ModelDocuments } from './modelDocuments';

export class ModelDiagnostics extends Disposable {
  private readonly collection = this._register(vscode.languages.createDiagnosticCollection('ffn-lens'));
  /** The problems behind each diagnostic, for quick fixes. */
  private readonly latest = new Map<string, { version: number; problems: readonly WorkerProblem[]; runtime: readonly WorkerProblem[] }>();

  constructor(client: ComputeClient, docs: ModelDocuments) {
    super();
    this._register(client.onMessage((m) => {
      if (m.type !== 'model' && m.type !== 'runtime') return;
      const doc = docs.get(m.doc);
      if (!doc || doc.version !== m.version) return; // a newer read is on its way
      const prev = this.latest.get(m.doc);
      const same = prev?.version === m.version;
      const entry = m.type === 'model'
        ? { version: m.version, problems: m.problems, runtime: same ? prev.runtime : [] }
        : { version: m.version, problems: same ? prev.problems : [], runtime: m.problems };
      this.latest.set(m.doc, entry);
      this.collection.set(doc.uri, [...entry.problems, ...entry.runtime].map((p) => toDiagnostic(doc, p)));
    }));
    this._register(docs.onDidClose((uri) => {
      this.collection.delete(uri);
      this.latest.delete(uri.toString());
    }));
  }

  problemsFor(doc: vscode.TextDocument): readonly WorkerProblem[] {
    const l = this.latest.get(doc.uri.toString());
    return l && l.version === doc.version ? [...l.problems, ...l.runtime] : [];
  }
}

export function toDiagnostic(doc: vscode.TextDocument, p: WorkerProblem): vscode.Diagnostic {
  const start = doc.positionAt(p.start);
  const end = doc.positionAt(Math.max(p.end, p.start + 1));
  const d = new vscode.Diagnostic(new vscode.Range(start, end), p.message,
    p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = 'FFN Lens';
  d.code = p.code;
  return d;
}
