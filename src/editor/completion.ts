// Completion in model files: the keys the format allows where the cursor is, with their meaning,
// and the values of a setting (activations, layouts, norms). Model files are their own language
// (ffn-json), so VS Code's JSON service, which would complete from the schema, does not parse
// them on every keystroke; the worker finds the cursor's place in the text instead (off this thread).
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import type { ModelDocuments } from './modelDocuments';
import { MODEL_SELECTOR } from './selector';

export class ModelCompletionProvider extends Disposable implements vscode.CompletionItemProvider {
  constructor(private readonly client: ComputeClient, private readonly docs: ModelDocuments) {
    super();
    this._register(vscode.languages.registerCompletionItemProvider(MODEL_SELECTOR, {
      provideCompletionItems: (d, p, t) => timed('completion', () => this.provideCompletionItems(d, p, t)),
    }, '"'));
  }

  async provideCompletionItems(doc: vscode.TextDocument, pos: vscode.Position, token: vscode.CancellationToken): Promise<vscode.CompletionItem[] | undefined> {
    if (!this.docs.isTracked(doc.uri)) return undefined;
    const r = await this.client.query(doc.uri.toString(), { kind: 'complete', offset: doc.offsetAt(pos) });
    if (token.isCancellationRequested || !r || r.kind !== 'complete' || r.version !== doc.version) return undefined;
    // what is being typed, quotes included, is replaced
    const line = doc.lineAt(pos.line).text;
    let start = pos.character;
    while (start > 0 && /[\w"-]/.test(line[start - 1])) start--;
    let end = pos.character;
    while (end < line.length && /[\w"-]/.test(line[end])) end++;
    const range = new vscode.Range(pos.line, start, pos.line, end);
    return r.items.map((d, i) => {
      const item = new vscode.CompletionItem(d.label, d.insert.startsWith(`"${d.label}":`) ? vscode.CompletionItemKind.Property : vscode.CompletionItemKind.EnumMember);
      item.insertText = d.insert;
      item.filterText = `"${d.label}"`;
      item.range = range;
      item.detail = d.detail;
      item.documentation = new vscode.MarkdownString(d.documentation);
      item.sortText = String(i).padStart(3, '0');
      return item;
    });
  }
}
