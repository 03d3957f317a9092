// A JSON-with-comments parser made for weight files.
//
// - Comments (// and /* */) and trailing commas are allowed, as in VS Code's settings files.
// - An array of plain numbers is scanned in one flat loop straight into a shared Float32Array
//   (the arena), remembering only where the array's text starts and ends: no JSON.parse, no
//   node per number. The rows of a matrix land one after another, so a matrix is a subarray.
// - Anything else (or a number array holding a string, NaN, a syntax slip) is parsed the slow
//   way, into one node per element, so every error has its exact position.
// - It never throws: every problem is collected with its offsets, and parsing goes on.
//
import { lineStarts } from './lineStarts';
import { describeChar, quote } from '../shared/quote';
import { lastAtOrBelow } from '../shared/search';
import { TextChunks } from './textChunks';

// Numbers are rounded exactly as JSON.parse then Math.fround would: a decimal mantissa below 2^53
// with a power of ten up to 22 is converted with one exact multiply or divide (correctly rounded
// in float64), anything else goes through Number().

export interface NodeBase {
  readonly start: number;   // offset of the first character
  end: number;              // offset after the last character
}
export interface ObjectNode extends NodeBase { readonly kind: 'object'; readonly props: PropertyNode[] }
export interface ArrayNode extends NodeBase { readonly kind: 'array'; readonly items: JsonNode[] }
/** An array of numbers only: values are arena[offset … offset+length-1]. */
export interface NumbersNode extends NodeBase { readonly kind: 'numbers'; readonly offset: number; readonly length: number }
export interface NumberNode extends NodeBase { readonly kind: 'number'; readonly value: number }
export interface StringNode extends NodeBase { readonly kind: 'string'; readonly value: string }
export interface BooleanNode extends NodeBase { readonly kind: 'boolean'; readonly value: boolean }
export interface NullNode extends NodeBase { readonly kind: 'null' }
/** NaN, Infinity, -Infinity: not JSON, but people write them; reported where they stand. */
export interface NonFiniteNode extends NodeBase { readonly kind: 'nonfinite'; readonly text: string }
/** Something that is not a value at all (a stray word, a missing value). */
export interface InvalidNode extends NodeBase { readonly kind: 'invalid'; readonly text: string }

export type JsonNode =
  | ObjectNode | ArrayNode | NumbersNode | NumberNode | StringNode | BooleanNode | NullNode
  | NonFiniteNode | InvalidNode;

export interface PropertyNode {
  readonly key: string;
  readonly keyStart: number;
  readonly keyEnd: number;
  value: JsonNode | null;
  readonly start: number;
  end: number;
}

/** The indentation [from, to) of a line, if all tabs or all spaces. */
function uniformIndent(t: Uint8Array, from: number, to: number): { width: number; char: number } | null {
  const char = to > from ? t[from] : SPACE;
  for (let p = from; p < to; p++) if (t[p] !== char) return null;
  return { width: to - from, char };
}

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

/**
 * Past the object or array at `from` without reading it (nested too deep): its brackets counted,
 * strings and comments stepped over; `len` if the file ends first. A loop, no recursion.
 */
function skipNested(b: Uint8Array, from: number, len: number): number {
  let depth = 0;
  let p = from;
  while (p < len) {
    const c = b[p];
    if (c === QUOTE) {
      p++;
      while (p < len && b[p] !== QUOTE && b[p] !== LF && b[p] !== CR) p += b[p] === BACKSLASH ? 2 : 1;
    } else if (c === SLASH && b[p + 1] === SLASH) {
      while (p < len && b[p] !== LF && b[p] !== CR) p++;
    } else if (c === SLASH && b[p + 1] === STAR) {
      const close = indexOfCommentEnd(b, p + 2);
      p = close < 0 ? len : close + 1;
    } else if (c === LBRACE || c === LBRACKET) {
      depth++;
    } else if ((c === RBRACE || c === RBRACKET) && --depth === 0) {
      return p + 1;
    }
    p++;
  }
  return len;
}

function indexOfCommentEnd(b: Uint8Array, from: number): number {
  for (let i = b.indexOf(STAR, from); i >= 0; i = b.indexOf(STAR, i + 1)) if (b[i + 1] === SLASH) return i;
  return -1;
}

function startsWithAscii(b: Uint8Array, word: string, at: number): boolean {
  for (let i = 0; i < word.length; i++) if (b[at + i] !== word.charCodeAt(i)) return false;
  return true;
}

