// What the JSONC parser reads: a text, a large document's text in chunks, or a file's bytes as read
// from disk (UTF-8); every scan reads bytes (one per UTF-16 unit of a text, so offsets agree).

import { TextChunks } from './textChunks';

/** A text, a large document's text in chunks, or a file's bytes as read from disk (UTF-8). */
export type Source = string | TextChunks | Uint8Array;

const NON_ASCII = /[^\x00-\x7f]/g;
// (ignoreBOM: a U+FEFF inside the text is text; the parser skips the file's own mark itself)
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A string as bytes, one per UTF-16 unit, so offsets are the same: ASCII stays itself, anything
 * else becomes 0x80, which no JSON token uses (its text is always sliced from the string itself).
 */
export function asciiBytes(text: string): Uint8Array {
  const B = (globalThis as { Buffer?: { from(s: string, enc: string): Uint8Array; byteLength(s: string, enc: string): number } }).Buffer;
  if (!B) {
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      out[i] = c < 0x80 ? c : 0x80;
    }
    return out;
  }
  const out = B.from(text, 'latin1'); // one byte per unit, at memcpy speed
  if (B.byteLength(text, 'utf8') !== text.length) for (const m of text.matchAll(NON_ASCII)) out[m.index!] = 0x80;
  return out;
}

/** The text between two offsets of a source. */
export function sourceSlice(src: Source, a: number, b: number): string {
  if (typeof src === 'string' || src instanceof TextChunks) return src.slice(a, b);
  return utf8.decode(src.subarray(a, b));
}

/** The bytes every scan reads: a string mapped 1:1 (asciiBytes), chunks likewise, bytes as they are. */
export function sourceBytes(src: Source): Uint8Array {
  if (typeof src === 'string') return asciiBytes(src);
  if (src instanceof Uint8Array) return src;
  const out = new Uint8Array(src.length);
  src.forEachChunk((c, at) => out.set(asciiBytes(c), at));
  return out;
}
