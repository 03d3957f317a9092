// The JSONC parser's base: the bytes and the cursor, whitespace and comments, strings, and the
// syntax errors found (one per slip: see error()). The fast path for arrays of numbers
// (jsonNumberArrays.ts) and the tree (jsonTree.ts) build on it.

import { lineStarts } from './lineStarts';
import { lastAtOrBelow } from '../common/search';
import * as jsonChars from './jsonChars';
import type { SyntaxProblem } from './jsonNodes';
import { sourceBytes, sourceSlice, type Source } from './jsonSource';

// (module constants, not imports read where used: the per-file build the tests run reads an
// imported name through a getter each time, which costs the byte loops several times their speed)
const { BACKSLASH, BOM, CR, LF, QUOTE, SLASH, SPACE, STAR, TAB, indexOfCommentEnd } = jsonChars;

/** Errors kept of one parse: past these, a file is too broken for more to help. */
const MAX_ERRORS = 200;

export class JsonScanner {
  protected pos = 0;
  protected readonly len: number;
  readonly errors: SyntaxProblem[] = [];
  /** Since the last error no property was read through (see error()). */
  protected quiet = false;
  private lineStarts: number[] | null = null;
  /** The text as bytes: what every scan reads (see asciiBytes for a string). */
  protected readonly b: Uint8Array;
  protected readonly sliceFn: (a: number, b: number) => string;

  constructor(protected readonly src: Source) {
    this.b = sourceBytes(src);
    this.len = this.b.length;
    this.sliceFn = (a, b) => sourceSlice(src, a, b);
    if (src instanceof Uint8Array) {
      if (src[0] === 0xef && src[1] === 0xbb && src[2] === 0xbf) this.pos = 3; // the UTF-8 BOM
    } else if (src.charCodeAt(0) === BOM) this.pos = 1;
  }

  protected slice(a: number, b: number): string {
    return this.sliceFn(a, b);
  }

  /** The whole character at an offset, for a message (in bytes, the UTF-8 sequence it starts). */
  protected charAt(at: number): string {
    const lead = this.src instanceof Uint8Array ? this.b[at] : 0;
    const n = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    const s = this.slice(at, Math.min(this.len, at + (this.src instanceof Uint8Array ? n : 2)));
    return String.fromCodePoint(s.codePointAt(0) ?? 0xfffd);
  }

  /**
   * One error per slip: what follows it inside the same property is read as well as it can be
   * but not reported (a lost quote or bracket would make every later token look wrong). Errors
   * are reported again once a property is read through.
   */
  protected error(message: string, start: number, end: number): void {
    if (this.quiet) return;
    this.quiet = true;
    if (this.errors.length < MAX_ERRORS) this.errors.push({ message, start, end: Math.max(end, start) });
  }

  /** Whether error() would record a problem now (to skip building its message otherwise). */
  protected get reporting(): boolean {
    return !this.quiet && this.errors.length < MAX_ERRORS;
  }

  /** The 1-based line of an offset (for messages; the table of line starts is built once, on the first error that needs it). */
  protected lineOf(offset: number): number {
    this.lineStarts ??= lineStarts(this.b); // (\n, \r\n or a lone \r, as VS Code counts lines)
    return lastAtOrBelow(this.lineStarts, offset) + 1;
  }

  /** Skips whitespace and comments. */
  protected skipTrivia(): void {
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

  protected scanString(): string {
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
}