export interface SyntaxProblem {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

export interface ParsedJson {
  readonly root: JsonNode | null;
  /** Every number of every NumbersNode, in text order. */
  readonly arena: Float32Array;
  readonly errors: SyntaxProblem[];
  /** Number arrays in text order (the rows of every matrix and every vector). */
  readonly numberArrays: NumbersNode[];
}

const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const TWO53 = 9007199254740992;
/** Smallest float64 that Math.fround rounds to Infinity. */
export const FLOAT32_OVERFLOW = 3.4028235677973366e38;

// char codes
const SPACE = 32, TAB = 9, LF = 10, CR = 13, COMMA = 44, MINUS = 45, DOT = 46, SLASH = 47, ZERO = 48,
  NINE = 57, COLON = 58, LBRACKET = 91, RBRACKET = 93, LBRACE = 123, RBRACE = 125, QUOTE = 34,
  STAR = 42, BACKSLASH = 92, LOWER_E = 101, UPPER_E = 69, PLUS = 43, BOM = 0xfeff;

/**
 * Scans one JSON number starting at `pos` (which holds '-' or a digit). Returns the offset after
 * it and leaves the value in `scan.value`, or an error message in `scan.error`.
 */
interface NumberScan { value: number; end: number; error: string | null }

function scanNumber(text: Uint8Array, pos: number, out: NumberScan, slice: (a: number, b: number) => string): void {
  const start = pos;
  const len = text.length;
  let c = text[pos];
  let neg = false;
  if (c === MINUS) {
    neg = true;
    c = text[++pos];
  }
  let mant = 0;
  let exact = true;
  let exp10 = 0;
  out.error = null;
  if (c === ZERO) {
    c = text[++pos];
    if (c >= ZERO && c <= NINE) {
      while (pos < len && c >= ZERO && c <= NINE) c = text[++pos];
      out.error = 'a number may not start with 0 followed by more digits';
    }
  } else if (c > ZERO && c <= NINE) {
    do {
      if (mant < 9e14) mant = mant * 10 + (c - ZERO);
      else exact = false;
      c = text[++pos];
    } while (c >= ZERO && c <= NINE);
  } else {
    out.error = 'expected a digit after the minus sign';
  }
  if (c === DOT) {
    c = text[++pos];
    if (!(c >= ZERO && c <= NINE)) out.error ??= 'expected a digit after the decimal point';
    while (c >= ZERO && c <= NINE) {
      if (mant < 9e14) {
        mant = mant * 10 + (c - ZERO);
        exp10--;
      } else if (c !== ZERO) exact = false;
      c = text[++pos];
    }
  }
  if (c === LOWER_E || c === UPPER_E) {
    c = text[++pos];
    let eneg = false;
    if (c === PLUS || c === MINUS) {
      eneg = c === MINUS;
      c = text[++pos];
    }
    if (!(c >= ZERO && c <= NINE)) out.error ??= 'expected a digit in the exponent';
    let e = 0;
    while (c >= ZERO && c <= NINE) {
      if (e < 100000) e = e * 10 + (c - ZERO);
      c = text[++pos];
    }
    exp10 += eneg ? -e : e;
  }
  out.end = pos;
  if (out.error !== null) {
    out.value = NaN;
    return;
  }
  let v: number;
  if (exact && mant < TWO53 && exp10 >= -22 && exp10 <= 22) v = exp10 < 0 ? mant / POW10[-exp10] : mant * POW10[exp10];
  else v = Math.abs(Number(slice(neg ? start + 1 : start, pos)));
  out.value = neg ? -v : v;
}

/** 2^-44: far above the error of an approximate float64 (a few ulps, 2^-51), far below a float32 ulp (2^-23). */
const NEAR = 1 / 17592186044416;

/**
 * The float32 of a value known to within a few float64 ulps, or NaN when that is not enough to
 * tell (the value lies within 2^-44 of a rounding boundary between two float32s, or is tiny).
 */
function float32Near(x: number): number {
  const f = Math.fround(x);
  if (Math.fround(x * (1 + NEAR)) !== f || Math.fround(x * (1 - NEAR)) !== f || !(x > 1e-37)) return NaN;
  return f;
}

function isWordChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= ZERO && c <= NINE) || c === 95 || c === 36 || c === MINUS || c === PLUS || c === DOT;
}

class Parser {
  private pos = 0;
  private readonly len: number;
  readonly errors: SyntaxProblem[] = [];
  readonly numberArrays: NumbersNode[] = [];
  arena: Float32Array;
  private n = 0;    // numbers written to the arena
  private readonly num: NumberScan = { value: 0, end: 0, error: null };
  private depth = 0;
  /** An array was closed early because a key followed (see parseItems): that key needs no comma. */
  private keyAhead = false;
  /** Since the last error no property was read through (see error()). */
  private quiet = false;
  /** The key whose value is being parsed (for the object it opens: see misplacedClose). */
  private valueKey: string | null = null;
  /**
   * The first } indented less than the line that opened its object: if the file then ends with
   * an object unclosed, that } most likely belongs to an outer object and its own is missing.
   */
  private misplacedClose: { at: number; open: number; key: string | null; belongsTo: number } | null = null;
  /** The end of the file inside open containers was reported (by the innermost). */
  private endSaid = false;
  /** The starts of the objects and arrays being read (slow path), outermost first. */
  private readonly openStack: number[] = [];
  private lineStarts: number[] | null = null;

