// The reader's numbers: vectors and matrices checked element by element and against the shapes
// they must have, each row recorded with the param it belongs to (the incremental re-read maps an
// edit through these), and the layout hint when every matrix fits only the other layout.

import type { Layout } from '../core/spec';
import { sourceSlice, type ArrayNode, type JsonNode, type NumbersNode, type PropertyNode } from './jsonc';
import type { ParamNode, RowBinding } from './modelFile';
import { formatPath, type PathSegment, type ProblemCode } from './problems';
import { describe, notJsonNumber, oneLine, ReaderBase } from './readerBase';
import { formatFloat32 } from '../common/float32';

/** A checked matrix as the file stores it: rows × cols. */
export interface Mat { readonly rows: number; readonly cols: number; readonly data: Float32Array; readonly node: JsonNode }
interface Vec { readonly length: number; readonly data: Float32Array; readonly node: JsonNode }

/** A dimension a shape is checked against, and where its size comes from (for the message). */
export interface Dim { readonly n: number; readonly name: string; readonly why: string }

const MAX_ELEMENT_PROBLEMS = 12;
/** The largest token id read: float32 (how vectors are read) holds every whole number below 2^24 exactly (16777217 would read as 2^24). */
const MAX_TOKEN_ID = 2 ** 24 - 1;

export class NumberReader extends ReaderBase {
  readonly rows = new Map<NumbersNode, RowBinding>();
  readonly paramNodes = new Map<string, ParamNode>();
  layout: Layout = 'out_in';
  /** Non-square matrices: how many fit the current layout, how many fit only the other. */
  private fitCurrent = 0;
  private fitOtherOnly = 0;
  private readonly layoutProblems: number[] = [];

  /** Reports every element of a slow-path array that is not a finite float32 number. */
  private elementProblems(items: readonly JsonNode[], path: readonly PathSegment[], budget: { left: number }): boolean {
    let ok = true;
    items.forEach((item, i) => {
      const at = [...path, i];
      let msg: string | null = null;
      let code: ProblemCode = 'type';
      if (item.kind === 'number') {
        msg = this.float32Overflow(at, item);
        if (msg) code = 'overflow';
      } else if (item.kind === 'nonfinite') {
        code = 'nonfinite';
        msg = `${formatPath(at)} is ${notJsonNumber(item.text)}: write a finite number`;
      } else if (item.kind === 'invalid') {
        code = 'syntax';
        msg = null; // the syntax error is reported already
        ok = false;
      } else {
        msg = `${formatPath(at)} must be a number, found ${describe(item)}`;
      }
      if (msg !== null) {
        ok = false;
        if (budget.left-- > 0) this.error(code, at, item, msg);
      }
    });
    return ok;
  }

  vector(node: JsonNode, path: readonly PathSegment[]): Vec | null {
    if (node.kind === 'invalid') return null;
    if (node.kind === 'numbers') return { length: node.length, data: this.json.arena.subarray(node.offset, node.offset + node.length), node };
    if (node.kind === 'array') {
      if (node.items.some((x) => x.kind === 'array' || x.kind === 'numbers')) {
        this.error('type', path, node, `${formatPath(path)} must be a vector (an array of numbers), found an array of arrays`);
        return null;
      }
      const budget = { left: MAX_ELEMENT_PROBLEMS };
      if (!this.elementProblems(node.items, path, budget)) {
        this.moreProblems(path, node, budget);
        return null;
      }
      // [] — or numbers read the slow way (a comment slip made the fast pass give up)
      const data = Float32Array.from(node.items, (x) => (x.kind === 'number' ? x.value : NaN));
      return { length: data.length, data, node };
    }
    this.error('type', path, node, `${formatPath(path)} must be a vector (an array of numbers), found ${describe(node)}`);
    return null;
  }

  private moreProblems(path: readonly PathSegment[], node: JsonNode, budget: { left: number }): void {
    if (budget.left < 0) this.error('type', path, { start: node.start, end: node.start + 1 }, `… and ${-budget.left} more problem${budget.left === -1 ? '' : 's'} in ${formatPath(path)}`);
  }

  /** Records that \`node\`'s numbers are row \`row\` of \`param\`, held at data[at…]. */
  private bind(node: JsonNode, param: string, vector: boolean, row: number, data: Float32Array, at: number): void {
    if (node.kind === 'numbers') this.rows.set(node, { param, vector, row, data, at });
  }

