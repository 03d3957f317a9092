// A byte stream (a fetch body) cut into parts of a fixed size, each a buffer of its own to be
// transferred to the worker: fewer, larger messages than the stream's own chunks (64 KB to 2 MB),
// and none of them shares a buffer with another.

export interface ByteReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

/**
 * Reads `reader` to its end, handing `onPart(at, part)` parts of `partBytes` (the last one
 * shorter); stops (and cancels the stream) when onPart returns false, or when more than `limit`
 * bytes come (then before handing on the part that would hold them). Returns how many bytes came
 * and whether it stopped before the end.
 */
export async function readInParts(reader: ByteReader, partBytes: number, limit: number, onPart: (at: number, part: Uint8Array) => boolean): Promise<{ bytes: number; stopped: boolean }> {
  let part = new Uint8Array(partBytes);
  let fill = 0;
  let at = 0;
  const flush = (): boolean => {
    if (fill === 0) return true;
    const out = fill === part.length ? part : part.slice(0, fill);
    const ok = onPart(at, out);
    at += fill;
    part = new Uint8Array(partBytes);
    fill = 0;
    return ok;
  };
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    let chunk = r.value ?? new Uint8Array(0);
    if (at + fill + chunk.length > limit) {
      // (not the file it was said to be: nothing more is handed on)
      await reader.cancel().catch(() => undefined);
      return { bytes: at + fill + chunk.length, stopped: true };
    }
    while (chunk.length > 0) {
      const n = Math.min(chunk.length, part.length - fill);
      part.set(chunk.subarray(0, n), fill);
      fill += n;
      chunk = chunk.subarray(n);
      if (fill === part.length && !flush()) {
        await reader.cancel().catch(() => undefined);
        return { bytes: at, stopped: true };
      }
    }
  }
  if (!flush()) return { bytes: at, stopped: true };
  return { bytes: at, stopped: false };
}
