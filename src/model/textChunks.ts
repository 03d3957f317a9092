// A document's text as a list of ~64 KB strings. One JS string for an 80 MB document would be
// copied whole by V8 after every keystroke (an edit makes a rope, and the next read flattens it:
// ~40 ms at 83 MB); here an edit rewrites one chunk and shifts an array of offsets.
import { lastAtOrBelow } from '../common/search';

export class TextChunks {
  static readonly CHUNK = 1 << 16;
  private chunks: string[] = [];
  /** Offset of the first character of each chunk. */
  private starts: number[] = [];
  private len = 0;

  /** `size`: the chunk length (tests use tiny ones to cross chunk boundaries often). */
  constructor(text: string, private readonly size = TextChunks.CHUNK) {
    if (text.length === 0) {
      this.starts.push(0);
      this.chunks.push('');
    }
    for (let a = 0; a < text.length; a += size) {
      this.starts.push(a);
      this.chunks.push(text.slice(a, a + size));
    }
    this.len = text.length;
  }

  get length(): number {
    return this.len;
  }

  /** The chunk holding `offset` (the last chunk for the end of the text). */
  private find(offset: number): number {
    return lastAtOrBelow(this.starts, offset);
  }

  charCodeAt(i: number): number {
    if (i < 0 || i >= this.len) return NaN;
    const k = this.find(i);
    return this.chunks[k].charCodeAt(i - this.starts[k]);
  }

  slice(a: number, b: number = this.len): string {
    a = Math.max(0, Math.min(a, this.len));
    b = Math.max(a, Math.min(b, this.len));
    if (a === b) return '';
    const k = this.find(a);
    const ka = a - this.starts[k];
    if (b - this.starts[k] <= this.chunks[k].length) return this.chunks[k].slice(ka, b - this.starts[k]);
    const parts = [this.chunks[k].slice(ka)];
    for (let j = k + 1; j < this.chunks.length && this.starts[j] < b; j++) parts.push(this.chunks[j].slice(0, b - this.starts[j]));
    return parts.join('');
  }

  /** Replaces `length` characters at `offset` with `text`. */
  edit(offset: number, length: number, text: string): void {
    const k = this.find(offset);
    const end = offset + length;
    let last = k;
    while (last + 1 < this.chunks.length && this.starts[last + 1] < end) last++;
    const base = this.starts[k];
    const joined = last === k ? this.chunks[k] : this.chunks.slice(k, last + 1).join('');
    const edited = joined.slice(0, offset - base) + text + joined.slice(end - base);
    // Re-split what changed if it grew or shrank past a sensible size; else it stays one chunk.
    const pieces: string[] = [];
    if (edited.length > 2 * this.size || edited.length === 0 || last !== k) {
      for (let a = 0; a < edited.length; a += this.size) pieces.push(edited.slice(a, a + this.size));
    } else {
      pieces.push(edited);
    }
    if (pieces.length === 0 && this.chunks.length === last - k + 1) pieces.push('');
    const starts: number[] = [];
    let at = base;
    for (const p of pieces) {
      starts.push(at);
      at += p.length;
    }
    this.chunks.splice(k, last - k + 1, ...pieces);
    this.starts.splice(k, last - k + 1, ...starts);
    const delta = text.length - length;
    for (let j = k + pieces.length; j < this.starts.length; j++) this.starts[j] += delta;
    this.len += delta;
  }

  toString(): string {
    return this.chunks.join('');
  }

  /** Calls f with each chunk and its start offset, in order. */
  forEachChunk(f: (chunk: string, start: number) => void): void {
    this.chunks.forEach((c, i) => f(c, this.starts[i]));
  }
}