  /** The text as bytes: what every scan reads (see asciiBytes for a string). */
  private readonly b: Uint8Array;
  private readonly sliceFn: (a: number, b: number) => string;

  constructor(private readonly src: Source) {
    this.b = sourceBytes(src);
    this.len = this.b.length;
    this.sliceFn = (a, b) => sourceSlice(src, a, b);
    // A weight file spends about 8 characters or more per number ("-0.0123, "); denser text makes
    // the arena grow (doubling). Allocating the worst case, 2 characters per number, costs ~5% of
    // the whole parse in allocation alone.
    this.arena = new Float32Array((this.len >> 3) + 16);
    if (src instanceof Uint8Array) {
      if (src[0] === 0xef && src[1] === 0xbb && src[2] === 0xbf) this.pos = 3; // the UTF-8 BOM
    } else if (src.charCodeAt(0) === BOM) this.pos = 1;
  }

  private slice(a: number, b: number): string {
    return this.sliceFn(a, b);
  }

  /** The whole character at an offset, for a message (in bytes, the UTF-8 sequence it starts). */
  private charAt(at: number): string {
    const lead = this.src instanceof Uint8Array ? this.b[at] : 0;
    const n = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    const s = this.slice(at, Math.min(this.len, at + (this.src instanceof Uint8Array ? n : 2)));
    return String.fromCodePoint(s.codePointAt(0) ?? 0xfffd);
  }

  parse(): ParsedJson {
    this.skipTrivia();
    let root: JsonNode | null = null;
    if (this.pos >= this.len) {
      this.error('the file is empty: expected a JSON object', this.pos, this.pos);
    } else {
      root = this.parseValue();
      this.skipTrivia();
      if (root.kind === 'invalid' && this.pos < this.len) {
        // a stray word before the object (a slip of the keyboard): say so once, then read the
        // object after it, so nothing else is called wrong
        const open = this.b.indexOf(LBRACE, this.pos);
        if (open >= 0) {
          this.pos = open;
          root = this.parseValue();
          this.skipTrivia();
        }
      }
      if (this.pos < this.len) {
        this.error('unexpected text after the end of the top-level value', this.pos, this.len);
      }
    }
    return { root, arena: this.arena, errors: this.errors, numberArrays: this.numberArrays };
  }

  /**
   * One error per slip: what follows it inside the same property is read as well as it can be
   * but not reported (a lost quote or bracket would make every later token look wrong). Errors
   * are reported again once a property is read through.
   */
  private error(message: string, start: number, end: number): void {
    if (this.quiet) return;
    this.quiet = true;
    if (this.errors.length < 200) this.errors.push({ message, start, end: Math.max(end, start) });
  }

  /** Skips whitespace and comments. */
  private skipTrivia(): void {
    const t = this.b;
    for (;;) {
      const c = t[this.pos];
      if (c === SPACE || c === LF || c === CR || c === TAB) {
        this.pos++;
      } else if (c === SLASH) {
        const d = t[this.pos + 1];
        if (d === SLASH) {
          let p = this.pos + 2;
          while (p < this.len && t[p] !== LF && t[p] !== CR) p++;
          this.pos = p;
        } else if (d === STAR) {
          const close = indexOfCommentEnd(t, this.pos + 2);
          if (close < 0) {
            this.error('unterminated block comment: expected */', this.pos, this.pos + 2);
            this.pos = this.len;
          } else this.pos = close + 2;
        } else return;
      } else return;
    }
  }

