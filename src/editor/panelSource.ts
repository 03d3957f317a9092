// What a panel shows: an open document (kept in step with every keystroke), or a file VS Code
// does not hand to extensions (over 50 MB), which the worker reads from disk on each save.
import * as vscode from 'vscode';

export interface PanelSource {
  readonly uri: vscode.Uri;
  readonly key: string;
  /** The document's version, or the count of reads from disk. */
  readonly version: number;
  /** null when the file is read from disk. */
  readonly document: vscode.TextDocument | null;
}

export function documentSource(doc: vscode.TextDocument): PanelSource {
  return {
    uri: doc.uri,
    key: doc.uri.toString(),
    get version() {
      return doc.version;
    },
    document: doc,
  };
}

/** 1-based line/col from the worker as a range. */
export function rangeOf(p: { line: number; col: number; endLine: number; endCol: number }): vscode.Range {
  return new vscode.Range(Math.max(0, p.line - 1), Math.max(0, p.col - 1), Math.max(0, p.endLine - 1), Math.max(0, p.endCol - 1));
}
