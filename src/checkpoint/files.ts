// How the checkpoint loader reads files: by path, whole or a byte range, so it runs in a Node
// worker (nodeFiles.ts) and, later, on the web (over vscode.workspace.fs) without knowing which.
// Ranged reads let a multi-GB checkpoint be read tensor by tensor, never as one buffer.

export interface CheckpointFiles {
  /** The file's size in bytes, or null when there is no such file. */
  size(path: string): Promise<number | null>;
  /**
   * Bytes [start, end) of a file (from `start` to the end without `end`; the whole file without
   * either). A missing file, or one that ends before `end`, is a CheckpointError.
   */
  read(path: string, start?: number, end?: number): Promise<Uint8Array>;
  /**
   * Bytes [start, start + into.length) of a file, written into `into` (where a tensor is to be
   * held: no buffer in between, which the allocator may keep long after). Optional.
   */
  readInto?(path: string, start: number, into: Uint8Array): Promise<void>;
  /** `folder` + separator + `name`, in the path style of the folder. */
  join(folder: string, name: string): string;
}
