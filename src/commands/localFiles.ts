// The disk New Model File… writes to, where the extension host has one (nodeLocalFiles.ts, given
// by the Node entry); the web worker host has none. No Node import here: the web build imports it.

export interface LocalFiles {
  homedir(): string;
  join(a: string, b: string): string;
  dirname(p: string): string;
  mkdir(dir: string): Promise<void>;
  writeFile(file: string, text: string): Promise<void>;
  /**
   * Chunks (text as UTF-8, or bytes) to a temporary file beside `file`, renamed into place when
   * complete; the host's thread is free between two chunks, and a cancel (`progress` false) or a
   * failure leaves nothing.
   */
  writeChunks(file: string, chunks: Iterable<string | Uint8Array>, progress: (bytesDone: number) => boolean): Promise<number>;
}

/** Thrown when the user cancels a write (its progress said stop): nothing is left behind. */
export class Cancelled extends Error {}
