// Completion in a model file: which keys (or which values) the format allows at the cursor. The
// cursor's place is found by scanning backwards from it to the objects that enclose it (over the
// text as it is, half-typed and not parseable, which is when completion is asked for): strings,
// comments, and whole nested arrays and objects are stepped over, so the scan reads only what lies
// between the cursor and the start of its enclosing objects, never the file's parse tree.

import { CHECKPOINT_FIELDS, MODEL_FIELDS, type FieldSpec, type Fields } from './format';
import type { PathSegment } from './problems';
import type { CompletionItemData } from '../protocol/edits';

export interface CompletionPlace {
  /** The JSON path of the object (or array) the cursor is in. */
  readonly path: PathSegment[];
  /** In an object, where a key goes (true) or after `"key":`, where its value goes (false). */
  readonly atKey: boolean;
  /** At a value: its key. */
  readonly key: string | null;
  /** Keys the object already has before the cursor. */
  readonly present: string[];
}

/** The place of `offset` in `text`, or null (inside a string value, a number, a comment, outside the root). */
export function completionPlace(text: string, offset: number): CompletionPlace | null {
  // the line up to the cursor, to see where in it we are
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = stripLineComment(text.slice(lineStart, offset));
  if (before === null) return null; // in a // comment
  const valueMatch = /"((?:[^"\\]|\\.)*)"\s*:\s*"?[\w-]*$/.exec(before);
  const keyMatch = /(^|[{,\s])"?[\w-]*$/.exec(before);
  if (!valueMatch && !keyMatch) return null;
  // (from before what is being typed: a half-typed key or value is not part of the scan)
  const from = valueMatch ? lineStart + valueMatch.index : offset - (keyMatch![0].length - keyMatch![1].length);
  const chain = enclosing(text, from);
  if (!chain || (chain.inArray && !valueMatch)) return null; // (an array holds no keys)
  return valueMatch
    ? { path: chain.path, atKey: false, key: valueMatch[1], present: chain.present }
    : { path: chain.path, atKey: true, key: null, present: chain.present };
}

/** The keys or values the format offers at a place, as items. */
export function completionItems(place: CompletionPlace, checkpoint: boolean): CompletionItemData[] {
  const fields = fieldsAt(place.path, checkpoint);
  if (!fields) return [];
  if (place.atKey) {
    return Object.entries(fields).filter(([k]) => !place.present.includes(k)).map(([k, f]) => ({
      label: k, insert: `"${k}": ${placeholder(f)}`, detail: f.type === 'enum' ? (f.values ?? []).join(' | ') : f.type, documentation: f.description,
    }));
  }
  const f = place.key !== null ? fields[place.key] : undefined;
  if (!f) return [];
  const values = f.type === 'enum' ? f.values ?? [] : f.type === 'boolean' ? ['true', 'false'] : [];
  return values.map((v) => ({ label: v, insert: f.type === 'enum' ? `"${v}"` : v, detail: place.key!, documentation: f.description + (f.default !== undefined && String(f.default) === v ? ' (the default)' : '') }));
}

/** The fields the format allows in the object at `path`. */
export function fieldsAt(path: readonly PathSegment[], checkpoint: boolean): Fields | null {
  let fields: Fields = checkpoint ? CHECKPOINT_FIELDS : { ...MODEL_FIELDS, checkpoint: CHECKPOINT_FIELDS.checkpoint };
  let spec: FieldSpec | null = null;
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (spec?.type !== 'objects' || !spec.fields) return null;
      fields = spec.fields;
      spec = null;
      continue;
    }
    spec = fields[seg] ?? null;
    if (!spec) return null;
    if (spec.type === 'object' && spec.fields) fields = spec.fields;
    else if (spec.type !== 'objects') return null;
  }
  return spec?.type === 'objects' ? null : fields;
}

