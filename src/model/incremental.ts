// Incremental reading: an edit inside one row of numbers (the usual edit: a weight typed over)
// re-scans only that row, straight into the arena the model's Float32Arrays are views of, and
// shifts the offsets of everything after it. Which parameter and row it is comes from what the
// reader recorded for that range of numbers (ReadResult.rows), never from the text around it.
//
// Anything else (an edit that touches brackets, keys, strings or comments, changes how many
// numbers a row has, or lands in a file that did not read as a model) is refused: the caller
// then reads the whole text again. The result must equal a from-scratch read of the same text
// (tested with random edit sequences on many formattings, test/unit/worker/edits.test.ts).
import type { TextChange } from '../protocol/worker';
import { addChange, type Cols } from '../core/params';
import { scanNumberRow, type JsonNode, type NumbersNode, type Source } from './jsonc';
import type { Problem } from './problems';
import type { ReadResult, RowBinding } from './read';

/** One row (or vector) whose values changed, and which of its elements did. */
export interface RowChange {
  /** What the row is in the model; null for numbers the model does not use (an unknown key's). */
  readonly binding: RowBinding | null;
  readonly changed: number[];
}

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

function shiftProblem(p: Problem, from: number, delta: number): void {
  const m = p as Mutable<Problem>;
  if (m.start >= from) m.start += delta;
  if (m.end >= from) m.end += delta;
}

/**
 * Keeps a read in step with a text, one change at a time, while every change is a value edit
 * inside one row of numbers. The caller applies each change to the text first, then calls
 * apply(); once it returns false the read no longer matches the text (some rows may be half
 * patched) and must be read again: the patch is then spent.
 */
export class ReadPatch {
  private readonly changes = new Map<NumbersNode, RowChange>();
  private spent = false;

  constructor(private readonly read: ReadResult) {
    if (!read.file) this.spent = true;
  }

  /** `c` was just applied to `text`; `removed` is the text it replaced. */
  apply(text: Source, c: TextChange, removed: string): boolean {
    if (this.spent) return false;
    try {
      if (this.patch(text, c, removed)) return true;
    } catch {
      // an inconsistency we did not foresee: a full read is always right
    }
    this.spent = true;
    return false;
  }

  /** The rows whose values changed, once every change was applied. */
  rows(): RowChange[] {
    return [...this.changes.values()].filter((r) => r.changed.length > 0);
  }

  /**
   * What the engine must know: the rows of each matrix param and the elements of each vector
   * param that changed; null if a row the model does not bind changed (then read it all again).
   */
  paramChanges(): Map<string, Cols> | null {
    const out = new Map<string, Cols>();
    for (const r of this.rows()) {
      const b = r.binding;
      if (!b) return null;
      addChange(out, b.param, new Set(b.vector ? r.changed : [b.row]));
    }
    return out;
  }

  private patch(text: Source, c: TextChange, removed: string): boolean {
    const json = this.read.json;
    if (!EDIT_CHARS.test(c.text) || !EDIT_CHARS.test(removed)) return false;
    const row = rowAt(json.numberArrays, c.offset, c.length);
    if (!row) return false;
    const delta = c.text.length - c.length;
    const before = json.arena.slice(row.offset, row.offset + row.length);
    const n = scanNumberRow(text, row.start, row.end + delta, json.arena, row.offset, row.length);
    if (n !== row.length) return false; // no longer numbers, or another count of them
    if (delta !== 0 && json.root) {
      // Everything after the edit moves; the row and its ancestors stretch.
      shift(json.root, c.offset + c.length, delta);
      for (const p of this.read.problems) shiftProblem(p, c.offset + c.length, delta);
    }
    const binding = this.read.rows.get(row) ?? null;
    if (binding) {
      if (binding.at + row.length > binding.data.length) return false;
      // (the model's numbers are a view of the arena, or a copy for a matrix read the slow way)
      binding.data.set(json.arena.subarray(row.offset, row.offset + row.length), binding.at);
    }
    let known = this.changes.get(row);
    if (!known) this.changes.set(row, (known = { binding, changed: [] }));
    for (let i = 0; i < row.length; i++) {
      if (!Object.is(before[i], json.arena[row.offset + i]) && !known.changed.includes(i)) known.changed.push(i);
    }
    return true;
  }
}
