// What every part of the reader shares: the parsed text, the problems found so far (each with its
// JSON path and offsets), and the readers of objects and scalars. The numbers (vectors, matrices)
// are read by readNumbers.ts on top of it.

import { nearestKey, type Fields } from './format';
import { FLOAT32_OVERFLOW, parseJsonc, sourceSlice, type JsonNode, type ObjectNode, type ParsedJson, type PropertyNode, type Source } from './jsonc';
import type { FixHint } from '../protocol/edits';
import { formatPath, type PathSegment, type Problem, type ProblemCode, type Severity } from './problems';
import { quote } from '../common/quote';

/** Where a problem stands in the text. */
export interface Span { readonly start: number; readonly end: number }

export class ReaderBase {
  readonly problems: Problem[] = [];
  readonly json: ParsedJson;

  constructor(readonly text: Source) {
    this.json = parseJsonc(text);
  }

  report(severity: Severity, code: ProblemCode, path: readonly PathSegment[], at: Span, message: string, fix?: FixHint): void {
    // A value with a syntax slip inside was read as well as could be: what it then seems to hold
    // (3 numbers where the user wrote 2 and a missing comma) would only be a second, false error.
    if (code !== 'syntax' && this.json.errors.some((e) => e.start >= at.start && e.start < at.end)) return;
    const p: Problem = fix ? { severity, code, message, path: [...path], start: at.start, end: at.end, fix } : { severity, code, message, path: [...path], start: at.start, end: at.end };
    this.problems.push(p);
  }
  error(code: ProblemCode, path: readonly PathSegment[], at: Span, message: string, fix?: FixHint): void {
    this.report('error', code, path, at, message, fix);
  }
  warn(code: ProblemCode, path: readonly PathSegment[], at: Span, message: string, fix?: FixHint): void {
    this.report('warning', code, path, at, message, fix);
  }
  hasErrors(): boolean {
    return this.problems.some((p) => p.severity === 'error');
  }

  /** `version`, which both kinds of model file need: 1. */
  checkVersion(top: Map<string, PropertyNode>, root: ObjectNode): void {
    const version = top.get('version');
    if (!version) this.error('missing', ['version'], { start: root.start, end: root.start + 1 }, 'version is required: add "version": 1');
    else if (version.value && !(version.value.kind === 'number' && version.value.value === 1)) {
      this.error('value', ['version'], version.value, `version must be 1 (this reader knows format version 1), found ${describe(version.value)}`);
    }
  }

  /**
   * The properties of an object, checked against the format (unknown and duplicate keys). An
   * unknown key holding numbers (a misspelled "attention", "W1", "layers") is more than noise: its
   * weights are silently left out of the model, so it is reported as such ('ignored-weights'),
   * which the panel shows in its banner, not only in the Problems panel.
   */
  fields(node: ObjectNode, path: readonly PathSegment[], spec: Fields): Map<string, PropertyNode> {
    const out = new Map<string, PropertyNode>();
    const valid = Object.keys(spec);
    const where = path.length ? formatPath(path) : 'the top level';
    for (const p of node.props) {
      const at = { start: p.keyStart, end: p.keyEnd };
      if (out.has(p.key)) {
        this.warn('duplicate-key', [...path, p.key], at, `${quote(p.key)} appears twice in ${where}; the last one counts`);
      }
      if (!(p.key in spec)) {
        this.unknownKey(p, path, where, valid);
        continue;
      }
      out.set(p.key, p);
    }
    return out;
  }

  private unknownKey(p: PropertyNode, path: readonly PathSegment[], where: string, valid: readonly string[]): void {
    const at = { start: p.keyStart, end: p.keyEnd };
    const near = nearestKey(p.key, valid);
    const fix: FixHint | undefined = near ? { kind: 'rename-key', to: near } : undefined;
    const key = `unknown key ${quote(p.key)} in ${where}`;
    if (near && EDIT_KEYS.has(near)) {
      // (a misspelled experiment runs the model as it is: a result that looks valid but is not)
      this.warn('ignored-edit', [...path, p.key], at, `${key}: did you mean "${near}"? It is not applied: the model is computed without it`, fix);
    } else if (p.value && holdsNumbers(p.value)) {
      this.warn('ignored-weights', [...path, p.key], at,
        near ? `${key}: did you mean "${near}"? Its weights are not used: the model is computed without them`
          : `${key}: its weights are not used, the model is computed without them (expected one of: ${valid.join(', ')})`, fix);
    } else {
      this.warn('unknown-key', [...path, p.key], at,
        near ? `${key}: did you mean "${near}"?` : `${key}; it is ignored (expected one of: ${valid.join(', ')})`, fix);
    }
  }

  bool(p: PropertyNode | undefined, path: readonly PathSegment[], dflt: boolean): boolean {
    if (!p?.value || p.value.kind === 'invalid') return dflt; // (a syntax error, reported already)
    if (p.value.kind === 'boolean') return p.value.value;
    this.error('type', path, p.value, `${formatPath(path)} must be true or false, found ${describe(p.value)}`);
    return dflt;
  }

  string(p: PropertyNode | undefined, path: readonly PathSegment[]): string | undefined {
    if (!p?.value || p.value.kind === 'invalid') return undefined;
    if (p.value.kind === 'string') return p.value.value;
    this.error('type', path, p.value, `${formatPath(path)} must be a string, found ${describe(p.value)}`);
    return undefined;
  }