function placeholder(f: FieldSpec): string {
  switch (f.type) {
    case 'object': return '{}';
    case 'objects': return '[{}]';
    case 'matrix': return '[[]]';
    case 'vector': case 'integers': case 'strings': return '[]';
    case 'map': return '{}';
    case 'positions': return '"all"';
    case 'string': return '""';
    case 'enum': return `"${f.default ?? f.values?.[0] ?? ''}"`;
    default: return f.default !== undefined ? String(f.default) : '';
  }
}

/** The line as it is when its end is code; null when its end is inside a `//` comment. */
function stripLineComment(line: string): string | null {
  return stripCode(line, 0, line.length) === line.length ? line : null;
}

/**
 * The path of the object or array enclosing `offset`, and the keys before the cursor in that
 * object. Scans backwards at depth 0, stepping over strings and nested containers; a line's `//`
 * comment is found from the line's start (a backward scan cannot tell it from code).
 */
function enclosing(text: string, offset: number): { path: PathSegment[]; present: string[]; inArray: boolean } | null {
  const path: PathSegment[] = [];
  /** Keys of the innermost object before the cursor; fixed once that object's `{` is found. */
  const present: string[] = [];
  let inner = true;
  let inArray = false;
  let depth = 0;
  let commas = 0;
  let lineStart = Infinity;
  let codeEnd = -1;
  const isCode = (at: number): boolean => {
    if (at < lineStart) {
      lineStart = text.lastIndexOf('\n', at) + 1;
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      codeEnd = stripCode(text, lineStart, end);
    }
    return at < codeEnd;
  };
  const skipSpace = (k: number): number => {
    while (k >= 0 && (/\s/.test(text[k]) || !isCode(k))) k--;
    return k;
  };
  let i = offset - 1;
  while (i >= 0) {
    if (!isCode(i)) { i--; continue; }
    const c = text[i];
    if (c === '"') {
      const j = openingQuote(text, i);
      if (j < 0) return null;
      if (inner && depth === 0) {
        let k = i + 1;
        while (k < offset && /\s/.test(text[k])) k++;
        const key = text[k] === ':' ? parseKey(text.slice(j, i + 1)) : null;
        if (key !== null) present.push(key);
      }
      i = j - 1;
      continue;
    }
    if (c === '}' || c === ']') depth++;
    else if ((c === '{' || c === '[') && depth > 0) depth--;
    else if (c === ',' && depth === 0) commas++;
    else if (c === '{' || c === '[') {
      if (inner) inArray = c === '[';
      inner = false;
      const segs: PathSegment[] = c === '[' ? [commas] : [];
      commas = 0;
      const k = skipSpace(i - 1);
      if (k >= 0 && text[k] === ':') {
        const e = skipSpace(k - 1);
        const s = e >= 0 && text[e] === '"' ? openingQuote(text, e) : -1;
        const key = s >= 0 ? parseKey(text.slice(s, e + 1)) : null;
        if (key === null) return null;
        path.unshift(key, ...segs);
        i = s - 1;
        continue;
      }
      path.unshift(...segs);
      if (k < 0) return { path, present: present.reverse(), inArray }; // the root (keys were met last first)
      i = k; // an element of an array: the ',' or '[' before it counts its index
      continue;
    }
    i--;
  }
  return null;
}

/** The opening quote of the string whose closing quote is at `i`, or -1. */
function openingQuote(text: string, i: number): number {
  for (let j = i - 1; j >= 0; j--) {
    if (text[j] !== '"') continue;
    let b = 0;
    for (let k = j - 1; k >= 0 && text[k] === '\\'; k--) b++;
    if (b % 2 === 0) return j;
  }
  return -1;
}

/** A quoted key's text, or null where it is not a whole JSON string. */
function parseKey(quoted: string): string | null {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return null;
  }
}

/** Where the code of the line [start, end) ends: at a `//` outside strings, else at end. */
function stripCode(text: string, start: number, end: number): number {
  let inStr = false;
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '/' && text[i + 1] === '/') return i;
  }
  return end;
}
