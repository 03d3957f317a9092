// Labels that hold bytes, read back: a byte the tokenizer shows as `<E3>` (src/tokenizer/tokenizer.ts
// visible()) and the input's characters split over tokens, `の 1/3` (src/tokenizer/byteRuns.ts:
// labels hold no space, so the ` 1/3` after one is that module's). Gives the hovers their words and
// a predicted byte the character it completes, where the input began one.

const MARKS = /^(.*?)((?: \d+(?:-\d+)?\/\d+)+)$/u;
const HEX = /<([89A-F][0-9A-F])>/g;
const encoder = new TextEncoder();

interface Mark { readonly from: number; readonly to: number; readonly of: number }

function marks(label: string): { text: string; marks: Mark[] } | null {
  const m = MARKS.exec(label);
  if (!m) return null;
  return {
    text: m[1],
    marks: m[2].trim().split(' ').map((s) => {
      const [range, of] = s.split('/');
      const [from, to = from] = range.split('-');
      return { from: Number(from), to: Number(to), of: Number(of) };
    }),
  };
}

const hex = (b: number): string => b.toString(16).toUpperCase().padStart(2, '0');

/** The last character of a label's text (`<U+00A0>` read as its character). */
function lastChar(text: string): string {
  const u = /<U\+([0-9A-F]{4,6})>$/.exec(text);
  if (u) return String.fromCodePoint(parseInt(u[1], 16));
  return [...text].pop() ?? '';
}

/** What an input token's label says of its bytes, for its hover; null for a label of whole characters. */
export function inputTokenNote(label: string): string | null {
  const lines: string[] = [];
  const m = marks(label);
  if (m) {
    for (const k of m.marks) {
      const range = k.from === k.to ? `byte ${k.from}` : `bytes ${k.from}–${k.to}`;
      lines.push(`${range} of the ${k.of} of a character the tokens beside it hold the rest of`);
    }
  }
  const stray = [...(m?.text ?? label).matchAll(HEX)].map((x) => x[1]);
  if (stray.length) lines.push(`${stray.length === 1 ? 'byte' : 'bytes'} ${stray.join(' ')}: part of a character the input does not complete`);
  return lines.length ? lines.join('; ') : null;
}

/** What a predicted word's label says of its bytes: null unless it holds bytes of a character. */
export function wordNote(label: string): string | null {
  const bytes = [...label.matchAll(HEX)].map((x) => x[1]);
  if (!bytes.length) return null;
  return `${label}: ${bytes.length === 1 ? 'a byte' : 'bytes'} of a character (UTF-8), not a character on its own`;
}

/**
 * After each of the input's tokens, the bytes of a character it has begun and not ended (none:
 * empty): from a label `の 1/3`, or from bytes no character took (`<E3>` `<81>` at the input's end).
 */
export function pendingBytes(labels: readonly string[]): number[][] {
  let stray: number[] = []; // the bytes no character took at the end of the tokens so far
  return labels.map((label) => {
    const m = marks(label);
    if (m) {
      stray = [];
      const last = m.marks[m.marks.length - 1];
      return last.to >= last.of ? [] : [...encoder.encode(lastChar(m.text))].slice(0, last.to);
    }
    const tail = /((?:<[89A-F][0-9A-F]>)+)$/.exec(label);
    const bytes = tail ? [...tail[1].matchAll(HEX)].map((x) => parseInt(x[1], 16)) : [];
    stray = tail && tail.index === 0 ? [...stray, ...bytes] : bytes; // (a label of bytes alone goes on from the one before)
    return unfinished(stray);
  });
}

/** The character begun at the end of `b` and not ended: its lead and the continuations after it. */
function unfinished(b: readonly number[]): number[] {
  for (let i = Math.max(0, b.length - 3); i < b.length; i++) {
    const n = b[i] >= 0xf5 ? 0 : b[i] >= 0xf0 ? 4 : b[i] >= 0xe0 ? 3 : b[i] >= 0xc2 ? 2 : 0;
    if (n > b.length - i && b.slice(i + 1).every((c) => c >= 0x80 && c <= 0xbf)) return b.slice(i);
  }
  return [];
}

/**
 * A predicted word after `pending` (the input's unfinished character): `…の` when its leading bytes
 * complete it (the rest of the word after it); null when they do not.
 */
export function completedWord(pending: readonly number[], word: string): string | null {
  if (!pending.length) return null;
  const lead = /^((?:<[89A-F][0-9A-F]>)+)/.exec(word);
  if (!lead) return null;
  const bytes = [...lead[1].matchAll(HEX)].map((x) => parseInt(x[1], 16));
  const n = pending[0] >= 0xf0 ? 4 : pending[0] >= 0xe0 ? 3 : 2;
  const need = n - pending.length;
  if (bytes.length < need) return null;
  let char: string;
  try {
    char = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from([...pending, ...bytes.slice(0, need)]));
  } catch {
    return null;
  }
  if ([...char].length !== 1) return null;
  const rest = bytes.slice(need).map((b) => `<${hex(b)}>`).join('') + word.slice(lead[1].length);
  return `…${char}${rest}`;
}

/**
 * A word predicted after `tokens[pos]` as people read it: `…の` where its bytes complete the
 * character the input began there, else its label as it is (`<E3>` stays a byte: wordNote says so).
 */
export function predictedWordAt(tokens: readonly string[], pos: number, label: string): string {
  const pending = pendingBytes(tokens)[pos] ?? [];
  return completedWord(pending, label) ?? label;
}

/** A sentence for a caption when some of `words` are bytes no character took (empty when none are). */
export function byteNote(words: readonly string[]): string {
  const bytes = words.filter((w) => /<[89A-F][0-9A-F]>/.test(w) && !w.startsWith('…'));
  if (!bytes.length) return '';
  return ` ${bytes.map((w) => `"${w}"`).join(', ')} ${bytes.length === 1 ? 'is' : 'are'} bytes of a character (UTF-8) the word after would complete, not a character on its own.`;
}
