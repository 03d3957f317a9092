// Text edits that add an entry to a checkpoint model file, for the panel's "switch this neuron
// off" and "copy its weights here to edit": into the existing "ablate" list, "scale" or "weights"
// object, or a new key after "checkpoint" when there is none. Only an insertion: nothing the user
// wrote is rewritten; comments and formatting stay.
import { parseSaeId } from '../core/ids';
import { parseJsonc, type ObjectNode } from './jsonc';

export interface Insertion { readonly offset: number; readonly text: string }

/** `"ablate": […, unit]`; null when the unit is there already or the file does not parse. */
export function addAblate(text: string, unit: string): Insertion | null {
  return addEntry(text, 'ablate', JSON.stringify(unit), (arr) => arr.includes(unit));
}

/** `"scale": {…, unit: factor}` (or `"weights": {…, target: values}`); null when the key is there. */
export function addMapEntry(text: string, key: 'scale' | 'weights', entry: string, value: string): Insertion | null {
  return addEntry(text, key, `${JSON.stringify(entry)}: ${value}`, (_, keys) => keys.includes(entry));
}

/** An SAE feature's id (`layers.12.sae.1234`) taken apart, else null. */
export function saeFeatureOf(text: string): { site: string; feature: number } | null {
  const n = parseSaeId(text);
  return n && 'feature' in n ? { site: n.site, feature: n.feature } : null;
}

/** `"sae_ablate": […, feature]`, or `"sae_scale"` / `"sae_clamp": {…, feature: value}`; null when it is there already. */
export function addSaeEdit(text: string, kind: 'ablate' | 'scale' | 'clamp', feature: string, value: number): Insertion | null {
  if (kind === 'ablate') return addEntry(text, 'sae_ablate', JSON.stringify(feature), (arr) => arr.includes(feature));
  return addEntry(text, `sae_${kind}`, `${JSON.stringify(feature)}: ${value}`, (_, keys) => keys.includes(feature));
}

const LIST_KEYS: ReadonlySet<string> = new Set(['ablate', 'sae_ablate']);

function addEntry(text: string, key: string, item: string, present: (items: unknown[], keys: string[]) => boolean): Insertion | null {
  const { root } = parseJsonc(text);
  if (!root || root.kind !== 'object') return null;
  const obj = root as ObjectNode;
  const prop = obj.props.find((p) => p.key === key);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (!prop) {
    // a new key after "checkpoint", on its own line, indented as that line
    const after = obj.props.find((p) => p.key === 'checkpoint') ?? obj.props[obj.props.length - 1];
    if (!after?.value) return null;
    const lineStart = text.lastIndexOf('\n', after.keyStart) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
    const open = LIST_KEYS.has(key) ? '[' : '{';
    const close = LIST_KEYS.has(key) ? ']' : '}';
    const comma = text.slice(after.value.end).match(/^\s*,/);
    const at = comma ? after.value.end + comma[0].length : after.value.end;
    const entry = `${eol}${indent}"${key}": ${open}${item}${close}`;
    return { offset: at, text: comma ? `${entry},` : `,${entry}` };
  }
  const v = prop.value;
  if (!v) return null;
  if (LIST_KEYS.has(key) && v.kind === 'array') {
    const items = v.items.map((n) => (n.kind === 'string' ? n.value : null));
    if (present(items, [])) return null;
    const last = v.items[v.items.length - 1];
    return last ? { offset: last.end, text: `, ${item}` } : { offset: v.start + 1, text: item };
  }
  if (!LIST_KEYS.has(key) && v.kind === 'object') {
    if (present([], v.props.map((p) => p.key))) return null;
    const last = v.props[v.props.length - 1];
    return last?.value ? { offset: last.value.end, text: `, ${item}` } : { offset: v.start + 1, text: item };
  }
  return null;
}