  matrix(node: JsonNode, path: readonly PathSegment[], name: string, param: string): Mat | null {
    if (node.kind === 'invalid') return null;
    if (node.kind === 'numbers') {
      // (on one line: a message is one line of the Problems panel and of the command line's output)
      const preview = oneLine(sourceSlice(this.text, node.start, Math.min(node.end, node.start + 40)));
      this.error('type', path, node, `${formatPath(path)} must be a matrix (an array of rows), found a single row of ${node.length} numbers; wrap it in brackets: [${preview}${node.end - node.start > 40 ? '…' : ''}]`);
      return null;
    }
    if (node.kind !== 'array') {
      this.error('type', path, node, `${formatPath(path)} must be a matrix (an array of rows of numbers), found ${describe(node)}`);
      return null;
    }
    if (node.items.length === 0) {
      this.error('shape', path, node, `${formatPath(path)} has no rows`);
      return null;
    }
    const rows = node.items;
    const budget = { left: MAX_ELEMENT_PROBLEMS };
    let ok = true;
    const lengths: number[] = rows.map((row, i) => {
      const at = [...path, i];
      if (row.kind === 'numbers') return row.length;
      if (row.kind === 'array') {
        if (this.elementProblems(row.items, at, budget)) return row.items.length;
        ok = false;
        return -1;
      }
      ok = false;
      if (budget.left-- > 0) this.error('type', at, row, `${formatPath(at)} must be a row (an array of numbers), found ${describe(row)}`);
      return -1;
    });
    const cols = this.rowLength(node, path, name, lengths, budget);
    this.moreProblems(path, node, budget);
    if (!ok || cols <= 0) return null;
    const data = this.matrixData(node, cols);
    rows.forEach((r, i) => this.bind(r, param, false, i, data, i * cols));
    this.paramNodes.set(param, { node, path: [...path] });
    return { rows: rows.length, cols, data, node };
  }

  /**
   * The rows' length: the one most rows have (ties: row 0's), so one odd row is the one blamed.
   * -1 when a row is empty or of another length (reported).
   */
  private rowLength(node: ArrayNode, path: readonly PathSegment[], name: string, lengths: readonly number[], budget: { left: number }): number {
    const rows = node.items;
    const counts = new Map<number, number>();
    for (const n of lengths) if (n >= 0) counts.set(n, (counts.get(n) ?? 0) + 1);
    let cols = -1;
    let best = 0;
    for (const n of lengths) {
      if (n < 0) continue;
      const c = counts.get(n)!;
      if (c > best) {
        best = c;
        cols = n;
      }
    }
    let ok = true;
    const ref = lengths.indexOf(cols);
    if (cols === 0) {
      ok = false;
      this.error('shape', [...path, ref], rows[ref], `${formatPath([...path, ref])} is empty: a row needs at least one number`);
    }
    lengths.forEach((len, i) => {
      if (len < 0 || len === cols) return;
      ok = false;
      const at = [...path, i];
      if (budget.left-- > 0) {
        this.error('ragged', at, rows[i], `${formatPath(at)} has ${len} number${len === 1 ? '' : 's'} but ${name}[${ref}] has ${cols}${best > 1 ? ` (as ${best === rows.length - 1 ? 'every other row' : `${best} rows`})` : ''}: every row of a matrix has the same length`);
      }
    });
    return ok ? cols : -1;
  }

  /** The rows' numbers as one Float32Array: a view into the arena when they lie in a row. */
  private matrixData(node: ArrayNode, cols: number): Float32Array {
    const rows = node.items;
    const first = rows[0].kind === 'numbers' ? rows[0].offset : -1;
    if (first >= 0 && rows.every((r, i) => r.kind === 'numbers' && r.offset === first + i * cols)) {
      return this.json.arena.subarray(first, first + rows.length * cols);
    }
    // rows read the slow way (after a syntax slip in them): their numbers, copied
    const out = new Float32Array(rows.length * cols);
    rows.forEach((r, i) => {
      if (r.kind === 'numbers') out.set(this.json.arena.subarray(r.offset, r.offset + cols), i * cols);
      else if (r.kind === 'array') r.items.forEach((x, j) => { out[i * cols + j] = x.kind === 'number' ? x.value : NaN; });
    });
    return out;
  }

  /** A vector that must have n elements; `why` says where n comes from. */
  sizedVector(p: PropertyNode | undefined, path: readonly PathSegment[], param: string, n: number | null, why: string): Float32Array | null {
    if (!p?.value) return null;
    const v = this.vector(p.value, path);
    if (!v || n === null) return null;
    if (v.length !== n) {
      const fill = path[path.length - 1] === 'gamma' ? 1 : 0; // a scale pads with 1, a bias or shift with 0
      this.error('shape', path, v.node, `${formatPath(path)} has ${v.length} number${v.length === 1 ? '' : 's'} but ${why}, so it must have ${n}`, { kind: 'vector-length', expected: n, fill });
      return null;
    }
    this.bind(v.node, param, true, 0, v.data, 0);
    this.paramNodes.set(param, { node: v.node, path: [...path] });
    return v.data;
  }

