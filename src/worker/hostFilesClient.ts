// The checkpoint loader's files in a Web Worker: asked of the extension host (src/compute/
// hostFiles.ts), which reads them with vscode.workspace.fs. A file comes whole (workspace.fs has
// no ranged read) and is kept while the loader reads its tensors (their views share its buffer),
// then let go: what the params keep of it is all that stays. Where a name really is (`locate`) the
// host answers too.
import { CheckpointError } from '../checkpoint/errors';
import type { CheckpointFiles } from '../checkpoint/files';
import type { FromWorker, ToWorker } from '../protocol/worker';

/** How long a file read stays cached for the next ranged read of it. */
const KEEP_MS = 10_000;

export function hostFilesClient(post: (msg: FromWorker) => void): { files: CheckpointFiles; reply(msg: Extract<ToWorker, { type: 'fsReply' }>): void; readWhole(path: string): Promise<Uint8Array> } {
  let next = 1;
  const pending = new Map<number, (m: Extract<ToWorker, { type: 'fsReply' }>) => void>();
  const cache = new Map<string, { bytes: Promise<Uint8Array>; timer: ReturnType<typeof setTimeout> | null }>();
  const ask = (op: 'size' | 'read' | 'locate', path: string, name = ''): Promise<Extract<ToWorker, { type: 'fsReply' }>> => new Promise((res) => {
    const id = next++;
    pending.set(id, res);
    post(op === 'locate' ? { type: 'fs', id, op, path, name } : { type: 'fs', id, op, path });
  });
  const whole = (path: string): Promise<Uint8Array> => {
    let c = cache.get(path);
    if (!c) {
      const bytes = ask('read', path).then((r) => {
        if (!r.bytes) {
          cache.delete(path);
          throw new CheckpointError(r.error === 'FileNotFound' ? `${path} is missing` : `${path} cannot be read (${r.error ?? 'unknown error'})`, { file: path });
        }
        return new Uint8Array(r.bytes);
      });
      c = { bytes, timer: null };
      cache.set(path, c);
    }
    if (c.timer) clearTimeout(c.timer);
    const entry = c;
    entry.timer = setTimeout(() => {
      if (cache.get(path) === entry) cache.delete(path);
    }, KEEP_MS);
    return c.bytes;
  };
  return {
    files: {
      async size(path) {
        const r = await ask('size', path);
        return r.size ?? null;
      },
      async read(path, start = 0, end) {
        const b = await whole(path);
        const stop = end ?? b.length;
        if (stop > b.length) throw new CheckpointError(`${path.split('/').pop()} ended at byte ${b.length}, before ${stop}`, { file: path });
        return b.subarray(start, stop);
      },
      join: (folder, name) => `${folder.replace(/\/+$/, '')}/${name}`,
      // (the host stats each part of the way: workspace.fs says a path is a link, not where it leads)
      async locate(root, name) {
        return (await ask('locate', root, name)).located ?? { kind: 'missing' };
      },
    },
    reply(msg) {
      pending.get(msg.id)?.(msg);
      pending.delete(msg.id);
    },
    async readWhole(path) {
      const r = await ask('read', path);
      if (!r.bytes) throw Object.assign(new Error(r.error ?? 'cannot read'), { code: r.error });
      return new Uint8Array(r.bytes);
    },
  };
}
