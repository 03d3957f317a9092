// Text from the user's file, quoted in a message so that every character can be seen: control
// characters as escapes (a key "\u001b[2J" must not clear a terminal), invisible ones (a zero-width
// space, a second byte order mark, a bidi override, an unusual space) as escapes and named, and a
// very long text cut short with its length. Every message that quotes the file's text uses this.
// (No Node built-ins: the webview may use it too.)

/** Characters nobody can see or that a terminal acts on: controls, formats, separators, unusual spaces. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Co}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

const NAMES: Readonly<Record<number, string>> = {
  0x00: 'a NUL character',
  0x08: 'a backspace',
  0x0b: 'a vertical tab',
  0x0c: 'a form feed',
  0x1b: 'an escape character',
  0x7f: 'a delete character',
  0x85: 'a next-line character',
  0xa0: 'a no-break space',
  0xad: 'a soft hyphen',
  0x034f: 'a combining grapheme joiner',
  0x061c: 'an Arabic letter mark',
  0x180e: 'a Mongolian vowel separator',
  0x200b: 'a zero-width space',
  0x200c: 'a zero-width non-joiner',
  0x200d: 'a zero-width joiner',
  0x200e: 'a left-to-right mark',
  0x200f: 'a right-to-left mark',
  0x2028: 'a line separator',
  0x2029: 'a paragraph separator',
  0x202a: 'a left-to-right embedding',
  0x202b: 'a right-to-left embedding',
  0x202c: 'a pop directional formatting',
  0x202d: 'a left-to-right override',
  0x202e: 'a right-to-left override',
  0x202f: 'a narrow no-break space',
  0x205f: 'a medium mathematical space',
  0x2060: 'a word joiner',
  0x2066: 'a left-to-right isolate',
  0x2067: 'a right-to-left isolate',
  0x2068: 'a first strong isolate',
  0x2069: 'a pop directional isolate',
  0x3000: 'an ideographic space',
  0x3164: 'a Hangul filler',
  0xfeff: 'a byte order mark',
};

/** How many characters of a text a message quotes before cutting it short. */
export const QUOTE_MAX = 60;

