// Incremental reading: an edit inside one row of numbers (the usual edit: a weight typed over)
// re-scans only that row, straight into the arena the model's Float32Arrays are views of, and
// shifts the offsets of everything after it. Anything else — an edit that touches brackets,
// keys, strings or comments, changes how many numbers a row has, or lands in a file that did
// not read as a model — is not incremental: the caller falls back to a full read.
//
// The result must equal a from-scratch read of the same text (tested with random edit sequences).
import type { TextChange } from '../compute/protocol';
import { scanNumberRow, type JsonNode, type NumbersNode, type ParsedJson } from './jsonc';
import { pathAt } from './pathAt';
import type { PathSegment, Problem } from './problems';
import type { ReadResult } from './read';
import type { TextChunks } from './textChunks';

/** One row (or vector) whose values changed, and which of its elements did. */
export interface RowChange {
  readonly node: NumbersNode;
  readonly path: PathSegment[];
  readonly changed: number[];
}

export type IncrementalOutcome =
  | { readonly ok: true; readonly rows: RowChange[] }
  /** `applied`: how many of the changes are in the text (the rest are not); the read is stale. */
  | { readonly ok: false; readonly reason: string; readonly applied: number };

const EDIT_CHARS = /^[0-9eE+\-., \t\r\n]*$/;

/** The number row whose interior (between its brackets) holds [offset, offset + length]. */
function rowAt(rows: readonly NumbersNode[], offset: number, length: number): NumbersNode | null {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = rows[mid];
    if (r.end <= offset) lo = mid + 1;
    else if (r.start > offset) hi = mid - 1;
    else return offset > r.start && offset + length < r.end ? r : null;
  }
  return null;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Moves every offset at or after `from` by `delta`, and stretches the nodes that contain `from`. */
function shift(node: JsonNode, from: number, delta: number): void {
  const n = node as Mutable<JsonNode>;
  if (n.start >= from) n.start += delta;
  if (n.end >= from) n.end += delta;
  else return; // a node that ends before the edit holds nothing after it
  if (node.kind === 'object') {
    for (const p of node.props) {
      const mp = p as Mutable<typeof p>;
      if (mp.keyStart >= from) mp.keyStart += delta;
      if (mp.keyEnd >= from) mp.keyEnd += delta;
      if (mp.start >= from) mp.start += delta;
      if (mp.end >= from) mp.end += delta;
      if (p.value) shift(p.value, from, delta);
    }
  } else if (node.kind === 'array') {
    for (const it of node.items) shift(it, from, delta);
  }
}

/**
 * Applies `changes` (in order, each relative to the text after the previous) to `text` (in place)
 * and to `read`, if every change stays inside one row of numbers and keeps its count. When one does
 * not, it is not applied, and the outcome says how many were: the caller applies the rest to the
 * text and reads it all again (rows patched by earlier changes of the batch do not matter then).
 */
export function applyIncrementally(text: TextChunks, read: ReadResult, changes: readonly TextChange[]): IncrementalOutcome {
  if (!read.model) return { ok: false, reason: 'the last read has errors', applied: 0 };
  const json: ParsedJson = read.json;
  const rows: RowChange[] = [];
  for (let k = 0; k < changes.length; k++) {
    const c = changes[k];
    const refuse = (reason: string): IncrementalOutcome => ({ ok: false, reason, applied: k });
    if (!EDIT_CHARS.test(c.text)) return refuse('the edit inserts structure');
    const row = rowAt(json.numberArrays, c.offset, c.length);
    if (!row) return refuse('the edit is not inside one row of numbers');
    const old = text.slice(c.offset, c.offset + c.length);
    if (!EDIT_CHARS.test(old)) return refuse('the edit removes structure');
    const delta = c.text.length - c.length;
    const before = json.arena.slice(row.offset, row.offset + row.length);
    text.edit(c.offset, c.length, c.text);
    const n = scanNumberRow(text, row.start, row.end + delta, json.arena, row.offset, row.length);
    if (n !== row.length) {
      json.arena.set(before, row.offset); // the values as they were
      text.edit(c.offset, c.text.length, old); // and the text
      return refuse(n < 0 ? 'the row no longer reads as numbers' : 'the row has a different count of numbers');
    }
    if (delta !== 0 && json.root) {
      // Everything after the edit moves; the row and its ancestors stretch.
      shift(json.root, c.offset + c.length, delta);
      for (const p of read.problems) shiftProblem(p, c.offset + c.length, delta);
    }
    const changed: number[] = [];
    for (let i = 0; i < row.length; i++) if (!Object.is(before[i], json.arena[row.offset + i])) changed.push(i);
    const known = rows.find((r) => r.node === row);
    if (known) {
      for (const i of changed) if (!known.changed.includes(i)) known.changed.push(i);
    } else {
      const hit = pathAt(text, json.root, row.start + 1);
      const path = hit ? (hit.node === row ? hit.path.slice(0, -1) : hit.path) : [];
      rows.push({ node: row, path, changed });
    }
  }
  return { ok: true, rows: rows.filter((r) => r.changed.length > 0) };
}

function shiftProblem(p: Problem, from: number, delta: number): void {
  const m = p as Mutable<Problem>;
  if (m.start >= from) m.start += delta;
  if (m.end >= from) m.end += delta;
}
