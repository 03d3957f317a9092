// Quick fixes, where the fix is unambiguous: the edits as offsets into the text, computed where
// the parsed tree is (the worker). Nothing is rewritten beyond the few characters each fix needs.
import { PARAM, paramId } from '../core/ids';
import { elementRanges, sourceSlice, type JsonNode, type ObjectNode, type PropertyNode, type Source } from './jsonc';
import type { Problem } from './problems';
import type { ModelFile } from './read';
import { pathAt } from './pathAt';
import { child, layerPath, nodeAt } from './tree';
import type { Fix, TextEdit } from '../protocol/edits';

/** How much text one look around an offset reads (the document may be tens of megabytes). */
const WINDOW = 4096;

/** The offset of the last line end (\n or a lone \r) before `offset` and after `floor`, or -1; reads windows, not the whole text. */
function lastNewline(text: Source, offset: number, floor: number): number {
  for (let b = offset; b > floor; b -= WINDOW) {
    const a = Math.max(floor, b - WINDOW);
    const w = sourceSlice(text, a, b);
    const i = Math.max(w.lastIndexOf('\n'), w.lastIndexOf('\r'));
    if (i >= 0) return a + i;
  }
  return -1;
}

/** The line end the text uses at a line end found by lastNewline: \r\n, \r or \n. */
function lineEndAt(text: Source, at: number): string {
  if (sourceSlice(text, at, at + 1) === '\r') return sourceSlice(text, at + 1, at + 2) === '\n' ? '\r\n' : '\r';
  return sourceSlice(text, at - 1, at) === '\r' ? '\r\n' : '\n';
}

function indentOf(text: Source, offset: number): string {
  const lineStart = lastNewline(text, offset, 0) + 1;
  return /^[ \t]*/.exec(sourceSlice(text, lineStart, offset))?.[0] ?? '';
}

function lastProp(obj: ObjectNode, key: string): PropertyNode | undefined {
  return [...obj.props].reverse().find((p) => p.key === key);
}

/** Inserts `"key": value` into an object after its last property (or as its first). */
function insertProperty(text: Source, obj: ObjectNode, key: string, value: string, after?: PropertyNode): TextEdit {
  const anchor = after ?? obj.props[obj.props.length - 1];
  if (!anchor) return { start: obj.start + 1, end: obj.start + 1, text: ` "${key}": ${value} ` };
  const indent = indentOf(text, anchor.keyStart);
  const nl = lastNewline(text, anchor.keyStart, obj.start);
  const sep = nl >= 0 ? `${lineEndAt(text, nl)}${indent}` : ' ';
  // after the anchor's value, keeping its comma if it has one
  const end = anchor.end;
  const rest = sourceSlice(text, end, end + WINDOW);
  const comma = /^\s*,/.exec(rest);
  if (comma) {
    const at = end + comma[0].length;
    return { start: at, end: at, text: `${sep}"${key}": ${value},` };
  }
  return { start: end, end, text: `,${sep}"${key}": ${value}` };
}

function zeros(n: number): string {
  return `[${Array(n).fill('0').join(', ')}]`;
}