/** "U+200B". */
function codePoint(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What a hidden character is, in words ("a zero-width space"). */
function nameOf(cp: number): string {
  const known = NAMES[cp];
  if (known) return known;
  const c = String.fromCodePoint(cp);
  if (/\p{Cc}/u.test(c)) return 'a control character';
  if (/\p{Zs}/u.test(c)) return 'an unusual space';
  if (/\p{Co}/u.test(c)) return 'a private-use character';
  if (/\p{Cs}/u.test(c)) return 'half of a character (a lone surrogate)';
  return 'an invisible character';
}

/** The escape a hidden character is shown as: \n, \t, \r, \u001b, \u200b, \u{e0001}. */
function escapeOf(cp: number): string {
  if (cp === 0x0a) return '\\n';
  if (cp === 0x0d) return '\\r';
  if (cp === 0x09) return '\\t';
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** Thousands separated by commas, whatever the locale. */
function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A text with every hidden character written as an escape, and those characters (code points, in order). */
function escapeHidden(text: string): { text: string; hidden: number[] } {
  const hidden: number[] = [];
  const out = text.replace(HIDDEN_ALL, (c) => {
    const cp = c.codePointAt(0)!;
    if (cp === 0x20) return c;
    if (!hidden.includes(cp)) hidden.push(cp);
    return escapeOf(cp);
  });
  return { text: out, hidden };
}

/** The first `max` characters of a text, not cutting a character in two. */
function cut(text: string, max: number): string {
  let s = text.slice(0, max);
  const last = s.charCodeAt(s.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
  return s;
}

/**
 * Text from the file in double quotes, every character visible: `"att\u200bention" (\u200b is a
 * zero-width space)`; a long one cut: `"aaaa…" (5,000,000 characters)`.
 */
export function quote(text: string, max = QUOTE_MAX): string {
  const q = quoted(text, max);
  const notes: string[] = [];
  if (q.long) notes.push(`${count(text.length)} characters`);
  for (const cp of q.hidden.filter((c) => c !== 0x0a && c !== 0x0d && c !== 0x09).slice(0, 3)) notes.push(`${escapeOf(cp)} is ${nameOf(cp)}`);
  return notes.length ? `${q.text} (${notes.join('; ')})` : q.text;
}

/** As quote(), without the notes: for a key inside a JSON path (`layers[0]["att\u200bention"]`). */
export function quoteBare(text: string, max = QUOTE_MAX): string {
  return quoted(text, max).text;
}

function quoted(text: string, max: number): { text: string; hidden: number[]; long: boolean } {
  const long = text.length > max;
  const shown = long ? cut(text, max) : text;
  // its own " and \ first (as JSON writes them), then the hidden characters, whose escapes are ours
  const { text: body, hidden } = escapeHidden(shown.replace(/["\\]/g, (c) => `\\${c}`));
  return { text: `"${body}${long ? '…' : ''}"`, hidden, long };
}

/** One character found where it does not belong: `"x"`, or named when it cannot be seen: `a byte order mark (U+FEFF)`. */
export function describeChar(c: string): string {
  const cp = c.codePointAt(0);
  if (cp === undefined) return 'nothing';
  if (cp !== 0x20 && HIDDEN.test(String.fromCodePoint(cp))) return `${nameOf(cp)} (${codePoint(cp)})`;
  return quote(String.fromCodePoint(cp));
}

/**
 * A line for a terminal: control characters (except the line breaks `keepNewlines` keeps) and
 * bidi/format characters as escapes, so nothing written can move the cursor, clear the screen or
 * reorder what is shown. Other characters, spaces included, stay as they are.
 */
export function terminalSafe(text: string, keepNewlines = true): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => (keepNewlines && c === '\n' ? c : escapeOf(c.codePointAt(0)!)));
}

/** How many characters of any value a message quotes (a file from a stranger may hold megabytes). */
export const VALUE_MAX = 80;

/**
 * Any value read from a file, for a message: bounded in length (~VALUE_MAX characters, elided with
 * `…`) and in depth (deeper than 3 is `[…]`/`{…}`), never stringified whole, so 100,000 nested
 * brackets or a 10 MB string cost nothing. `undefined` is "nothing"; a string is quote()d.
 */
export function describeValue(value: unknown, max = VALUE_MAX): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return quote(value, Math.min(QUOTE_MAX, max));
  const out = { text: '', full: false };
  writeValue(value, 0, max, out);
  return out.full ? `${cut(out.text, max)}…` : out.text;
}

function writeValue(v: unknown, depth: number, max: number, out: { text: string; full: boolean }): void {
  const put = (s: string): boolean => {
    if (out.full) return false;
    out.text += s;
    if (out.text.length > max) out.full = true;
    return !out.full;
  };
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return void put(String(v));
  if (typeof v === 'string') return void put(quoteBare(v, Math.min(QUOTE_MAX, max)));
  if (typeof v === 'bigint') return void put(`${v}n`);
  if (typeof v !== 'object') return void put(typeof v);
  const isArray = Array.isArray(v);
  if (depth >= 3) return void put(isArray ? '[…]' : '{…}');
  if (!put(isArray ? '[' : '{')) return;
  // (for…in, not Object.keys: a key count past the budget is never enumerated whole)
  let i = 0;
  if (isArray) {
    for (const item of v as unknown[]) {
      if ((i++ > 0 && !put(', ')) || out.full) return;
      writeValue(item, depth + 1, max, out);
      if (out.full) return;
    }
  } else {
    for (const key in v as Record<string, unknown>) {
      if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
      if (i++ > 0 && !put(', ')) return;
      if (!put(`${quoteBare(key, 20)}: `)) return;
      writeValue((v as Record<string, unknown>)[key], depth + 1, max, out);
      if (out.full) return;
    }
  }
  put(isArray ? ']' : '}');
}

/** How many characters of a path a message shows: its beginning and its end (the file's name), the middle elided. */
export const PATH_MAX = 72;

/**
 * A path in a message, quoted as quote() quotes (`"/models/gpt2"`), every character visible,
 * bounded: a long one keeps its beginning and its end, where the file's name is: `"/home/me/aaaa…aaaa/model.safetensors" (10,240 characters)`.
 */
export function quotePath(path: string, max = PATH_MAX): string {
  if (path.length <= max) return quote(path, max);
  const tail = Math.ceil((max * 2) / 3);
  const head = cut(path, max - tail);
  let end = path.slice(path.length - tail);
  const first = end.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) end = end.slice(1); // (not half a character)
  const esc = (t: string): { text: string; hidden: number[] } => escapeHidden(t.replace(/["\\]/g, (c) => `\\${c}`));
  const a = esc(head);
  const b = esc(end);
  const body = `${a.text}…${b.text}`;
  const q = { hidden: [...new Set([...a.hidden, ...b.hidden])] };
  const notes = [`${count(path.length)} characters`];
  for (const cp of q.hidden.filter((c) => c !== 0x0a && c !== 0x0d && c !== 0x09).slice(0, 2)) notes.push(`${escapeOf(cp)} is ${nameOf(cp)}`);
  return `"${body}" (${notes.join('; ')})`;
}
