// The checkpoint loader's files on a Node file system (the compute worker, the command line): the
// one module of src/checkpoint that imports Node built-ins.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { errorDetail } from '../common/faultText';
import { CheckpointError, named } from './errors';
import type { CheckpointFiles } from './files';

export const nodeFiles: CheckpointFiles = {
  async size(p) {
    try {
      const st = await fsp.stat(p);
      return st.isFile() ? st.size : null;
    } catch {
      return null;
    }
  },
  async read(p, start = 0, end) {
    return withFile(p, async (fh) => {
      const stop = end ?? (await fh.stat()).size;
      // a fresh buffer per read: byteOffset 0, so an F32 tensor can be a view of it
      const out = new Uint8Array(Math.max(0, stop - start));
      await readFully(fh, p, start, out);
      return out;
    });
  },
  readInto: (p, start, into) => withFile(p, (fh) => readFully(fh, p, start, into)),
  join: (folder, name) => path.join(folder, name),
  isAbsolute: (p) => path.isAbsolute(p),
  async locate(root, name) {
    try {
      // (a dangling link, or a part of the way that is not there: nothing to read)
      return { kind: 'found', root: await fsp.realpath(root), real: await fsp.realpath(path.join(root, name)) };
    } catch {
      return { kind: 'missing' };
    }
  },
};

async function withFile<T>(p: string, use: (fh: fsp.FileHandle) => Promise<T>): Promise<T> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(p, 'r');
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new CheckpointError(code === 'ENOENT' ? `${named(p)} is missing` : `${named(p)} cannot be read (${code ?? errorDetail(e)})`, { file: p });
  }
  try {
    return await use(fh);
  } finally {
    await fh.close();
  }
}

// Bytes [start, start + out.length) into out; a file that ends first is a CheckpointError.
async function readFully(fh: fsp.FileHandle, p: string, start: number, out: Uint8Array): Promise<void> {
  let at = 0;
  while (at < out.length) {
    const { bytesRead } = await fh.read(out, at, out.length - at, start + at);
    if (bytesRead === 0) throw new CheckpointError(`${path.basename(p)} ended at byte ${start + at}, before ${start + out.length} (was it truncated while being read?)`, { file: p });
    at += bytesRead;
  }
}
