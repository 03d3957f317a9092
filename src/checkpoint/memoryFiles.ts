// Checkpoint files held in memory, by path: tests, and checkpoints made on the fly. The map is read
// live (a test may add a file after the loader first looked), and reads are views, not copies.

import { CheckpointError } from './errors';
import type { CheckpointFiles } from './files';

export function memoryFiles(files: ReadonlyMap<string, Uint8Array>): CheckpointFiles {
  return {
    size: async (p) => files.get(p)?.length ?? null,
    read: async (p, start = 0, end) => {
      const f = files.get(p);
      if (!f) throw new CheckpointError(`${p} is missing`, { file: p });
      const stop = end ?? f.length;
      if (stop > f.length) throw new CheckpointError(`${p} ended at byte ${f.length}, before ${stop}`, { file: p });
      return f.subarray(Math.min(start, stop), stop);
    },
    join: (folder, name) => `${folder.replace(/[\\/]+$/, '')}/${name}`,
  };
}
