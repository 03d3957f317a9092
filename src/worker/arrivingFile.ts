// A file coming to the worker in parts, in order (the web worker host streams a large file: the
// host's workspace.fs has no ranged read). It is held in one buffer of the file's size, and a read
// of a range is answered as soon as that range is in: the checkpoint loader takes the header and
// the first tensors while the rest is still coming.
import { CheckpointError } from '../checkpoint/errors';

interface Waiter {
  readonly start: number;
  /** null: up to the end of the file. */
  readonly end: number | null;
  readonly resolve: (b: Uint8Array) => void;
  readonly reject: (e: Error) => void;
}

export class ArrivingFile {
  private buf: Uint8Array | null = null;
  private got = 0;
  private ended = false;
  private error: Error | null = null;
  private waiters: Waiter[] = [];

  /** `shown`: the file's name in messages. */
  constructor(private readonly shown: string) {}

  /** The whole file read, or failed. */
  get settled(): boolean {
    return this.ended || this.error !== null;
  }

  /** Bytes [at, at + bytes.length) of a file of `total` bytes: the next part. */
  part(at: number, total: number, bytes: Uint8Array): void {
    if (this.settled) return;
    this.buf ??= new Uint8Array(total);
    if (at !== this.got || total !== this.buf.length || at + bytes.length > total) {
      this.fail(new CheckpointError(`${this.shown} came in parts that do not fit (bytes ${at}–${at + bytes.length} of ${total}, after ${this.got} of ${this.buf.length}): was it changed while being read?`, { file: this.shown }));
      return;
    }
    this.buf.set(bytes, at);
    this.got = at + bytes.length;
    this.answer();
  }

  /** The whole file at once (a small one). */
  whole(bytes: Uint8Array): void {
    if (this.settled) return;
    this.buf = bytes;
    this.got = bytes.length;
    this.end();
  }

  /** No more parts: the file is the bytes that came. */
  end(): void {
    if (this.settled) return;
    this.buf ??= new Uint8Array(0);
    if (this.got < this.buf.length) {
      this.fail(new CheckpointError(`${this.shown} ended at byte ${this.got} of ${this.buf.length}: was it changed while being read?`, { file: this.shown }));
      return;
    }
    this.ended = true;
    this.answer();
  }

  fail(e: Error): void {
    if (this.settled) return;
    this.error = e;
    this.buf = null; // (what came is let go at once)
    this.answer();
  }

  /** Bytes [start, end) (to the end of the file without `end`), a view of the held buffer, once they are in. */
  range(start = 0, end?: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ start, end: end ?? null, resolve, reject });
      this.answer();
    });
  }

  private answer(): void {
    const left: Waiter[] = [];
    for (const w of this.waiters) {
      if (this.error) w.reject(this.error);
      else if (w.end !== null && w.end <= this.got) w.resolve(this.buf!.subarray(w.start, w.end));
      else if (this.ended) {
        if (w.end !== null && w.end > this.got) w.reject(new CheckpointError(`${this.shown} ended at byte ${this.got}, before ${w.end}`, { file: this.shown }));
        else w.resolve(this.buf!.subarray(Math.min(w.start, this.got), this.got));
      } else left.push(w);
    }
    this.waiters = left;
  }
}
