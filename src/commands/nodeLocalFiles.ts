// The disk, where the extension host has one (desktop, and remote hosts over SSH or WSL): large
// files streamed chunk by chunk to a temporary file renamed into place. Given to New Model File…
// by the Node entry (src/extension.ts); the web worker host has none (src/extensionWeb.ts). The
// Node edge of localFiles.ts.
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cancelled, type LocalFiles } from './localFiles';

export const nodeLocalFiles: LocalFiles = {
  homedir: () => os.homedir(),
  join: (a, b) => path.join(a, b),
  dirname: (p) => path.dirname(p),
  mkdir: async (dir) => void (await fsp.mkdir(dir, { recursive: true })),
  writeFile: (file, text) => fsp.writeFile(file, text),
  async writeChunks(file, chunks, progress) {
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
    let done = 0;
    const fh = await fsp.open(tmp, 'w');
    let ok = false;
    try {
      for (const chunk of chunks) {
        const { bytesWritten } = typeof chunk === 'string' ? await fh.write(chunk) : await fh.write(chunk);
        done += bytesWritten;
        if (!progress(done)) throw new Cancelled();
      }
      await fh.close();
      try {
        await fsp.rename(tmp, file);
      } catch {
        // e.g. Windows, when the target is held open: copy over it instead.
        await fsp.copyFile(tmp, file);
        await fsp.unlink(tmp);
      }
      ok = true;
      return done;
    } finally {
      if (!ok) {
        await fh.close().catch(() => undefined);
        await fsp.unlink(tmp).catch(() => undefined);
      }
    }
  },
};
