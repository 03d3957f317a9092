// A word the user types for a lens (attribution's "any word"): its id, or its text as the panel's
// rows and columns label it.

/** `383` or `#383` (an id within the vocabulary), or a word's label (`·the`; a leading space may be typed as one). */
export function wordId(text: string, vocab: readonly string[]): number | null {
  if (text.trim() === '') return null;
  const n = /^#?(\d+)$/.exec(text.trim());
  if (n) return Number(n[1]) < vocab.length ? Number(n[1]) : null;
  for (const v of [text, text.replace(/^ /, '·'), `·${text.trim()}`, text.trim()]) {
    const i = vocab.indexOf(v);
    if (i >= 0) return i;
  }
  return null;
}
