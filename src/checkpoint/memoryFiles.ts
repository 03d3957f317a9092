// Checkpoint files held in memory, by path: tests, and checkpoints made on the fly. The map is read
// live (a test may add a file after the loader first looked), and reads are views, not copies.
// `links` are symbolic links ('/'-paths → their target, absolute or relative to the link's folder),
// followed by every read as a file system would; a folder is there when a file or link is under it.

import { CheckpointError } from './errors';
import type { CheckpointFiles, Located } from './files';

export function memoryFiles(files: ReadonlyMap<string, Uint8Array>, links: ReadonlyMap<string, string> = new Map()): CheckpointFiles {
  const file = (p: string): Uint8Array | undefined => {
    if (links.size === 0) return files.get(p);
    const real = realPath(p, links);
    return real === null ? undefined : files.get(real);
  };
  const exists = (p: string): boolean => files.has(p) || [...files.keys(), ...links.keys()].some((k) => k.startsWith(`${p}/`));
  return {
    size: async (p) => file(p)?.length ?? null,
    read: async (p, start = 0, end) => {
      const f = file(p);
      if (!f) throw new CheckpointError(`${p} is missing`, { file: p });
      const stop = end ?? f.length;
      if (stop > f.length) throw new CheckpointError(`${p} ended at byte ${f.length}, before ${stop}`, { file: p });
      return f.subarray(Math.min(start, stop), stop);
    },
    join: (folder, name) => `${folder.replace(/[\\/]+$/, '')}/${name}`,
    locate: async (root, name): Promise<Located> => {
      const r = realPath(root, links);
      const real = realPath(`${root.replace(/\/+$/, '')}/${name}`, links);
      return r !== null && real !== null && exists(r) && exists(real) ? { kind: 'found', root: r, real } : { kind: 'missing' };
    },
  };
}

/** An absolute '/'-path with every link in it followed (null: links in a loop). */
function realPath(p: string, links: ReadonlyMap<string, string>, depth = 0): string | null {
  if (depth > 40) return null;
  let at = '';
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      at = at.slice(0, Math.max(0, at.lastIndexOf('/')));
      continue;
    }
    at = `${at}/${part}`;
    const target = links.get(at);
    if (target === undefined) continue;
    const next = realPath(target.startsWith('/') ? target : `${at.slice(0, at.lastIndexOf('/'))}/${target}`, links, depth + 1);
    if (next === null) return null;
    at = next;
  }
  return at || '/';
}
