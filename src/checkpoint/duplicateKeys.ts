// JSON.parse keeps the last of two equal keys and says nothing: a safetensors header naming one
// tensor twice, or an index mapping one name to two shards, would be read half-silently. This
// finds the first key an object repeats, in text JSON.parse has already accepted, with one pass
// and no recursion (100,000 nested brackets are a stack of frames, not of calls).

export interface DuplicateKey {
  /** The key, unescaped. */
  readonly key: string;
  /** The keys under which the repeating object sits, outermost first (arrays' indexes left out). */
  readonly within: readonly string[];
}

interface Frame {
  /** The object's keys so far; null for an array. */
  readonly keys: Set<string> | null;
  /** The last key read in this object. */
  current?: string;
}

/**
 * The first repeated key of any object in `json` (valid JSON), or null; only those `counts`
 * accepts, when given (the index's "metadata" may repeat what it likes).
 */
export function firstDuplicateKey(json: string, counts?: (d: DuplicateKey) => boolean): DuplicateKey | null {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(json, i);
      if (expectKey) {
        const frame = stack[stack.length - 1];
        const raw = json.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(json.slice(i, end + 1)) as string) : raw;
        if (frame.keys!.has(key)) {
          const dup = { key, within: stack.slice(0, -1).flatMap((f) => (f.keys && f.current !== undefined ? [f.current] : [])) };
          if (!counts || counts(dup)) return dup;
        }
        frame.keys!.add(key);
        frame.current = key;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      stack.push({ keys: new Set() });
      expectKey = true;
    } else if (c === 0x5b) {
      stack.push({ keys: null });
      expectKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = stack.length > 0 && stack[stack.length - 1].keys !== null;
    }
  }
  return null;
}

// The index of the quote that closes the string opened at `open` (one not escaped by an odd run of backslashes).
function stringEnd(json: string, open: number): number {
  for (let from = open + 1; ;) {
    const q = json.indexOf('"', from);
    if (q < 0) return json.length;
    let b = q - 1;
    while (json.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    from = q + 1;
  }
}
