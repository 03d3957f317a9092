// Hovers over the numbers of a model file: what the number is (path and role in words) and the
// values it leads to, from the latest computation. The worker answers; a hover never recomputes.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import { SECTION } from '../host/config';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import type { ModelDocuments } from './modelDocuments';
import { MODEL_SELECTOR } from './selector';

export class ModelHoverProvider extends Disposable implements vscode.HoverProvider {
  constructor(private readonly client: ComputeClient, private readonly docs: ModelDocuments) {
    super();
    this._register(vscode.languages.registerHoverProvider(MODEL_SELECTOR, { provideHover: (d, p, t) => timed('hover', () => this.provideHover(d, p, t)) }));
  }

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    if (!vscode.workspace.getConfiguration(SECTION, doc).get<boolean>('hover.enabled', true)) return undefined;
    if (!this.docs.isTracked(doc.uri)) return undefined;
    const r = await this.client.query(doc.uri.toString(), { kind: 'hover', offset: doc.offsetAt(pos) });
    if (token.isCancellationRequested || !r || r.kind !== 'hover' || !r.hover || r.version !== doc.version) return undefined;
    const md = new vscode.MarkdownString(r.hover.markdown);
    md.isTrusted = false;
    md.supportHtml = false;
    const range = r.hover.end > r.hover.start ? new vscode.Range(doc.positionAt(r.hover.start), doc.positionAt(r.hover.end)) : undefined;
    return new vscode.Hover(md, range);
  }
}
