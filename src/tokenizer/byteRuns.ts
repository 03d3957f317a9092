// The input's tokens decoded together, as the tokenizer's decoder joins their bytes: a character
// whose UTF-8 bytes are split over tokens (SentencePiece's `<0xE3>` `<0x81>` `<0xAE>`, GPT-2's
// pieces of `の`) is shown whole in each of its tokens' labels, marked with the bytes of it the
// token holds (`の 1/3`); a byte that no character takes even with its neighbours stays `<E3>`.
//
// The labels are read back by the panel (webview/lenses/byteLabels.ts): labels never hold a space
// (visible() shows it as `·`), so the ` 1/3` after a label is ours alone.

import { visible } from './tokenizer';

/** What a token holds of the text. */
export type Piece =
  /** Whole characters of its own. */
  | { readonly kind: 'text'; readonly text: string }
  /** Bytes `from`..`to` (from 1) of the `of` bytes of a character that other tokens hold the rest of. */
  | { readonly kind: 'shared'; readonly char: string; readonly from: number; readonly to: number; readonly of: number }
  /** A byte that is part of no character. */
  | { readonly kind: 'byte'; readonly byte: number };

/**
 * Each token's pieces, its bytes decoded with its neighbours' as UTF-8; null for a token with no
 * bytes known (an id outside the vocabulary), which no character crosses.
 */
export function decodeRuns(bytes: readonly (Uint8Array | null)[]): (Piece[] | null)[] {
  const out: (Piece[] | null)[] = bytes.map((b) => (b ? [] : null));
  let start = 0;
  for (let t = 0; t <= bytes.length; t++) {
    if (t < bytes.length && bytes[t]) continue;
    if (t > start) decodeRun(bytes as Uint8Array[], start, t, out as Piece[][]);
    start = t + 1;
  }
  return out;
}

function decodeRun(bytes: readonly Uint8Array[], from: number, to: number, out: Piece[][]): void {
  const flat: number[] = [];
  const owner: number[] = [];
  for (let t = from; t < to; t++) for (const b of bytes[t]) (flat.push(b), owner.push(t));
  for (let p = 0; p < flat.length;) {
    const n = charLength(flat, p);
    if (n === 0) {
      out[owner[p]].push({ kind: 'byte', byte: flat[p] });
      p++;
      continue;
    }
    const char = String.fromCodePoint(codePoint(flat, p, n));
    if (owner[p] === owner[p + n - 1]) addText(out[owner[p]], char);
    else {
      for (let i = 0; i < n;) {
        let j = i;
        while (j + 1 < n && owner[p + j + 1] === owner[p + i]) j++;
        out[owner[p + i]].push({ kind: 'shared', char, from: i + 1, to: j + 1, of: n });
        i = j + 1;
      }
    }
    p += n;
  }
}

function addText(pieces: Piece[], text: string): void {
  const last = pieces[pieces.length - 1];
  if (last?.kind === 'text') pieces[pieces.length - 1] = { kind: 'text', text: last.text + text };
  else pieces.push({ kind: 'text', text });
}

/**
 * The length of the well-formed UTF-8 character at `p` (Unicode's table 3-7: no overlong forms,
 * no surrogates, nothing past U+10FFFF), 0 when there is none there.
 */
export function charLength(b: ArrayLike<number>, p: number): number {
  const lead = b[p];
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) n = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    if (lead === 0xe0) lo = 0xa0;
    if (lead === 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    if (lead === 0xf0) lo = 0x90;
    if (lead === 0xf4) hi = 0x8f;
  } else return 0;
  for (let i = 1; i < n; i++) {
    const c = b[p + i];
    if (c === undefined || c < (i === 1 ? lo : 0x80) || c > (i === 1 ? hi : 0xbf)) return 0;
  }
  return n;
}

function codePoint(b: ArrayLike<number>, p: number, n: number): number {
  if (n === 1) return b[p];
  let cp = b[p] & (0xff >> (n + 1));
  for (let i = 1; i < n; i++) cp = (cp << 6) | (b[p + i] & 0x3f);
  return cp;
}

/** A token's label from its pieces: `の 1/3`, `·の 1-2/3`; its own label when it shares no character. */
export function pieceLabel(pieces: readonly Piece[] | null, own: string): string {
  if (!pieces || !pieces.some((p) => p.kind === 'shared')) return own;
  let text = '';
  const marks: string[] = [];
  for (const p of pieces) {
    if (p.kind === 'text') text += visible(p.text, false);
    else if (p.kind === 'byte') text += `<${p.byte.toString(16).toUpperCase().padStart(2, '0')}>`;
    else {
      text += visible(p.char, false);
      marks.push(`${p.from === p.to ? p.from : `${p.from}-${p.to}`}/${p.of}`);
    }
  }
  return `${text} ${marks.join(' ')}`;
}

/**
 * The input's labels, its tokens decoded together (`vocab`: each id's own label). Without a
 * tokenizer that knows its tokens' bytes, the labels are the vocabulary's.
 */
export function sequenceLabels(ids: readonly number[], tok: object | null, vocab: readonly string[]): string[] {
  const own = ids.map((id) => vocab[id] ?? `#${id}`);
  const bytes = (tok as { bytes?: unknown } | null)?.bytes; // (resolve's PromptTokenizer does not promise it)
  if (typeof bytes !== 'function') return own;
  const bytesOf = (id: number): Uint8Array | null => bytes.call(tok, id) as Uint8Array | null;
  const pieces = decodeRuns(ids.map((id) => bytesOf(id)));
  return own.map((l, t) => pieceLabel(pieces[t], l));
}
