// A file being written is read only once its writing is over: after a change, its size and
// modification time are looked at every `quietMs`, and only when two looks in a row agree (and no
// change came between) is it taken as complete. A 83 MB model saved over tens of seconds is thus
// never read half-written, and no problem of a partial write is ever reported.

export interface FileStamp { readonly size: number; readonly mtime: number }

export class Settle {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private last: FileStamp | null = null;
  private disposed = false;

  constructor(
    private readonly stat: () => Promise<FileStamp | null>,
    private readonly complete: () => void,
    private readonly quietMs = 500,
  ) {}

  /** The file changed (a watcher's event): wait for it to be complete again. */
  changed(): void {
    this.last = null;
    this.arm();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), this.quietMs);
  }

  private async check(): Promise<void> {
    this.timer = null;
    const now = await this.stat();
    if (this.disposed || this.timer) return; // (a change came while we looked: its own wait runs)
    const same = now !== null && this.last !== null && now.size === this.last.size && now.mtime === this.last.mtime;
    if (same) {
      this.last = null;
      this.complete();
      return;
    }
    this.last = now;
    this.arm();
  }
}
