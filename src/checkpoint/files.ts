// How the checkpoint loader reads files: by path, whole or a byte range, so it runs in a Node
// worker (nodeFiles.ts) and, later, on the web (over vscode.workspace.fs) without knowing which.

export interface CheckpointFiles {
  /** The file's size in bytes, or null when there is no such file. */
  size(path: string): Promise<number | null>;
  /** Bytes [start, end) of a file (the whole file without them). */
  read(path: string, start?: number, end?: number): Promise<Uint8Array>;
  /** `folder` + `/` + `name`, in the path style of the folder. */
  join(folder: string, name: string): string;
}

/** Files held in memory, by path (tests, and checkpoints made on the fly). */
export function memoryFiles(files: ReadonlyMap<string, Uint8Array>): CheckpointFiles {
  return {
    size: async (p) => files.get(p)?.length ?? null,
    read: async (p, start = 0, end) => {
      const f = files.get(p);
      if (!f) throw Object.assign(new Error(`no such file: ${p}`), { code: 'ENOENT' });
      return f.subarray(start, end ?? f.length);
    },
    join: (folder, name) => `${folder.replace(/[\\/]+$/, '')}/${name}`,
  };
}
