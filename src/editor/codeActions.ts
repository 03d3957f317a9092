// Quick fixes where the fix is unambiguous (set the layout, rename an unknown key, pad or trim
// tokens or a bias, add a missing bias filled with zeros). The worker computes the edits.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import type { ModelDocuments } from './modelDocuments';
import { MODEL_SELECTOR } from './selector';

export class ModelCodeActionProvider extends Disposable implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix, vscode.CodeActionKind.RefactorRewrite];

  constructor(private readonly client: ComputeClient, private readonly docs: ModelDocuments) {
    super();
    this._register(vscode.languages.registerCodeActionsProvider(MODEL_SELECTOR, { provideCodeActions: (d, r, c, t) => timed('code actions', () => this.provideCodeActions(d, r, c, t)) }, { providedCodeActionKinds: ModelCodeActionProvider.kinds }));
  }

  async provideCodeActions(doc: vscode.TextDocument, range: vscode.Range, ctx: vscode.CodeActionContext, token: vscode.CancellationToken): Promise<vscode.CodeAction[]> {
    if (!this.docs.isTracked(doc.uri)) return [];
    const ours = ctx.diagnostics.filter((d) => d.source === 'FFN Lens');
    const span = ours.reduce((r, d) => r.union(d.range), range);
    const r = await this.client.query(doc.uri.toString(), { kind: 'fixes', start: doc.offsetAt(span.start), end: doc.offsetAt(span.end) });
    if (token.isCancellationRequested || !r || r.kind !== 'fixes' || r.version !== doc.version) return [];
    return r.fixes.map((f) => {
      // a fix of a problem is a quick fix; an optional addition (a bias) a rewrite
      const a = new vscode.CodeAction(f.title, f.fixes ? vscode.CodeActionKind.QuickFix : vscode.CodeActionKind.RefactorRewrite);
      const edit = new vscode.WorkspaceEdit();
      for (const e of f.edits) edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.start), doc.positionAt(e.end)), e.text);
      a.edit = edit;
      a.isPreferred = f.preferred ?? false;
      if (f.fixes) {
        const d = ours.filter((x) => x.code === f.fixes!.code && doc.offsetAt(x.range.start) === f.fixes!.start);
        if (d.length) a.diagnostics = d;
      }
      return a;
    });
  }
}
