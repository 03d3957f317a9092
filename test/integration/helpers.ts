// Shared by the integration suites: the extension's API, copies of the samples in the test
// workspace (so edits never touch the repository), and waiting for things to happen.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FfnLensApi } from '../../src/extension';
import type { Panel } from '../../src/panel/panel';

export const EXTENSION_ID = 'ffn-lens.ffn-lens';

export async function api(): Promise<FfnLensApi> {
  const ext = vscode.extensions.getExtension<FfnLensApi>(EXTENSION_ID);
  assert.ok(ext, 'the extension is loaded');
  return ext.activate();
}

export function extensionPath(): string {
  return vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
}

export function sampleText(name: string): string {
  return readFileSync(join(extensionPath(), 'samples', name), 'utf8');
}

let counter = 0;
/** Writes `text` into the test workspace under a fresh name and opens it in the first column. */
export async function openCopy(text: string, base = 'model'): Promise<vscode.TextEditor> {
  const root = vscode.workspace.workspaceFolders![0].uri;
  const uri = vscode.Uri.joinPath(root, `${base}-${Date.now()}-${counter++}.ffn.json`);
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  const doc = await vscode.workspace.openTextDocument(uri);
  return vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
}

export async function waitFor<T>(what: string, f: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the panel's webview has drawn the document's current version. */
export async function rendered(p: Panel, doc: vscode.TextDocument): Promise<void> {
  await waitFor(`the panel to draw version ${doc.version}`, () => p.stats.lastRenderedVersion === doc.version);
}

/** Replaces the first occurrence of `find` (after `after`, if given) and returns the new version. */
export async function replace(editor: vscode.TextEditor, find: string, by: string, after = ''): Promise<number> {
  const text = editor.document.getText();
  const from = after ? text.indexOf(after) : 0;
  assert.ok(from >= 0, `"${after}" is in the text`);
  const at = text.indexOf(find, from);
  assert.ok(at >= 0, `"${find}" is in the text`);
  const range = new vscode.Range(editor.document.positionAt(at), editor.document.positionAt(at + find.length));
  assert.ok(await editor.edit((e) => e.replace(range, by)), 'the edit applied');
  return editor.document.version;
}

export function diagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'FFN Lens');
}

export async function closeAll(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
