// A stage's rows in a buffer with room for more, so that a token appended writes its row after
// the last and the earlier rows are not copied (at 1B, every kept stage's rows are about 130 MB:
// copying them was half an appended token's time). Every view handed out stays as it was: each
// begins at the buffer's start, rows are written only past the buffer's fill mark, and only for
// the view that ends at that mark. Any other (a stage whose last tokens are replaced, a second
// token appended to a stage another append already extended) gets a buffer of its own. A run's
// row-by-row stages are made with room too (StageContext.rows), so the first token typed after a
// full forward writes in place as well (at 1B: 185 → 130 ms).
//
// The room is not in runSize.ts's count (a run's stages as the plan shapes them): a run holds at
// most a quarter more, or 8 rows a stage, within the half of memory a run leaves free; a large
// buffer's room is pages never touched until a row is written there.
//
// Shapes: a view is [T, W] (T rows of W numbers); `previous` its first T0 rows.

/** Numbers written into each buffer (its fill mark): views of it end at or before this. */
const filled = new WeakMap<ArrayBufferLike, number>();

/** Rows of room a new buffer has past the T asked for: 8, or a quarter more for a long input. */
export function roomRows(T: number): number {
  return Math.max(8, Math.ceil(T / 4));
}

/** A new [T, W] view with roomRows(T) rows to spare past it, its fill mark at T rows. */
export function withRoom(T: number, W: number): Float32Array {
  const room = new ArrayBuffer(4 * (T + roomRows(T)) * W);
  filled.set(room, T * W);
  return new Float32Array(room, 0, T * W);
}

/**
 * [T, W]: `previous`'s first T0 rows (T0·W numbers), then `fresh`'s first T − T0. Written in
 * place after `previous` when it is the view that ends at its buffer's fill mark and the buffer
 * has room; else into a new buffer with roomRows(T) rows to spare.
 */
export function appendRows(previous: Float32Array, T0: number, fresh: Float32Array, T: number, W: number): Float32Array {
  const keep = T0 * W;
  const n = T * W;
  if (previous.length < keep || fresh.length < n - keep) throw new Error(`appendRows: [${T0}, ${W}] kept of ${previous.length} numbers, [${T - T0}, ${W}] new of ${fresh.length}`);
  const buf = previous.buffer;
  if (previous.byteOffset === 0 && previous.length === keep && filled.get(buf) === keep && buf.byteLength >= 4 * n) {
    const out = new Float32Array(buf, 0, n);
    out.set(fresh.subarray(0, n - keep), keep);
    filled.set(buf, n);
    return out;
  }
  const out = withRoom(T, W);
  out.set(previous.subarray(0, keep));
  out.set(fresh.subarray(0, n - keep), keep);
  return out;
}

/** Whether `held`'s numbers are the leading numbers of `now` by construction: two views of one row buffer (whose rows are never written again). */
export function leadingView(held: Float32Array, now: Float32Array): boolean {
  return held.buffer === now.buffer && filled.has(held.buffer) && held.byteOffset === 0 && now.byteOffset === 0 && held.length <= now.length;
}
