// The worker's files in the web worker extension host: it has no file system, so it asks the host.
// A small file is read with vscode.workspace.fs and transferred whole. A large one (a checkpoint)
// is streamed to the worker in parts as it is read, with its progress in percent and a Cancel
// button: workspace.fs has no ranged or streamed read, and its readFile of a 498 MB file in
// code-server took 190–250 s (2–2.7 MB/s) with nothing said on the way, so where the workspace is
// the remote's (vscode-remote:, code-server) the file is fetched from VS Code's remote resource
// route, which the web worker host's fetch maps such a URI to (the way it loads an extension's
// own files): 42 s for the same file on the same loaded machine. Elsewhere (vscode.dev's virtual
// file systems) readFile it is, with a notification that says it cannot tell how far it is.
import * as vscode from 'vscode';
import type { FromWorker, FsLocated, ToWorker } from '../protocol/worker';
import { readInParts } from './partStream';

/** Reads above this are streamed (or, where they cannot be, shown in a notification while they last). */
const LARGE_READ = 50 * 1000 * 1000;
/** The parts a large file is sent to the worker in. */
const PART_BYTES = 8 * 1024 * 1024;

/** A large read as it goes: `done` null where the file system tells no progress. */
export interface ReadProgress {
  readonly path: string;
  readonly done: number | null;
  readonly total: number;
  /** It ended (read, failed or cancelled). */
  readonly ended: boolean;
}

/** Posts to the worker that asked; false once that worker is gone (the read then stops). */
export type SendToWorker = (msg: ToWorker, transfer?: ArrayBuffer[]) => boolean;

export interface HostFiles {
  answer(req: Extract<FromWorker, { type: 'fs' }>, send: SendToWorker): Promise<void>;
  /** Large reads' progress (the panels waiting for a checkpoint show it). */
  readonly onDidProgress: vscode.Event<ReadProgress>;
}

/** A path as the worker names files (a document's fileName: its URI's path) → the workspace's URI for it. */
export function uriOfPath(path: string): vscode.Uri {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder = folders.find((f) => path === f.uri.path || path.startsWith(f.uri.path.endsWith('/') ? f.uri.path : `${f.uri.path}/`)) ?? folders[0];
  return folder ? folder.uri.with({ path }) : vscode.Uri.file(path);
}

export class WorkspaceHostFiles implements HostFiles, vscode.Disposable {
  private readonly progress = new vscode.EventEmitter<ReadProgress>();
  readonly onDidProgress = this.progress.event;

  async answer(req: Extract<FromWorker, { type: 'fs' }>, send: SendToWorker): Promise<void> {
    if (req.op === 'locate') {
      send({ type: 'fsReply', id: req.id, located: await locate(req.path, req.name) });
      return;
    }
    const uri = uriOfPath(req.path);
    try {
      if (req.op === 'size') {
        const st = await vscode.workspace.fs.stat(uri);
        send({ type: 'fsReply', id: req.id, size: st.type & vscode.FileType.File ? st.size : null });
        return;
      }
      const size = (await vscode.workspace.fs.stat(uri)).size;
      // (a file the worker cannot hold is not sent: it says so at the checkpoint key, before a byte comes)
      if (req.op === 'read' && req.limit !== undefined && size > req.limit) {
        send({ type: 'fsReply', id: req.id, error: 'TooLarge', size });
        return;
      }
      if (size < LARGE_READ) {
        sendWhole(send, req.id, await vscode.workspace.fs.readFile(uri));
        return;
      }
      await this.readLarge(req, uri, size, send);
    } catch (e) {
      if (req.op === 'size') send({ type: 'fsReply', id: req.id, size: null });
      else send({ type: 'fsReply', id: req.id, error: e instanceof vscode.FileSystemError ? e.code : (e as Error).message });
    }
  }

  dispose(): void {
    this.progress.dispose();
  }

  // In a notification with Cancel while it lasts: streamed with its percentage where it can be.
  private async readLarge(req: Extract<FromWorker, { type: 'fs' }>, uri: vscode.Uri, size: number, send: SendToWorker): Promise<void> {
    const name = req.path.slice(req.path.lastIndexOf('/') + 1);
    const tell = (done: number | null, ended = false): void => this.progress.fire({ path: req.path, done, total: size, ended });
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `FFN Lens: reading ${name} (${Math.round(size / 1e6)} MB)`, cancellable: true },
        async (progress, token) => {
          let shown = 0;
          const streamed = await streamOverHttp(uri, size, (at, part) => {
            if (token.isCancellationRequested) return false;
            const buf = part.buffer as ArrayBuffer;
            if (!send({ type: 'fsData', id: req.id, at, total: size, bytes: buf }, [buf])) return false;
            const pct = Math.floor((100 * (at + part.length)) / size);
            if (pct > shown) {
              progress.report({ increment: pct - shown, message: `${pct} %` });
              shown = pct;
              tell(at + part.length);
            }
            return true;
          });
          if (streamed === 'cancelled' || token.isCancellationRequested) {
            send({ type: 'fsReply', id: req.id, error: 'Cancelled' });
          } else if (typeof streamed === 'number' && streamed > size) {
            send({ type: 'fsReply', id: req.id, error: `it changed while being read: more than its ${size} bytes came` });
          } else if (streamed !== 'unavailable') {
            // (fewer bytes than its size: the worker says the file ended early)
            send({ type: 'fsReply', id: req.id, size: streamed });
          } else {
            progress.report({ message: 'this file system tells no progress' });
            tell(null);
            const bytes = await Promise.race([vscode.workspace.fs.readFile(uri), cancelled(token)]);
            if (bytes) sendWhole(send, req.id, bytes);
            else send({ type: 'fsReply', id: req.id, error: 'Cancelled' });
          }
        });
    } finally {
      tell(null, true);
    }
  }
}

/** The bytes, as a buffer of their own, moved to the worker. */
function sendWhole(send: SendToWorker, id: number, bytes: Uint8Array): void {
  const buf = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer as ArrayBuffer : bytes.slice().buffer as ArrayBuffer;
  send({ type: 'fsReply', id, bytes: buf }, [buf]);
}

function cancelled(token: vscode.CancellationToken): Promise<null> {
  return new Promise((resolve) => token.onCancellationRequested(() => resolve(null)));
}

/**
 * The file fetched over HTTP in parts (the web worker host's fetch maps a vscode-remote: or file:
 * URI to the remote's resource route): the bytes that came, 'cancelled' when onPart said stop, or
 * 'unavailable' when there is no such route here (nothing was sent: read it another way).
 */
async function streamOverHttp(uri: vscode.Uri, size: number, onPart: (at: number, part: Uint8Array) => boolean): Promise<number | 'cancelled' | 'unavailable'> {
  if (uri.scheme !== 'vscode-remote' && uri.scheme !== 'file') return 'unavailable';
  if (typeof fetch !== 'function') return 'unavailable';
  let res: Response;
  try {
    res = await fetch(uri.toString(true));
  } catch {
    return 'unavailable';
  }
  // (a login page or an error page is not the file)
  if (!res.ok || res.redirected || !res.body || /text\/html/i.test(res.headers.get('content-type') ?? '')) {
    void res.body?.cancel().catch(() => undefined);
    return 'unavailable';
  }
  const r = await readInParts(res.body.getReader(), PART_BYTES, size, onPart);
  return r.stopped && r.bytes <= size ? 'cancelled' : r.bytes;
}

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
