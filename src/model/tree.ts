// Walking the parsed JSON tree by path.
import type { JsonNode } from './jsonc';
import type { PathSegment } from './problems';

export function child(node: JsonNode | null | undefined, seg: PathSegment): JsonNode | null {
  if (!node) return null;
  if (typeof seg === 'string') {
    if (node.kind !== 'object') return null;
    let found: JsonNode | null = null;
    for (const p of node.props) if (p.key === seg) found = p.value; // the last one counts, as in the reader
    return found;
  }
  if (node.kind === 'array') return node.items[seg] ?? null;
  return null;
}

export function nodeAt(root: JsonNode | null, path: readonly PathSegment[]): JsonNode | null {
  let n: JsonNode | null = root;
  for (const seg of path) {
    n = child(n, seg);
    if (!n) return null;
  }
  return n;
}

/** Where layer i's keys live: `layers[i]` or, in the single-layer shorthand, the top level. */
export function layerPath(root: JsonNode | null, i: number): PathSegment[] {
  return child(root, 'layers') ? ['layers', i] : [];
}
