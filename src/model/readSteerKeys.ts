// The `steer` key of a checkpoint model file: { "<stage>": { "vector" | "feature" | "contrast": …,
// "alpha": 4, "positions": "all" } }. What needs the checkpoint (the stage's width, the SAE of a
// feature, the contrast's runs, positions inside the input) is checked when it is resolved
// (src/checkpoint/steerResolve.ts), at these places.

import type { JsonNode, PropertyNode } from './jsonc';
import type { At, SteerRef, SteerSource } from './checkpointRequest';
import { STEER_FIELDS } from './format';
import type { PathSegment } from './problems';
import { describe } from './readerBase';
import type { NumberReader } from './readNumbers';
import { SITE_FORMS } from './readSaeKeys';
import { quote } from '../common/quote';
import { parseSaeId, parseStageId, STAGE } from '../core/ids';
import { SAE_SITES } from '../core/planSae';

const SOURCES = ['vector', 'feature', 'contrast'] as const;
const EXAMPLE = '{ "layers.6.out": { "contrast": ["Love", "Hate"], "alpha": 4 } }';

/** `steer`: the stages steered, in the file's order. */
export function readSteers(r: NumberReader, p: PropertyNode | undefined): SteerRef[] {
  if (!p?.value) return [];
  if (p.value.kind !== 'object') {
    r.error('type', ['steer'], p.value, `steer must be an object of stages and how each is steered, e.g. ${EXAMPLE}, found ${describe(p.value)}`);
    return [];
  }
  const out: SteerRef[] = [];
  for (const q of p.value.props) {
    const s = readSteer(r, q);
    if (s) out.push(s);
  }
  return out;
}

const spanOf = (node: JsonNode, path: PathSegment[]): At => ({ start: node.start, end: node.end, path });

function readSteer(r: NumberReader, q: PropertyNode): SteerRef | null {
  const base: PathSegment[] = ['steer', q.key];
  const siteAt: At = { start: q.keyStart, end: q.keyEnd, path: base };
  const { layer, kind } = parseStageId(q.key);
  if (!SAE_SITES.includes(kind) || (kind === STAGE.input) !== (layer < 0)) {
    r.error('value', base, siteAt, `${quote(q.key, 24)} is not a stage a steer can add to; the forms are ${SITE_FORMS}`);
    return null;
  }
  if (!q.value) return null;
  if (q.value.kind !== 'object') {
    r.error('type', base, q.value, `steer[${quote(q.key)}] must be an object, e.g. { "vector": [ … ], "alpha": 4 }, found ${describe(q.value)}`);
    return null;
  }
  const f = r.fields(q.value, base, STEER_FIELDS);
  const given = SOURCES.filter((k) => f.has(k));
  if (given.length !== 1) {
    const at = given.length ? { start: f.get(given[1])!.keyStart, end: f.get(given[1])!.keyEnd } : q.value;
    r.error(given.length ? 'value' : 'missing', given.length ? [...base, given[1]] : base, at, given.length
      ? `give one of "vector", "feature" and "contrast", not both ${given.map((k) => `"${k}"`).join(' and ')}`
      : 'a steer needs its direction: "vector": [d_model numbers], "feature": "layers.12.sae.1234" (an SAE feature\'s decoder row), or "contrast": ["Love", "Hate"] (ActAdd)');
    return null;
  }
  const key = given[0];
  const prop = f.get(key)!;
  if (!prop.value) return null;
  const path: PathSegment[] = [...base, key];
  const source = readSource(r, key, prop.value, path);
  const alpha = r.number(f.get('alpha'), [...base, 'alpha'], { float32: true }, 1);
  const posProp = f.get('positions');
  const positions = readPositions(r, posProp, [...base, 'positions']);
  if (!source || positions === null) return null;
  return {
    site: q.key, siteAt, source, sourceAt: spanOf(prop.value, path), alpha, positions,
    positionsAt: posProp?.value ? { ...spanOf(posProp.value, [...base, 'positions']), ...(posProp.value.kind === 'array' || posProp.value.kind === 'numbers' ? { items: r.itemSpans(posProp.value) } : {}) } : null,
  };
}

function readSource(r: NumberReader, key: (typeof SOURCES)[number], node: JsonNode, path: PathSegment[]): SteerSource | null {
  if (key === 'vector') {
    const v = r.vector(node, path);
    if (v && v.length === 0) r.error('value', path, node, 'vector is empty: give d_model numbers');
    return v && v.length ? { kind: 'vector', values: Float32Array.from(v.data) } : null;
  }
  if (key === 'feature') {
    if (node.kind !== 'string') {
      r.error('type', path, node, `feature must be an SAE feature as a string, e.g. "layers.12.sae.1234", found ${describe(node)}`);
      return null;
    }
    const n = parseSaeId(node.value);
    if (!n || !('feature' in n)) {
      r.error('value', path, node, `${quote(node.value)} is not an SAE feature: a feature is "layers.12.sae.1234" (feature 1234 of the SAE at layers.12.out)`);
      return null;
    }
    return { kind: 'feature', site: n.site, feature: n.feature, text: node.value };
  }
  const list = r.strings(node, path);
  if (!list) return null;
  if (list.length !== 2) {
    r.error('value', path, node, `contrast must be two prompts, [positive, negative], e.g. ["Love", "Hate"]; found ${list.length}`);
    return null;
  }
  const empty = list.findIndex((s) => s === '');
  if (empty >= 0) {
    r.error('value', [...path, empty], (node as { items: JsonNode[] }).items[empty], 'this prompt is empty: give some text to tokenize');
    return null;
  }
  return { kind: 'contrast', prompts: [list[0], list[1]] };
}

/** "all" (the default), "last", or token indices; null when wrong (said). */
function readPositions(r: NumberReader, p: PropertyNode | undefined, path: PathSegment[]): 'all' | 'last' | number[] | null {
  if (!p?.value) return 'all';
  const v = p.value;
  if (v.kind === 'string') {
    if (v.value === 'all' || v.value === 'last') return v.value;
    r.error('value', path, v, `positions is ${quote(v.value)}: give "all", "last" or a list of token indices, e.g. [0, 3]`);
    return null;
  }
  if (v.kind !== 'array' && v.kind !== 'numbers') {
    r.error('type', path, v, `positions must be "all", "last" or a list of token indices, e.g. [0, 3], found ${describe(v)}`);
    return null;
  }
  const list = r.integers(v, path);
  if (!list) return null;
  if (list.length === 0) {
    r.error('value', path, v, 'positions is empty: give "all", "last" or at least one token index');
    return null;
  }
  return list;
}