  private parseValue(): JsonNode {
    const t = this.b;
    const start = this.pos;
    const c = t[start];
    if (c === LBRACE || c === LBRACKET) {
      if (this.depth >= 64) return this.tooDeep();
      this.depth++; // (no try/finally: the parser never throws)
      const node = c === LBRACE ? this.parseObject() : this.parseArray();
      this.depth--;
      return node;
    }
    if (c === QUOTE) {
      const value = this.scanString();
      return { kind: 'string', value, start, end: this.pos };
    }
    if (c === 39 /* ' */) {
      // 'text': one clear message, not a cascade
      let p = start + 1;
      while (p < this.len && t[p] !== 39 && t[p] !== LF && t[p] !== CR) p++;
      this.pos = t[p] === 39 ? p + 1 : p;
      this.error('strings use double quotes: "…", not \'…\'', start, this.pos);
      return { kind: 'invalid', text: this.slice(start, this.pos), start, end: this.pos };
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      if (c === MINUS && startsWithAscii(t, '-Infinity', start)) {
        this.pos = start + 9;
        return { kind: 'nonfinite', text: '-Infinity', start, end: this.pos };
      }
      scanNumber(t, start, this.num, this.sliceFn);
      this.pos = this.num.end;
      if (this.num.error !== null) {
        this.error(this.num.error, start, this.pos);
        return { kind: 'invalid', text: this.slice(start, this.pos), start, end: this.pos };
      }
      return { kind: 'number', value: this.num.value, start, end: this.pos };
    }
    // a word: true, false, null, NaN, Infinity, or something that is not JSON
    let p = start;
    while (p < this.len && isWordChar(t[p])) p++;
    const word = this.slice(start, p);
    if (p === start) {
      const ch = start < this.len ? describeChar(this.charAt(start)) : 'the end of the file';
      this.error(`expected a value, found ${ch}`, start, Math.min(start + 1, this.len));
      if (start < this.len && c !== COMMA && c !== RBRACKET && c !== RBRACE && c !== COLON) this.pos = start + 1;
      return { kind: 'invalid', text: '', start, end: this.pos };
    }
    this.pos = p;
    switch (word) {
      case 'true': return { kind: 'boolean', value: true, start, end: p };
      case 'false': return { kind: 'boolean', value: false, start, end: p };
      case 'null': return { kind: 'null', start, end: p };
      case 'NaN': case 'Infinity': case '+Infinity':
        return { kind: 'nonfinite', text: word, start, end: p };
    }
    this.error(`expected a value (a number, string, true, false, null, array or object), found ${quote(word)}`, start, p);
    return { kind: 'invalid', text: word, start, end: p };
  }

  private tooDeep(): InvalidNode {
    const start = this.pos;
    this.error('nesting is deeper than 64 levels', start, start + 1);
    // (past this value only, by counting its brackets: the rest of the file reads on, and the
    // containers around it are not each called unterminated)
    this.pos = skipNested(this.b, start, this.len);
    return { kind: 'invalid', text: '', start, end: this.pos };
  }