  /**
   * A weight matrix of a linear map in → out, stored [out][in] (out_in) or [in][out] (in_out).
   * `out` null means this matrix defines it. Returns the out dimension, or null on a mismatch.
   */
  linearShape(m: Mat, path: readonly PathSegment[], name: string, inDim: Dim, out: { n: number | null; name: string; why?: string }): number | null {
    const L = this.layout;
    const [o, i] = L === 'out_in' ? [m.rows, m.cols] : [m.cols, m.rows];
    const fits = (oo: number, ii: number): boolean => ii === inDim.n && (out.n === null || oo === out.n);
    const square = m.rows === m.cols;
    if (fits(o, i)) {
      if (!square) this.fitCurrent++;
      return o;
    }
    const outStr = out.n === null ? out.name : String(out.n);
    const expected = L === 'out_in' ? `[${outStr}, ${inDim.n}]` : `[${inDim.n}, ${outStr}]`;
    const because = out.n === null || !out.why ? `${inDim.why}` : `${inDim.why} and ${out.why}`;
    let msg = `${formatPath(path)} is [${m.rows}, ${m.cols}] but ${because}, so ${name} must be ${expected} (layout ${L})`;
    const otherFits = fits(i, o) && !square;
    if (otherFits) {
      const other = L === 'out_in' ? 'in_out' : 'out_in';
      msg += `; it fits layout "${other}" (${other === 'in_out' ? '[in][out]' : '[out][in]'}): if the file stores matrices that way, set "layout": "${other}" at the top level`;
      this.fitOtherOnly++;
      this.layoutProblems.push(this.problems.length);
      this.error('layout', path, m.node, msg);
    } else {
      this.error('shape', path, m.node, msg);
    }
    return null;
  }

  /** The layout quick fix is offered only when every non-square matrix fits only the other way. */
  finishLayoutHints(): void {
    if (this.fitOtherOnly === 0 || this.fitCurrent > 0) return;
    const to = this.layout === 'out_in' ? 'in_out' : 'out_in';
    for (const i of this.layoutProblems) this.problems[i] = { ...this.problems[i], fix: { kind: 'set-layout', to } };
  }

  /** Where each item of an array stands (a packed array of numbers: found again in its source). */
  itemSpans(node: JsonNode): ReadonlyArray<{ start: number; end: number }> | undefined {
    if (node.kind === 'array') return node.items;
    if (node.kind === 'numbers') return numberSpans(sourceSlice(this.text, node.start, node.end), node.start);
    return undefined;
  }

  /** Token ids are read as float32 (the vector reader's): exact up to 2^24, far past any vocabulary. */
  integers(node: JsonNode, path: readonly PathSegment[]): number[] | null {
    const v = this.vector(node, path);
    if (!v) return null;
    const bad = Array.from(v.data).findIndex((x) => !Number.isInteger(x) || x < 0 || x > MAX_TOKEN_ID);
    if (bad >= 0) {
      // (quoted as written: the numbers were read as float32, which rounds 1e20 to 100000002004087730000)
      const item = this.itemSpans(node)?.[bad];
      const x = v.data[bad];
      const found = item ? oneLine(sourceSlice(this.text, item.start, item.end)) : x > MAX_TOKEN_ID ? `a number above ${MAX_TOKEN_ID}` : formatFloat32(x);
      // (the vocabulary is the checkpoint's, checked once it is read: here only what no id can be)
      const what = x > MAX_TOKEN_ID ? `a token id, at most ${MAX_TOKEN_ID}` : 'a token id (a whole number, 0 or more)';
      this.error('value', [...path, bad], item ?? node, `${formatPath([...path, bad])} must be ${what}, found ${found}`);
      return null;
    }
    return Array.from(v.data);
  }
}

/**
 * Where each number of an array of numbers stands (the reader keeps only their values): the
 * literals of its source (`[` at `offset`), comments skipped. For the short lists of token ids.
 */
function numberSpans(source: string, offset: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  for (const m of source.slice(1).matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|[-+.\dA-Za-z]+/g)) {
    const at = offset + 1 + m.index!;
    if (m[0][0] !== '/') out.push({ start: at, end: at + m[0].length });
  }
  return out;
}
