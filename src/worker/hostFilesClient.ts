// The checkpoint loader's files in a Web Worker: asked of the extension host (src/compute/
// hostFiles.ts), which reads them with what it has (workspace.fs has no ranged read): a file comes
// whole, a large one in parts as it is read (arrivingFile.ts), once per open of a checkpoint. The
// ranges the loader reads are views of it, answered as soon as they are in; the file is let go
// KEEP_MS after it is complete and no longer read: what the params keep of it is all that stays.
import { CheckpointError, named } from '../checkpoint/errors';
import { ReadCancelled } from '../checkpoint/readProgress';
import { formatBytes } from '../core/runSize';
import type { CheckpointFiles } from '../checkpoint/files';
import type { FromWorker, ToWorker } from '../protocol/worker';
import { ArrivingFile } from './arrivingFile';
import { errorDetail } from '../common/faultText';

/** How long a file read stays held after its last ranged read (never while it is still coming). */
export const KEEP_MS = 10_000;

type FsReply = Extract<ToWorker, { type: 'fsReply' }>;
type FsData = Extract<ToWorker, { type: 'fsData' }>;

export interface HostFilesClient {
  readonly files: CheckpointFiles;
  /** The host's answers: a size, a whole file, a part, the end of a file in parts, an error. */
  reply(msg: FsReply | FsData): void;
  /** A whole file, not held (a model file read from disk). */
  readWhole(path: string): Promise<Uint8Array>;
}

/**
 * `room`: the bytes a file read whole may take in this worker now (half the memory there is: the
 * weights taken from it are held beside it), and what the memory is in words (the memory probe's);
 * a larger one is refused before the host sends it. Absent: any size is asked for.
 */
export type ReadRoom = () => { readonly bytes: number; readonly what: string };

export function hostFilesClient(post: (msg: FromWorker) => void, keepMs = KEEP_MS, room?: ReadRoom): HostFilesClient {
  let next = 1;
  const sizes = new Map<number, (m: FsReply) => void>();
  const reads = new Map<number, { file: ArrivingFile; path: string; room?: ReturnType<ReadRoom> }>();
  const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

  const ask = (op: 'size' | 'read' | 'locate', path: string, file?: ArrivingFile, name = ''): Promise<FsReply> => new Promise((res) => {
    const id = next++;
    const r = file ? room?.() : undefined;
    if (file) reads.set(id, { file, path, ...(r ? { room: r } : {}) });
    else sizes.set(id, res);
    post(op === 'locate' ? { type: 'fs', id, op, path, name } : { type: 'fs', id, op, path, ...(r ? { limit: Math.floor(r.bytes) } : {}) });
  });
  const readFile = (path: string): ArrivingFile => {
    const file = new ArrivingFile(nameOf(path));
    void ask('read', path, file);
    return file;
  };
  const whole = heldReads(readFile, keepMs);
  return {
    files: {
      async size(path) {
        const r = await ask('size', path);
        return r.size ?? null;
      },
      read: (path, start = 0, end) => whole(path, start, end),
      join: (folder, name) => `${folder.replace(/\/+$/, '')}/${name}`,
      // (the host stats each part of the way: workspace.fs says a path is a link, not where it leads)
      async locate(root, name) {
        return (await ask('locate', root, undefined, name)).located ?? { kind: 'missing' };
      },
    },
    reply(msg) {
      const read = reads.get(msg.id);
      if (msg.type === 'fsData') {
        read?.file.part(msg.at, msg.total, new Uint8Array(msg.bytes));
        return;
      }
      if (!read) {
        sizes.get(msg.id)?.(msg);
        sizes.delete(msg.id);
        return;
      }
      reads.delete(msg.id);
      if (msg.bytes) read.file.whole(new Uint8Array(msg.bytes));
      else if (msg.error === 'TooLarge') read.file.fail(tooLarge(read.path, msg.size ?? 0, read.room));
      else if (msg.error !== undefined) read.file.fail(readError(read.path, msg.error));
      else read.file.end();
    },
    async readWhole(path) {
      const file = readFile(path);
      try {
        return await file.range(0);
      } catch (e) {
        // (the caller tells a missing file by its code, and says which file)
        const code = (e as { code?: string }).code;
        throw Object.assign(new Error(code ?? errorDetail(e)), { code });
      }
    },
  };
}

type HeldFile = { file: ArrivingFile; timer: ReturnType<typeof setTimeout> | null };

/** Ranged reads of files read whole, each held keepMs after it is complete and last read. */
function heldReads(readFile: (path: string) => ArrivingFile, keepMs: number): (path: string, start: number, end?: number) => Promise<Uint8Array> {
  const held = new Map<string, HeldFile>();
  // (the timer starts when the file is complete: a read of 498 MB takes longer than KEEP_MS)
  const keep = (path: string, entry: HeldFile): void => {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (held.get(path) === entry) held.delete(path);
    }, keepMs);
  };
  return async (path: string, start: number, end?: number): Promise<Uint8Array> => {
    let entry = held.get(path);
    if (!entry) {
      entry = { file: readFile(path), timer: null };
      held.set(path, entry);
    }
    const e = entry;
    try {
      return await e.file.range(start, end);
    } catch (err) {
      if (held.get(path) === e) held.delete(path); // (a failed read is tried again next time)
      throw err;
    } finally {
      if (e.file.settled && held.get(path) === e) keep(path, e);
    }
  };
}

/** A file larger than this worker can hold, which the host did not send. */
function tooLarge(path: string, size: number, room: ReturnType<ReadRoom> | undefined): Error {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const room2 = room ? `, and can give it ${formatBytes(room.bytes)} (half of ${room.what}, ${formatBytes(2 * room.bytes)})` : '';
  return Object.assign(new CheckpointError(`${named(name)} is ${formatBytes(size)}: the web extension host holds a checkpoint file whole while it reads its weights (VS Code's file system reads whole files only)${room2}; open it where the extension runs in Node (the desktop, or "remote.extensionKind" "workspace"), or a smaller model`, { file: path }), { code: 'TooLarge' });
}

/**
 * The host's error code (a FileSystemError's, 'Cancelled', or its message) in our words. Its Cancel
 * (the notification of the file it streams) is the read's Cancel, as the Node host's is: the store
 * says it as such, and reads it again when asked (ReadCancelled).
 */
function readError(path: string, code: string): Error {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (code === 'Cancelled') return Object.assign(new ReadCancelled(name, { file: path }), { code });
  const message = code === 'FileNotFound' ? `${named(path)} is missing` : `${named(path)} cannot be read (${code ? errorDetail(new Error(code), 60) : 'unknown error'})`;
  return Object.assign(new CheckpointError(message, { file: path }), { code });
}
