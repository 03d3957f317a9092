// applyIncrementally on a plain string, as the tests like it: the text after, and the outcome.
import type { TextChange } from '../../src/compute/protocol';
import { applyIncrementally, type IncrementalOutcome } from '../../src/model/incremental';
import type { ReadResult } from '../../src/model/read';
import { TextChunks } from '../../src/model/textChunks';

/** Tiny chunks, so that edits cross chunk boundaries all the time. */
export const TEST_CHUNK = 37;

export function applyToString(text: string, read: ReadResult, changes: readonly TextChange[]): IncrementalOutcome & { text: string } {
  const chunks = new TextChunks(text, TEST_CHUNK);
  const res = applyIncrementally(chunks, read, changes);
  if (!res.ok) for (const c of changes.slice(res.applied)) chunks.edit(c.offset, c.length, c.text);
  return { ...res, text: chunks.toString() };
}