  private scanString(): string {
    const t = this.b;
    const start = this.pos;
    let p = start + 1;
    let out = '';
    let chunk = p;
    for (;;) {
      if (p >= this.len) {
        this.error('unterminated string: expected a closing "', start, p);
        this.pos = p;
        return out + this.slice(chunk, p);
      }
      const c = t[p];
      if (c === QUOTE) {
        out += this.slice(chunk, p);
        this.pos = p + 1;
        return out;
      }
      if (c === LF || c === CR) {
        this.error('unterminated string: a string cannot span lines', start, p);
        this.pos = p;
        return out + this.slice(chunk, p);
      }
      if (c === BACKSLASH) {
        out += this.slice(chunk, p);
        const e = p + 1 < this.len ? String.fromCharCode(t[p + 1]) : undefined;
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          p += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.slice(p + 2, p + 6))) {
          out += String.fromCharCode(parseInt(this.slice(p + 2, p + 6), 16));
          p += 6;
        } else {
          this.error('invalid escape sequence in string', p, p + 2);
          p += 2;
        }
        chunk = p;
        continue;
      }
      p++;
    }
  }

  private parseObject(): ObjectNode {
    const start = this.pos;
    const key = this.valueKey;
    this.valueKey = null;
    const props: PropertyNode[] = [];
    const node: ObjectNode = { kind: 'object', props, start, end: start };
    this.pos++; // {
    this.skipTrivia();
    this.parseItems(start, RBRACE, props, null);
    node.end = this.pos;
    const close = this.pos - 1;
    if (this.misplacedClose === null && close > start && this.b[close] === RBRACE) this.checkClose(start, close, key);
    return node;
  }

  /**
   * A } first on its line, indented less than the line of its own { and exactly as the line of
   * an enclosing object's {, probably belongs to that one (remembered; used only if the file then
   * ends with that object unclosed). Indentation of mixed tabs and spaces is not compared.
   */
  private checkClose(open: number, close: number, key: string | null): void {
    const mine = this.closeIndent(close);
    if (mine === null) return;
    const own = this.lineIndent(open);
    if (own === null || own.char !== mine.char && own.width > 0 && mine.width > 0 || mine.width >= own.width) return;
    // (the stack holds the containers around this object, innermost last)
    for (let k = this.openStack.length - 1; k >= 0; k--) {
      const a = this.openStack[k];
      if (this.b[a] !== LBRACE) continue;
      const ind = this.lineIndent(a);
      if (ind === null || ind.width < mine.width) return;
      if (ind.width === mine.width && (ind.width === 0 || ind.char === mine.char)) {
        this.misplacedClose = { at: close, open, key, belongsTo: a };
        return;
      }
    }
  }

  /** The indentation before a } if it is the first thing on its line (else null: the usual case, found at once). */
  private closeIndent(offset: number): { width: number; char: number } | null {
    const t = this.b;
    let p = offset;
    while (p > 0 && (t[p - 1] === SPACE || t[p - 1] === TAB)) p--;
    if (p > 0 && t[p - 1] !== LF && t[p - 1] !== CR) return null;
    return uniformIndent(t, p, offset);
  }

  /** The indentation of the line holding `offset` (null if mixed, or the line is very long). */
  private lineIndent(offset: number): { width: number; char: number } | null {
    const t = this.b;
    const stop = Math.max(0, offset - 4096);
    let lineStart = offset;
    while (lineStart > stop && t[lineStart - 1] !== LF && t[lineStart - 1] !== CR) lineStart--;
    if (lineStart === stop && stop > 0) return null;
    let p = lineStart;
    while (p < offset && (t[p] === SPACE || t[p] === TAB)) p++;
    return uniformIndent(t, lineStart, p);
  }

  /** The 1-based line of an offset (for messages; the table of line starts is built once, on the first error that needs it). */
  private lineOf(offset: number): number {
    this.lineStarts ??= lineStarts(this.b); // (\n, \r\n or a lone \r, as VS Code counts lines)
    return lastAtOrBelow(this.lineStarts, offset) + 1;
  }

  /** Whether error() would record a problem now (to skip building its message otherwise). */
  private get reporting(): boolean {
    return !this.quiet && this.errors.length < 200;
  }

  /** parseItemsIn, with the container on the stack of open ones while its items are read. */
  private parseItems(start: number, close: number, props: PropertyNode[] | null, items: JsonNode[] | null): void {
    this.openStack.push(start);
    this.parseItemsIn(start, close, props, items);
    this.openStack.pop();
  }

  /**
   * The members of an object (into `props`) or the items of an array (into `items`), from after
   * the opening bracket to past `close`: commas between, one trailing comma allowed, and after a
   * bad member, recovery at the next comma or closing bracket.
   */
  private parseItemsIn(start: number, close: number, props: PropertyNode[] | null, items: JsonNode[] | null): void {
    const closing = close === RBRACE ? '}' : ']';
    let first = true;
    for (;;) {
      const c = this.b[this.pos];
      if (c === close) {
        this.pos++;
        return;
      }
      if (this.pos >= this.len) {
        const m = props ? this.misplacedClose : null;
        if (m && m.at > start && m.belongsTo >= start && this.reporting) {
          // say where the } is missing, not just that the file ended: the } indented as an outer
          // object's own closed an inner one early (and each } after it closed the wrong one too,
          // up to this object, left without one)
          const what = m.key === null ? 'the object' : quote(m.key);
          this.error(`expected } before this one: ${what} (opened on line ${this.lineOf(m.open)}) is not closed, and this } lines up with the { on line ${this.lineOf(m.belongsTo)}`, m.at, m.at + 1);
        } else if (!this.endSaid) {
          // (the innermost container the file ends in says it, once: each around it is open too)
          const around = this.openStack.length - 1;
          this.error(`unterminated ${props ? 'object' : 'array'}: expected ${closing}${around > 0 ? ` (the file ends inside ${around} more object${around > 1 ? 's or arrays' : ' or array'} around it)` : ''}`, start, start + 1);
        }
        this.endSaid = true;
        return;
      }
      if (!first) {
        if (c === COMMA) {
          this.pos++;
          this.skipTrivia();
          if (this.b[this.pos] === close) { // trailing comma: allowed
            this.pos++;
            return;
          }
        } else if (this.keyAhead) {
          this.keyAhead = false; // (an array closed for the key that follows took its comma)
        } else if (c === (props ? RBRACKET : RBRACE) && this.reporting && this.b[this.openStack[this.openStack.length - 2] ?? -1] === (props ? LBRACKET : LBRACE)) {
          // the bracket of the array or object around this one: this one's own was lost. It
          // ends here, and the one around reads on as written (one error, not a cascade).
          this.error(`expected ${closing} before this ${props ? ']' : '}'}: the ${props ? 'object' : 'array'} opened on line ${this.lineOf(start)} is not closed`, this.pos, this.pos + 1);
          return;
        } else {
          this.error(`expected a comma or ${closing}`, this.pos, this.pos + 1);
        }
      }
      first = false;
      if (props) {
        const c0 = this.b[this.pos];
        if (c0 === LBRACKET || c0 === LBRACE || c0 === RBRACKET || c0 === MINUS || (c0 >= ZERO && c0 <= NINE)) {
          // values where a key belongs: most often the rest of an array whose [ was lost
          const prev = props[props.length - 1];
          const hint = prev?.value && (prev.value.kind === 'array' || prev.value.kind === 'numbers') ? `: is a [ missing at the start of ${quote(prev.key)}?` : '';
          this.error(`expected a property name in double quotes, found ${c0 === RBRACKET ? 'a ]' : 'a value'}${hint}`, this.pos, this.pos + 1);
          if (c0 === RBRACKET) this.pos++;
          else this.parseValue();
          this.skipTrivia();
          continue;
        }
        const prop = this.parseProperty();
        if (prop) {
          props.push(prop);
          if (prop.value) this.quiet = false; // read through again: the next slip is news
        } else if (!this.recover(close)) return;
      } else {
        const before = this.pos;
        const item = this.parseValue();
        if (item.kind === 'string' && this.colonAhead()) {
          // `"W2": …` inside an array: a key, so the array was never closed. One error where its
          // ] belongs, and the array ends there: the object around it reads on as written.
          const prev = items![items!.length - 1];
          const at = prev ? prev.end : before;
          this.error(`expected ] here: the array is not closed, and ${quote(item.value)} after it is a key`, at, at + 1);
          this.pos = before;
          this.keyAhead = true;
          return;
        }
        items!.push(item);
        if (item.kind === 'invalid' && this.pos === before && !this.recover(close)) return;
      }
      this.skipTrivia();
    }
  }

  /** Whether a colon comes next (after whitespace and comments), without moving. */
  private colonAhead(): boolean {
    const at = this.pos;
    this.skipTrivia();
    const colon = this.b[this.pos] === COLON;
    this.pos = at;
    return colon;
  }

  private parseProperty(): PropertyNode | null {
    const t = this.b;
    const keyStart = this.pos;
    let key: string;
    if (t[keyStart] === QUOTE) {
      key = this.scanString();
    } else {
      let p = keyStart;
      while (p < this.len && isWordChar(t[p])) p++;
      if (p === keyStart) {
        this.error(`expected a property name in double quotes, found ${describeChar(this.charAt(keyStart))}`, keyStart, keyStart + 1);
        return null;
      }
      key = this.slice(keyStart, p);
      this.error(`property names need double quotes: ${quote(key)}`, keyStart, p);
      this.pos = p;
    }
    const keyEnd = this.pos;
    const prop: PropertyNode = { key, keyStart, keyEnd, value: null, start: keyStart, end: keyEnd };
    this.skipTrivia();
    if (t[this.pos] !== COLON) {
      this.error(`expected a colon after ${quote(key)}`, keyEnd, keyEnd + 1);
      const c = t[this.pos];
      if (c === COMMA || c === RBRACE || this.pos >= this.len) return prop;
    } else {
      this.pos++;
    }
    this.skipTrivia();
    const c = t[this.pos];
    if (c === COMMA || c === RBRACE || this.pos >= this.len) {
      this.error(`expected a value for ${quote(key)}`, this.pos, this.pos + 1);
      return prop;
    }
    this.valueKey = key;
    prop.value = this.parseValue();
    this.valueKey = null;
    prop.end = this.pos;
    return prop;
  }

  /** After a broken element: skips to the next comma or closing bracket at this level. */
  private recover(close: number): boolean {
    const t = this.b;
    let depth = 0;
    while (this.pos < this.len) {
      const c = t[this.pos];
      if (c === QUOTE) {
        this.scanString();
        continue;
      }
      if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        if (depth === 0) return c === close;
        depth--;
      } else if (c === COMMA && depth === 0) return true;
      this.pos++;
    }
    return false;
  }

  private parseArray(): ArrayNode | NumbersNode {
    const start = this.pos;
    this.valueKey = null; // (its objects are items, not the key's value)
    this.pos++; // [
    this.skipTrivia();
    const c = this.b[this.pos];
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const errors = this.errors.length;
      const quiet = this.quiet;
      const fast = this.parseNumbers(start);
      if (fast) return fast;
      this.errors.length = errors; // (the slow pass reports whatever the fast one met, once)
      this.quiet = quiet;
      this.pos = start + 1; // not all plain numbers: again, slowly, with a node per element
      this.skipTrivia();
    }
    return this.parseArraySlow(start);
  }

  /**
   * The hot loop: numbers and separators only, the number scan written out inline with the cursor
   * in local variables (a call and a result object per number cost half the speed). Returns null
   * to fall back at anything else: the slow path then reports it with its position.
   */
  private parseNumbers(start: number): NumbersNode | null {
    const t = this.b;
    let arena = this.arena;
    const offset = this.n;
    let n = offset;
    let pos = this.pos;
    let c = t[pos];
    for (;;) {
      const numStart = pos;
      let neg = false;
      if (c === MINUS) {
        neg = true;
        c = t[++pos];
      }
      // The digits, integer part and fraction, as one mantissa in int32 arithmetic (a chain of
      // integer multiply-adds is ~5% faster than float64's); exact up to 9 digits, and a longer
      // number's mantissa is read again in float64 (exact below 2^53: see below).
      let mi = 0;
      let exp10 = 0;
      // Digits as d = byte − '0', tested with one unsigned compare ((d >>> 0) <= 9, 11% faster
      // than two); `| 0` turns a read past the end (undefined) into 0, which ends a run.
      let d = (c | 0) - ZERO;
      if (d === 0) {
        d = (t[++pos] | 0) - ZERO;
        if (d >>> 0 <= 9) return null; // a leading zero: the slow path says so
      } else if (d >>> 0 <= 9) {
        do {
          mi = (mi * 10 + d) | 0;
          d = (t[++pos] | 0) - ZERO;
        } while (d >>> 0 <= 9);
      } else {
        return null; // "-Infinity", "-" alone, a string, a nested array…
      }
      if (d === DOT - ZERO) {
        const fracStart = pos + 1;
        d = (t[++pos] | 0) - ZERO;
        if (d >>> 0 > 9) return null;
        do {
          mi = (mi * 10 + d) | 0;
          d = (t[++pos] | 0) - ZERO;
        } while (d >>> 0 <= 9);
        exp10 = fracStart - pos;
      }
      // (the run's length without the sign and the dot)
      const digits = pos - numStart - (neg ? 1 : 0) - (exp10 < 0 ? 1 : 0);
      const mant = digits <= 9 ? mi : this.mantissa(neg ? numStart + 1 : numStart, pos);
      c = t[pos];
      if (c === LOWER_E || c === UPPER_E) {
        c = t[++pos];
        let eneg = false;
        if (c === PLUS || c === MINUS) {
          eneg = c === MINUS;
          c = t[++pos];
        }
        if (!(c >= ZERO && c <= NINE)) return null;
        let e = 0;
        do {
          if (e < 100000) e = e * 10 + (c - ZERO);
          c = t[++pos];
        } while (c >= ZERO && c <= NINE);
        exp10 += eneg ? -e : e;
      }
      let v: number;
      // A mantissa below 2^53 was accumulated exactly (it only grew), and one multiply or divide
      // by an exact power of ten is correctly rounded, as Number() is. A longer one (17 digits,
      // as Python prints a float32 weight) is off by a few float64 ulps: its float32 is still
      // certain unless it lies next to a float32 rounding boundary (float32Near). Else Number().
      if (mant < TWO53 && exp10 >= -22 && exp10 <= 22) v = exp10 < 0 ? mant / POW10[-exp10] : mant * POW10[exp10];
      else v = this.longNumber(mant, digits, exp10, neg ? numStart + 1 : numStart, pos);
      if (v >= FLOAT32_OVERFLOW) return null;
      if (n === arena.length) arena = this.grow(n);
      arena[n++] = neg ? -v : v;
      if (c === COMMA && t[pos + 1] === SPACE) { // the usual separator, ", ", in one step
        c = t[(pos += 2)];
        if (c === MINUS || (c >= ZERO && c <= NINE)) continue;
        pos -= 2; // not a number next (a comment, "]"…): back to the comma, for the general case
        c = COMMA;
      }
      if (c !== COMMA) { // usually a comma follows at once: "1.5, 2.5"
        while (c === SPACE || c === LF || c === CR || c === TAB) c = t[++pos];
        if (c === SLASH) {
          this.pos = pos;
          this.skipTrivia();
          pos = this.pos;
          c = t[pos];
        }
      }
      if (c === COMMA) {
        c = t[++pos];
        while (c === SPACE || c === LF || c === CR || c === TAB) c = t[++pos];
        if (c === SLASH) {
          this.pos = pos;
          this.skipTrivia();
          pos = this.pos;
          c = t[pos];
        }
        if (c === RBRACKET) { // trailing comma
          this.pos = pos + 1;
          return this.numbersNode(start, offset, n);
        }
        continue;
      }
      if (c === RBRACKET) {
        this.pos = pos + 1;
        return this.numbersNode(start, offset, n);
      }
      return null;
    }
  }

  /** The magnitude of a number the fast case does not cover (see parseNumbers), its text [a, b). */
  private longNumber(mant: number, digits: number, exp10: number, a: number, b: number): number {
    if (digits <= 19 && exp10 >= -22 && exp10 <= 22) {
      const v = float32Near(exp10 < 0 ? mant / POW10[-exp10] : mant * POW10[exp10]);
      if (v === v) return v;
    }
    return Math.abs(Number(this.slice(a, b)));
  }

  /** The digits of [a, b) (a dot skipped) as a float64 mantissa: numbers of more than 9 digits. */
  private mantissa(a: number, b: number): number {
    const t = this.b;
    let m = 0;
    for (let i = a; i < b; i++) if (t[i] !== DOT) m = m * 10 + (t[i] - ZERO);
    return m;
  }

  /** A larger arena holding the `n` numbers so far (views into it are taken only once parsing ends). */
  private grow(n: number): Float32Array {
    const bigger = new Float32Array(Math.min(Math.max(2 * this.arena.length, 1024), (this.len >> 1) + 2));
    bigger.set(this.arena.subarray(0, n));
    this.arena = bigger;
    return bigger;
  }

  private numbersNode(start: number, offset: number, n: number): NumbersNode {
    this.n = n;
    const node: NumbersNode = { kind: 'numbers', offset, length: n - offset, start, end: this.pos };
    this.numberArrays.push(node);
    return node;
  }

  private parseArraySlow(start: number): ArrayNode {
    const items: JsonNode[] = [];
    const node: ArrayNode = { kind: 'array', items, start, end: start };
    this.parseItems(start, RBRACKET, null, items);
    node.end = this.pos;
    return node;
  }
}

