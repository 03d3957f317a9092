// The JSONC parser's tree: values, objects and arrays, one node per element (arrays of plain
// numbers excepted: jsonNumberArrays.ts), with recovery after a slip so that every error has its
// exact position and one slip gives one error, not a cascade.

import { describeChar, quote } from '../common/quote';
import * as jsonChars from './jsonChars';
import { misplacedClose, type MisplacedClose } from './jsonCloseHints';
import type { ArrayNode, InvalidNode, JsonNode, NumbersNode, ObjectNode, ParsedJson, PropertyNode } from './jsonNodes';
import * as jsonNumber from './jsonNumber';
import type { NumberScan } from './jsonNumber';
import { NumberArrayScanner } from './jsonNumberArrays';

// (module constants, not imports read where used: the per-file build the tests run reads an
// imported name through a getter each time, which costs the byte loops several times their speed)
const { COLON, COMMA, CR, LBRACE, LBRACKET, LF, MINUS, NINE, QUOTE, RBRACE, RBRACKET, ZERO, isWordChar, skipNested, startsWithAscii } = jsonChars;
const { scanNumber } = jsonNumber;

/** Nesting deeper than this is refused (no recursion without bound). */
const MAX_DEPTH = 64;

export class TreeParser extends NumberArrayScanner {
  private readonly num: NumberScan = { value: 0, end: 0, error: null };
  private depth = 0;
  /** An array was closed early because a key followed (see parseItems): that key needs no comma. */
  private keyAhead = false;
  /** The key whose value is being parsed (for the object it opens: see misplacedClose). */
  private valueKey: string | null = null;
  /**
   * The first } indented less than the line that opened its object: if the file then ends with
   * an object unclosed, that } most likely belongs to an outer object and its own is missing.
   */
  private misplaced: MisplacedClose | null = null;
  /** The end of the file inside open containers was reported (by the innermost). */
  private endSaid = false;
  /** The starts of the objects and arrays being read (slow path), outermost first. */
  private readonly openStack: number[] = [];

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

