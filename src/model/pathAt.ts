// From an offset in the text to the JSON path of the innermost value there, e.g.
// `layers[0].ffn.W1[12][3]`, and the range of that value. A number inside a fast-path row has no
// node of its own, so the row is scanned again to find which element the offset falls in.
import { elementRanges, type JsonNode, type Source } from './jsonc';
import type { PathSegment } from './problems';

export interface PathHit {
  readonly path: PathSegment[];
  readonly start: number;
  readonly end: number;
  /** The node at the path, or the row holding the number (for a number of a fast-path row). */
  readonly node: JsonNode;
  /** The offset is on a property name (the path names that property). */
  readonly onKey: boolean;
}

const inside = (n: { start: number; end: number }, offset: number): boolean => offset >= n.start && offset <= n.end;

export function pathAt(text: Source, root: JsonNode | null, offset: number): PathHit | null {
  if (!root || !inside(root, offset)) return null;
  const path: PathSegment[] = [];
  let node: JsonNode = root;
  for (;;) {
    if (node.kind === 'object') {
      const prop = node.props.find((p) => inside(p, offset) || (offset >= p.keyStart && offset <= p.keyEnd));
      if (!prop) break;
      path.push(prop.key);
      if (offset >= prop.keyStart && offset <= prop.keyEnd) return { path, start: prop.keyStart, end: prop.keyEnd, node: prop.value ?? node, onKey: true };
      if (!prop.value || !inside(prop.value, offset)) return { path, start: prop.keyStart, end: prop.end, node: prop.value ?? node, onKey: true };
      node = prop.value;
    } else if (node.kind === 'array') {
      const i = node.items.findIndex((it) => inside(it, offset));
      if (i < 0) break;
      path.push(i);
      node = node.items[i];
    } else if (node.kind === 'numbers') {
      const ranges = elementRanges(text, node);
      const i = ranges.findIndex(([s, e]) => offset >= s && offset <= e);
      if (i < 0) break;
      path.push(i);
      return { path, start: ranges[i][0], end: ranges[i][1], node, onKey: false };
    } else {
      break;
    }
  }
  return { path, start: node.start, end: node.end, node, onKey: false };
}