/** Parses a text, or its bytes (a file as read from disk, UTF-8): then offsets are byte offsets. */
export function parseJsonc(text: Source): ParsedJson {
  return new Parser(text).parse();
}

/** The values of a NumbersNode (a view into the arena, not a copy). */
export function numbersOf(parsed: { arena: Float32Array }, node: NumbersNode): Float32Array {
  return parsed.arena.subarray(node.offset, node.offset + node.length);
}

/**
 * Scans the text of one number array (from its `[` to its `]`) again and returns where each
 * element starts and ends. Used for positions of single numbers (hovers, errors inside rows),
 * which the fast path does not keep.
 */
export function elementRanges(src: Source, node: NodeBase): Array<[number, number]> {
  // chunks: the row's own text, read with offsets relative to it
  let at: (i: number) => number;
  if (src instanceof TextChunks) {
    const row = src.slice(node.start, node.end);
    at = (i) => row.charCodeAt(i - node.start);
  } else if (typeof src === 'string') at = (i) => src.charCodeAt(i);
  else at = (i) => src[i];
  const out: Array<[number, number]> = [];
  let p = node.start + 1;
  const end = node.end - 1;
  while (p < end) {
    const c = at(p);
    if (c === SPACE || c === LF || c === CR || c === TAB || c === COMMA) {
      p++;
    } else if (c === SLASH && at(p + 1) === SLASH) {
      while (p < end && at(p) !== LF && at(p) !== CR) p++;
    } else if (c === SLASH && at(p + 1) === STAR) {
      let q = p + 2;
      while (q < end && !(at(q) === STAR && at(q + 1) === SLASH)) q++;
      p = q + 2;
    } else {
      const s = p;
      while (p < end) {
        const d = at(p);
        if (d === COMMA || d === SPACE || d === LF || d === CR || d === TAB || d === SLASH) break;
        p++;
      }
      out.push([s, p]);
    }
  }
  return out;
}

