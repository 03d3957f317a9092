// Workspace Trust as the worker needs it: in Restricted Mode (an untrusted workspace) FFN Lens
// computes hand-written model files and checkpoints inside the workspace, and reads nothing outside
// it (package.json declares `untrustedWorkspaces: limited`). The worker is told the folders it may
// read from (src/checkpoint/store.ts refuses the rest at the key that names them); trust granted,
// or the folders changed, it is told again.
import * as vscode from 'vscode';

/**
 * Restricted Mode: the workspace's folders (and the extension's own samples), as the worker names
 * paths (the Node host: file system paths; the web host: URI paths); null when the workspace is trusted.
 */
export function restrictedFolders(kind: 'node' | 'web', extensionUri: vscode.Uri): string[] | null {
  if (vscode.workspace.isTrusted) return null;
  const uris = [...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri), vscode.Uri.joinPath(extensionUri, 'samples')];
  return uris.map((u) => (kind === 'web' ? u.path : u.fsPath));
}

/** When what restrictedFolders says may have changed: trust granted, folders added or removed. */
export function onDidChangeRestriction(listener: () => void): vscode.Disposable {
  return vscode.Disposable.from(vscode.workspace.onDidGrantWorkspaceTrust(listener), vscode.workspace.onDidChangeWorkspaceFolders(listener));
}