  private parseValue(): JsonNode {
    const t = this.b;
    const start = this.pos;
    const c = t[start];
    if (c === LBRACE || c === LBRACKET) {
      if (this.depth >= MAX_DEPTH) return this.tooDeep();
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
    if (c === MINUS || (c >= ZERO && c <= NINE)) return this.parseNumber(start);
    return this.parseWord(start);
  }

  private parseNumber(start: number): JsonNode {
    if (this.b[start] === MINUS && startsWithAscii(this.b, '-Infinity', start)) {
      this.pos = start + 9;
      return { kind: 'nonfinite', text: '-Infinity', start, end: this.pos };
    }
    scanNumber(this.b, start, this.num, this.sliceFn);
    this.pos = this.num.end;
    if (this.num.error !== null) {
      this.error(this.num.error, start, this.pos);
      return { kind: 'invalid', text: this.slice(start, this.pos), start, end: this.pos };
    }
    return { kind: 'number', value: this.num.value, start, end: this.pos };
  }

  /** A word: true, false, null, NaN, Infinity, or something that is not JSON. */
  private parseWord(start: number): JsonNode {
    const t = this.b;
    const c = t[start];
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
    this.error(`nesting is deeper than ${MAX_DEPTH} levels`, start, start + 1);
    // (past this value only, by counting its brackets: the rest of the file reads on, and the
    // containers around it are not each called unterminated)
    this.pos = skipNested(this.b, start, this.len);
    return { kind: 'invalid', text: '', start, end: this.pos };
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
    if (this.misplaced === null && close > start && this.b[close] === RBRACE) this.misplaced = misplacedClose(this.b, this.openStack, start, close, key);
    return node;
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
    let first = true;
    for (;;) {
      const c = this.b[this.pos];
      if (c === close) {
        this.pos++;
        return;
      }
      if (this.pos >= this.len) {
        this.unclosed(start, props !== null);
        return;
      }
      if (!first && this.afterMember(start, close, props !== null)) return;
      first = false;
      const go = props ? this.member(props, close) : this.item(items!, close);
      if (!go) return;
      this.skipTrivia();
    }
  }

  /** The file ended inside the container opened at `start`. */
  private unclosed(start: number, object: boolean): void {
    const m = object ? this.misplaced : null;
    if (m && m.at > start && m.belongsTo >= start && this.reporting) {
      // say where the } is missing, not just that the file ended: the } indented as an outer
      // object's own closed an inner one early (and each } after it closed the wrong one too,
      // up to this object, left without one)
      const what = m.key === null ? 'the object' : quote(m.key);
      this.error(`expected } before this one: ${what} (opened on line ${this.lineOf(m.open)}) is not closed, and this } lines up with the { on line ${this.lineOf(m.belongsTo)}`, m.at, m.at + 1);
    } else if (!this.endSaid) {
      // (the innermost container the file ends in says it, once: each around it is open too)
      const around = this.openStack.length - 1;
      this.error(`unterminated ${object ? 'object' : 'array'}: expected ${object ? '}' : ']'}${around > 0 ? ` (the file ends inside ${around} more object${around > 1 ? 's or arrays' : ' or array'} around it)` : ''}`, start, start + 1);
    }
    this.endSaid = true;
  }

  /** Between two members: a comma (or a trailing one before `close`). True when the container ends here. */
  private afterMember(start: number, close: number, object: boolean): boolean {
    const c = this.b[this.pos];
    const closing = object ? '}' : ']';
    if (c === COMMA) {
      this.pos++;
      this.skipTrivia();
      if (this.b[this.pos] === close) { // trailing comma: allowed
        this.pos++;
        return true;
      }
    } else if (this.keyAhead) {
      this.keyAhead = false; // (an array closed for the key that follows took its comma)
    } else if (c === (object ? RBRACKET : RBRACE) && this.reporting && this.b[this.openStack[this.openStack.length - 2] ?? -1] === (object ? LBRACKET : LBRACE)) {
      // the bracket of the array or object around this one: this one's own was lost. It
      // ends here, and the one around reads on as written (one error, not a cascade).
      this.error(`expected ${closing} before this ${object ? ']' : '}'}: the ${object ? 'object' : 'array'} opened on line ${this.lineOf(start)} is not closed`, this.pos, this.pos + 1);
      return true;
    } else {
      this.error(`expected a comma or ${closing}`, this.pos, this.pos + 1);
    }
    return false;
  }

  /** One member of an object, into `props`. False when the object cannot be read on. */
  private member(props: PropertyNode[], close: number): boolean {
    const c0 = this.b[this.pos];
    if (c0 === LBRACKET || c0 === LBRACE || c0 === RBRACKET || c0 === MINUS || (c0 >= ZERO && c0 <= NINE)) {
      // values where a key belongs: most often the rest of an array whose [ was lost
      const prev = props[props.length - 1];
      const hint = prev?.value && (prev.value.kind === 'array' || prev.value.kind === 'numbers') ? `: is a [ missing at the start of ${quote(prev.key)}?` : '';
      this.error(`expected a property name in double quotes, found ${c0 === RBRACKET ? 'a ]' : 'a value'}${hint}`, this.pos, this.pos + 1);
      if (c0 === RBRACKET) this.pos++;
      else this.parseValue();
      return true;
    }
    const prop = this.parseProperty();
    if (prop) {
      props.push(prop);
      if (prop.value) this.quiet = false; // read through again: the next slip is news
      return true;
    }
    return this.recover(close);
  }

  /** One item of an array, into `items`. False when the array ends here or cannot be read on. */
  private item(items: JsonNode[], close: number): boolean {
    const before = this.pos;
    const item = this.parseValue();
    if (item.kind === 'string' && this.colonAhead()) {
      // `"W2": …` inside an array: a key, so the array was never closed. One error where its
      // ] belongs, and the array ends there: the object around it reads on as written.
      const prev = items[items.length - 1];
      const at = prev ? prev.end : before;
      this.error(`expected ] here: the array is not closed, and ${quote(item.value)} after it is a key`, at, at + 1);
      this.pos = before;
      this.keyAhead = true;
      return false;
    }
    items.push(item);
    return !(item.kind === 'invalid' && this.pos === before && !this.recover(close));
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

  private parseArraySlow(start: number): ArrayNode {
    const items: JsonNode[] = [];
    const node: ArrayNode = { kind: 'array', items, start, end: start };
    this.parseItems(start, RBRACKET, null, items);
    node.end = this.pos;
    return node;
  }
}
