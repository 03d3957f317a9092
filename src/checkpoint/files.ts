// How the checkpoint loader reads files: by path, whole or a byte range, so it runs in a Node
// worker (nodeFiles.ts) and, later, on the web (over vscode.workspace.fs) without knowing which.
// Ranged reads let a multi-GB checkpoint be read tensor by tensor, never as one buffer. `locate`
// says where a name really is (symbolic links followed), so that nothing a checkpoint folder names
// is read from outside it (inside.ts).

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
  /** Whether a path is absolute on this host (Node's path.isAbsolute: "C:\\x" is not on POSIX); absent: told from the text (paths.ts). */
  isAbsolute?(p: string): boolean;
  /**
   * Where `name` (relative, '/'-separated, no '..') under `root` really is, every symbolic link
   * on the way followed; nothing is opened.
   */
  locate(root: string, name: string): Promise<Located>;
}

export type Located =
  /** `root` and the file (or folder) as absolute paths with no link left in them. */
  | { readonly kind: 'found'; readonly root: string; readonly real: string }
  /** Nothing there (or a link to nothing). */
  | { readonly kind: 'missing' }
  /** `at` (root + a part of `name`) is a symbolic link, and this host cannot tell where it leads (the web host). */
  | { readonly kind: 'link'; readonly at: string };