/**
 * Scans the text of one number array, from its `[` at `start` to its `]` at `end - 1`, writing
 * the numbers to out[at…]. Returns how many there were, or -1 if the text holds anything but
 * plain numbers, commas, whitespace (or more than `max` numbers): then only a full parse will do.
 * Used to re-read a single edited row of a matrix.
 */
export function scanNumberRow(text: Source, start: number, end: number, out: Float32Array, at: number, max: number): number {
  const rowText = sourceSlice(text, start, end);
  const row = asciiBytes(rowText); // positions below are relative to the row
  const slice = (a: number, b: number): string => rowText.slice(a, b);
  if (row[0] !== LBRACKET || row[row.length - 1] !== RBRACKET) return -1;
  const num: NumberScan = { value: 0, end: 0, error: null };
  let pos = 1;
  const stop = row.length - 1;
  let n = 0;
  let expectValue = true;
  while (pos < stop) {
    const c = row[pos];
    if (c === SPACE || c === LF || c === CR || c === TAB) {
      pos++;
    } else if (c === COMMA) {
      if (expectValue) return -1;
      expectValue = true;
      pos++;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      if (!expectValue || n >= max) return -1;
      scanNumber(row, pos, num, slice);
      if (num.error !== null || num.end > stop) return -1;
      const v = num.value;
      if (v >= FLOAT32_OVERFLOW || v <= -FLOAT32_OVERFLOW) return -1;
      out[at + n++] = v;
      pos = num.end;
      expectValue = false;
    } else {
      return -1; // a comment, a string, a bracket: not for this fast path
    }
  }
  return n;
}