  enumValue(p: PropertyNode | undefined, path: readonly PathSegment[], values: readonly string[], dflt: string): string {
    if (!p?.value || p.value.kind === 'invalid') return dflt;
    const v = p.value;
    const list = values.map((x) => `"${x}"`).join(', ');
    if (v.kind !== 'string') {
      this.error('type', path, v, `${formatPath(path)} must be one of ${list}, found ${describe(v)}`);
      return dflt;
    }
    if (!values.includes(v.value)) {
      const near = nearestKey(v.value, values);
      this.error('value', path, v, `${formatPath(path)} must be one of ${list}, found ${quote(v.value)}${near ? `: did you mean "${near}"?` : ''}`);
      return dflt;
    }
    return v.value;
  }

  /** `float32`: the number is held as float32 (a weight, a scale factor): one too large for it is an error, not Infinity. */
  number(p: PropertyNode | undefined, path: readonly PathSegment[], opts: { integer?: boolean; min?: number; above?: number; float32?: boolean }, dflt: number): number {
    if (!p?.value || p.value.kind === 'invalid') return dflt;
    const v = p.value;
    const what = opts.integer ? 'a whole number' : 'a number';
    if (v.kind === 'nonfinite') {
      this.error('nonfinite', path, v, `${formatPath(path)} must be a finite number, found ${notJsonNumber(v.text)}`);
      return dflt;
    }
    if (v.kind !== 'number') {
      this.error('type', path, v, `${formatPath(path)} must be ${what}, found ${describe(v)}`);
      return dflt;
    }
    if (opts.integer && !Number.isInteger(v.value)) {
      this.error('value', path, v, `${formatPath(path)} must be a whole number, found ${v.value}`);
      return dflt;
    }
    if (opts.min !== undefined && v.value < opts.min) {
      this.error('value', path, v, `${formatPath(path)} must be at least ${opts.min}, found ${v.value}`);
      return dflt;
    }
    if (opts.above !== undefined && !(v.value > opts.above)) {
      this.error('value', path, v, `${formatPath(path)} must be greater than ${opts.above}, found ${v.value}`);
      return dflt;
    }
    const overflow = opts.float32 ? this.float32Overflow(path, v) : null;
    if (overflow) {
      this.error('overflow', path, v, overflow);
      return dflt;
    }
    return v.value;
  }

  /** What is wrong with a number a float32 holds as Infinity, or null when it fits. */
  float32Overflow(path: readonly PathSegment[], n: JsonNode & { kind: 'number' }): string | null {
    if (!(Math.abs(n.value) >= FLOAT32_OVERFLOW)) return null;
    return `${formatPath(path)} = ${oneLine(sourceSlice(this.text, n.start, n.end))} is too large for float32 (largest: ±3.4028235e38)`;
  }

  strings(node: JsonNode, path: readonly PathSegment[]): string[] | null {
    if (node.kind === 'invalid') return null;
    if (node.kind !== 'array') {
      this.error('type', path, node, `${formatPath(path)} must be an array of strings, found ${describe(node)}`);
      return null;
    }
    const out: string[] = [];
    let ok = true;
    node.items.forEach((item, i) => {
      if (item.kind === 'string') out.push(item.value);
      else {
        ok = false;
        this.error('type', [...path, i], item, `${formatPath([...path, i])} must be a string, found ${describe(item)}`);
      }
    });
    return ok ? out : null;
  }
}

/** A value, in a few words, for a message. */
export function describe(node: JsonNode): string {
  switch (node.kind) {
    case 'object': return 'an object';
    case 'array': return node.items.length === 0 ? 'an empty array' : 'an array';
    case 'numbers': return 'an array of numbers';
    case 'number': return `the number ${node.value}`;
    case 'string': return `the string ${quote(node.value, 24)}`;
    case 'boolean': return String(node.value);
    case 'null': return 'null';
    case 'nonfinite': return notJsonNumber(node.text);
    case 'invalid': return node.text ? quote(node.text) : 'nothing';
  }
}

/**
 * A NaN or Infinity the file holds, named as the file's word, not as a value we computed (so it
 * never reads like one of our own NaNs): "NaN, which is not a number JSON allows".
 */
export function notJsonNumber(word: string): string {
  return `${word}, which is not a number JSON allows`;
}

/** Whether a value holds weights: an array of numbers, or an array or object with one inside. */
function holdsNumbers(node: JsonNode): boolean {
  if (node.kind === 'numbers') return true;
  if (node.kind === 'array') return node.items.some((x) => x.kind === 'number' || holdsNumbers(x));
  if (node.kind === 'object') return node.props.some((p) => p.value !== null && holdsNumbers(p.value));
  return false;
}

/** Text quoted in a message, on one line: comments dropped, whitespace runs as one space. */
export function oneLine(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/\s+/g, ' ').trim();
}

/** The file name without folders and without .ffn.json / .json. */
export function defaultModelName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.ffn\.jsonc?$/i, '').replace(/\.jsonc?$/i, '') || base;
}

/** The keys of a checkpoint model file that change what is computed: misspelled, they are loud. */
const EDIT_KEYS: ReadonlySet<string> = new Set(['ablate', 'scale', 'weights', 'lens', 'temperature', 'corrupted_prompt', 'corrupted_token_ids', 'sae_ablate', 'sae_scale', 'sae_clamp']);
