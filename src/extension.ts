// The extension on Node (desktop VS Code, remote hosts, code-server's Node host): the compute
// worker is a worker_threads worker reading files with Node's fs; New Model File… streams to disk.
// Everything else is src/ffnLens.ts, shared with the web entry (src/extensionWeb.ts).
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { nodeLocalFiles } from './commands/nodeLocalFiles';
import { nodeWorkerPort } from './compute/nodeWorkerPort';
import { activateWith, type FfnLensApi } from './ffnLens';

export type { FfnLensApi } from './ffnLens';

export function activate(context: vscode.ExtensionContext): FfnLensApi {
  return activateWith(context, {
    kind: 'node',
    startWorker: (ctx) => () => nodeWorkerPort(path.join(ctx.extensionPath, 'dist', 'worker.js')),
    hostFiles: null,
    local: nodeLocalFiles,
    env: (name) => process.env[name],
  });
}

export function deactivate(): void {
  // everything is disposed through context.subscriptions
}
