// Where a comparison's baseline comes from, as the user picks it: the file without its overrides
// (the worker derives it), the file as committed (Git's HEAD, through VS Code's Git extension), or
// another model file. Text only: the worker reads it as it reads any model file.
import * as vscode from 'vscode';
import type { CompareSpec } from '../protocol/worker';

export type BaselineKind = 'none' | 'plain' | 'head' | 'file' | 'unsteered';

interface GitApi {
  getRepository(uri: vscode.Uri): { show(ref: string, path: string): Promise<string> } | null;
}

/** The baseline of `kind` for the model file at `uri`; null: compare off; undefined: cancelled or failed (said). */
/** VS Code's Git extension is there (desktop, code-server; not vscode.dev or github.dev): HEAD can be a baseline. */
export function gitAvailable(): boolean {
  return vscode.extensions.getExtension('vscode.git') !== undefined;
}

export async function baselineFor(kind: BaselineKind, uri: vscode.Uri): Promise<CompareSpec | null | undefined> {
  switch (kind) {
    case 'none':
      return null;
    case 'plain':
      return { kind: 'plain' };
    case 'unsteered':
      return { kind: 'unsteered' };
    case 'head': {
      const ext = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
      try {
        const git = ext ? (ext.isActive ? ext.exports : await ext.activate()).getAPI(1) : null;
        const repo = git?.getRepository(uri) ?? null;
        if (!repo) {
          void vscode.window.showWarningMessage(`FFN Lens: ${uri.path.split('/').pop()} is not in a Git repository: compare it with another model file, or without its overrides.`);
          return undefined;
        }
        const text = await repo.show('HEAD', uri.fsPath);
        return { kind: 'text', label: 'as committed (HEAD)', text, fileName: uri.fsPath };
      } catch (e) {
        void vscode.window.showWarningMessage(`FFN Lens: no committed version of ${uri.path.split('/').pop()} to compare with (${(e as Error).message.split('\n')[0]}).`);
        return undefined;
      }
    }
    case 'file': {
      const picked = await vscode.window.showOpenDialog({
        title: 'FFN Lens: compare with which model file?', canSelectMany: false,
        defaultUri: vscode.Uri.joinPath(uri, '..'), filters: { 'Model files': ['json', 'jsonc'] },
      });
      if (!picked?.[0]) return undefined;
      const bytes = await vscode.workspace.fs.readFile(picked[0]);
      const name = picked[0].path.split('/').pop()!;
      return { kind: 'text', label: name, text: new TextDecoder('utf-8').decode(bytes), fileName: picked[0].fsPath };
    }
  }
}
