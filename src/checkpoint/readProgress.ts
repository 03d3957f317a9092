// How far a checkpoint's weights have been read, and its Cancel. Every byte of weights comes
// through the files' `read`/`readInto` (safetensors.ts reads an F32 tensor in 8 MB parts, F16/BF16
// through a staging buffer's halves), so the files are wrapped: each part read is counted, and a
// cancelled read stops before its next part (between parts of a tensor, not at the tensor's end).

import { CheckpointError } from './errors';
import type { CheckpointFiles } from './files';

/**
 * A read stopped by Cancel: no error of the checkpoint's (the store keeps it apart from failures).
 * `what`: what was being read (the checkpoint; in the web host, the file its host streamed).
 */
export class ReadCancelled extends CheckpointError {
  constructor(what = 'the checkpoint', opts?: { file?: string }) {
    super(`reading ${what} was cancelled: edit this file, or run "FFN Lens: Read Cancelled Checkpoints Again", to read it`, opts);
  }
}

/** Whole percent of `done` of `total` bytes (0 to 100; an empty read is done). */
export function percentOf(done: number, total: number): number {
  if (!(total > 0)) return 100;
  return Math.max(0, Math.min(100, Math.floor((100 * done) / total)));
}

/**
 * Bytes read of `total`, told (`tell(done, total)`) each time a whole percent more is in, so a
 * 16 GB read posts about a hundred messages, not two thousand.
 */
export class ReadMeter {
  private doneBytes = 0;
  private shown = -1;

  constructor(readonly total: number, private readonly tell: (done: number, total: number) => void) {}

  get done(): number {
    return this.doneBytes;
  }

  /** The read began: 0 % told. */
  start(): void {
    this.add(0);
  }

  add(bytes: number): void {
    // (header reads and a tensor read twice never carry it past the total)
    this.doneBytes = Math.min(this.total, this.doneBytes + bytes);
    const pct = percentOf(this.doneBytes, this.total);
    if (pct <= this.shown) return;
    this.shown = pct;
    this.tell(this.doneBytes, this.total);
  }
}

/**
 * `files` with each read counted into `meter` and refused (ReadCancelled) once `cancelled()` says
 * so: the parts under way end, no new one starts.
 */
export function watchedFiles(files: CheckpointFiles, meter: ReadMeter, cancelled: () => boolean): CheckpointFiles {
  const check = (): void => {
    if (cancelled()) throw new ReadCancelled();
  };
  const readInto = files.readInto;
  return {
    size: (path) => files.size(path),
    join: (folder, name) => files.join(folder, name),
    locate: (root, name) => files.locate(root, name),
    read: async (path, start, end) => {
      check();
      const bytes = await files.read(path, start, end);
      check();
      meter.add(bytes.length);
      return bytes;
    },
    ...(readInto ? {
      readInto: async (path: string, start: number, into: Uint8Array): Promise<void> => {
        check();
        await readInto.call(files, path, start, into);
        check();
        meter.add(into.length);
      },
    } : {}),
  };
}
