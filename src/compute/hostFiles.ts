// The worker's files in the web worker extension host: it has no file system, so it asks the host,
// which reads with vscode.workspace.fs (the only way there: no ranged reads, so a file comes whole
// and is transferred, not copied, to the worker, which then holds its only copy).
import * as vscode from 'vscode';
import type { FromWorker, FsLocated, ToWorker } from '../protocol/worker';

/** Reads above this are shown in the status bar while they last. */
const LARGE_READ = 50 * 1000 * 1000;

export interface HostFiles {
  answer(req: Extract<FromWorker, { type: 'fs' }>): Promise<{ reply: ToWorker; transfer?: ArrayBuffer[] }>;
}

/** A path as the worker names files (a document's fileName: its URI's path) → the workspace's URI for it. */
export function uriOfPath(path: string): vscode.Uri {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder = folders.find((f) => path === f.uri.path || path.startsWith(f.uri.path.endsWith('/') ? f.uri.path : `${f.uri.path}/`)) ?? folders[0];
  return folder ? folder.uri.with({ path }) : vscode.Uri.file(path);
}

export const workspaceHostFiles: HostFiles = {
  async answer(req) {
    if (req.op === 'locate') return { reply: { type: 'fsReply', id: req.id, located: await locate(req.path, req.name) } };
    const uri = uriOfPath(req.path);
    try {
      if (req.op === 'size') {
        const st = await vscode.workspace.fs.stat(uri);
        return { reply: { type: 'fsReply', id: req.id, size: st.type & vscode.FileType.File ? st.size : null } };
      }
      // a large file (a checkpoint): said in a notification while it is read (workspace.fs reads
      // it whole and tells nothing on the way, so the progress has no percentage)
      const size = (await vscode.workspace.fs.stat(uri)).size;
      const name = req.path.slice(req.path.lastIndexOf('/') + 1);
      const bytes = size < LARGE_READ
        ? await vscode.workspace.fs.readFile(uri)
        : await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `FFN Lens: reading ${name} (${Math.round(size / 1e6)} MB)` }, () => Promise.resolve(vscode.workspace.fs.readFile(uri)));
      // (a buffer of its own, moved to the worker)
      const buf = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer as ArrayBuffer : bytes.slice().buffer as ArrayBuffer;
      return { reply: { type: 'fsReply', id: req.id, bytes: buf }, transfer: [buf] };
    } catch (e) {
      if (req.op === 'size') return { reply: { type: 'fsReply', id: req.id, size: null } };
      return { reply: { type: 'fsReply', id: req.id, error: e instanceof vscode.FileSystemError ? e.code : (e as Error).message } };
    }
  },
};

/**
 * Where `name` under the folder `root` is (src/checkpoint/files.ts's `locate`): workspace.fs has no
 * realpath, so each part of the way below `root` is stat'ed, and one that is a symbolic link is
 * reported as such (FileType.SymbolicLink: where it leads cannot be asked, so the worker refuses
 * it). `..` is worked out first: a name that climbs out is reported where it lands, outside.
 */
async function locate(root: string, name: string): Promise<FsLocated> {
  const base = root.replace(/\/+$/, '');
  const parts: string[] = [];
  let climbs = 0;
  for (const part of name.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.length > 0) parts.pop();
    else climbs++;
  }
  if (climbs > 0) return { kind: 'found', root: base, real: `${base.split('/').slice(0, -climbs).join('/')}/${parts.join('/')}` };
  try {
    await vscode.workspace.fs.stat(uriOfPath(base || '/'));
    let at = base;
    for (const part of parts) {
      at = `${at}/${part}`;
      if ((await vscode.workspace.fs.stat(uriOfPath(at))).type & vscode.FileType.SymbolicLink) return { kind: 'link', at };
    }
    return { kind: 'found', root: base || '/', real: at || '/' };
  } catch {
    return { kind: 'missing' };
  }
}