export function fixesFor(text: Source, root: JsonNode | null, problems: readonly Problem[], model: ModelFile | null, start: number, end: number): Fix[] {
  const out: Fix[] = [];
  const overlaps = (p: Problem): boolean => p.start <= end && p.end >= start;
  for (const p of problems) {
    if (!overlaps(p)) continue;
    const fixes = { code: p.code, start: p.start };
    const hint = p.fix;
    if (hint?.kind === 'rename-key') {
      out.push({ title: `Rename to "${hint.to}"`, edits: [{ start: p.start, end: p.end, text: `"${hint.to}"` }], fixes, preferred: true });
    } else if (hint?.kind === 'set-layout' && root?.kind === 'object') {
      const existing = lastProp(root, 'layout');
      const edit = existing?.value
        ? { start: existing.value.start, end: existing.value.end, text: `"${hint.to}"` }
        : insertProperty(text, root, 'layout', `"${hint.to}"`, lastProp(root, 'version'));
      out.push({ title: `Set "layout": "${hint.to}" (every matrix fits only that way)`, edits: [edit], fixes, preferred: true });
    } else if (hint?.kind === 'tokens-length') {
      const node = nodeAt(root, ['tokens']);
      if (node?.kind === 'array' && node.items.every((x) => x.kind === 'string')) {
        const labels = node.items.map((x) => (x.kind === 'string' ? x.value : ''));
        const n = hint.expected;
        const fixed = n <= labels.length ? labels.slice(0, n) : [...labels, ...Array.from({ length: n - labels.length }, (_, i) => `t${labels.length + i}`)];
        const verb = n < labels.length ? `Trim tokens to ${n}` : `Pad tokens to ${n} (t${labels.length}…)`;
        out.push({ title: verb, edits: [{ start: node.start, end: node.end, text: `[${fixed.map((s) => JSON.stringify(s)).join(', ')}]` }], fixes, preferred: true });
      }
    } else if (hint?.kind === 'vector-length') {
      // only the tail changes: what the user wrote before it (comments too) stays as it is
      const node = nodeAt(root, p.path);
      if (node && (node.kind === 'numbers' || node.kind === 'array')) {
        const items = elementRanges(text, node);
        const n = hint.expected;
        const close = node.end - 1; // the "]"
        let edit: TextEdit;
        if (items.length < n) {
          const more = Array(n - items.length).fill(String(hint.fill)).join(', ');
          const at = items.length ? items[items.length - 1][1] : close;
          edit = { start: at, end: at, text: items.length ? `, ${more}` : more };
        } else {
          edit = { start: n ? items[n - 1][1] : node.start + 1, end: items[items.length - 1][1], text: '' };
        }
        const title = n < items.length ? `Trim to ${n} numbers` : `Pad with ${hint.fill === 1 ? 'ones' : 'zeros'} to ${n} numbers`;
        out.push({ title, edits: [edit], fixes });
      }
    }
  }
  if (model) out.push(...missingBiasFixes(text, root, model, start));
  return out;
}

/**
 * "Add b1 filled with zeros" where the cursor is on the key of an ffn/attention/head without that
 * bias, or of the matrix it goes with (a bias is optional: offered there, not on every line).
 */
function missingBiasFixes(text: Source, root: JsonNode | null, file: ModelFile, offset: number): Fix[] {
  const hit = pathAt(text, root, offset);
  if (!hit || !hit.onKey) return [];
  const key = hit.path[hit.path.length - 1];
  const path = hit.path;
  const out: Fix[] = [];
  const { spec, params } = file.model;
  const usesLayers = !!child(root, 'layers');
  const sub = path.findIndex((s) => s === 'ffn' || s === 'attention' || s === 'head');
  if (sub < 0) return [];
  const kind = path[sub] as 'ffn' | 'attention' | 'head';
  const layer = usesLayers && path[0] === 'layers' && typeof path[1] === 'number' ? path[1] : 0;
  const objPath = kind === 'head' ? ['head'] : [...layerPath(root, layer), kind];
  const obj = nodeAt(root, objPath);
  if (obj?.kind !== 'object') return [];
  const wanted: Array<[string, string, number]> = [];
  if (kind === 'ffn') {
    const f = spec.layers[layer]?.ffn;
    if (!f) return [];
    wanted.push(['b1', 'W1', f.F], ['b2', 'W2', spec.C]);
    if (params.has(paramId(layer, PARAM.Wg))) wanted.push(['bg', 'Wg', f.F]);
  } else if (kind === 'attention') {
    if (!spec.layers[layer]?.attention) return [];
    for (const k of ['q', 'k', 'v', 'o']) wanted.push([`b${k}`, `W${k}`, spec.C]);
  } else if (spec.head) {
    wanted.push(['b', 'W', spec.head.V]);
  }
  for (const [bias, matrix, n] of wanted) {
    if (lastProp(obj, bias) || (key !== kind && key !== matrix)) continue;
    const after = lastProp(obj, matrix);
    out.push({ title: `Add ${bias} filled with zeros (${n} numbers)`, edits: [insertProperty(text, obj, bias, zeros(n), after)] });
  }
  return out;
}
