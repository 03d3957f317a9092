// The extension in the web worker extension host (vscode.dev, github.dev, code-server's web host):
// the compute worker is a Web Worker (dist/web/worker.js) that reads files through this host's
// vscode.workspace.fs; no disk, no environment. Everything else is src/ffnLens.ts.
import * as vscode from 'vscode';
import { WorkspaceHostFiles } from './compute/hostFiles';
import { webWorkerPort } from './compute/webWorkerPort';
import { activateWith, type FfnLensApi } from './ffnLens';

export function activate(context: vscode.ExtensionContext): FfnLensApi {
  const hostFiles = new WorkspaceHostFiles();
  context.subscriptions.push(hostFiles);
  return activateWith(context, {
    kind: 'web',
    startWorker: (ctx) => () => webWorkerPort(vscode.Uri.joinPath(ctx.extensionUri, 'dist', 'web', 'worker.js').toString(true)),
    hostFiles,
    local: null,
    env: () => undefined,
  });
}

export function deactivate(): void {
  // everything is disposed through context.subscriptions
}
