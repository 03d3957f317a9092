// ReadPatch on a plain string, as the tests like it: the text after, and the outcome.
import type { TextChange } from '../../src/protocol/worker';
import { ReadPatch, type RowChange } from '../../src/model/incremental';
import type { ReadResult } from '../../src/model/read';
import { TextChunks } from '../../src/model/textChunks';

/** Tiny chunks, so that edits cross chunk boundaries all the time. */
export const TEST_CHUNK = 37;

export type PatchOutcome = { readonly ok: true; readonly rows: RowChange[]; readonly text: string } | { readonly ok: false; readonly text: string };

/** Applies `changes` to `text` and, while it can, to `read` (in place), as the worker's session does. */
export function applyToString(text: string, read: ReadResult, changes: readonly TextChange[]): PatchOutcome {
  const chunks = new TextChunks(text, TEST_CHUNK);
  let patch: ReadPatch | null = new ReadPatch(read);
  for (const c of changes) {
    const removed = chunks.slice(c.offset, c.offset + c.length);
    chunks.edit(c.offset, c.length, c.text);
    if (patch && !patch.apply(chunks, c, removed)) patch = null;
  }
  return patch ? { ok: true, rows: patch.rows(), text: chunks.toString() } : { ok: false, text: chunks.toString() };
}
