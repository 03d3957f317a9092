// The SAE keys of a checkpoint model file: `saes` (each SAE's folder and the stage it reads) and the
// feature edits `sae_ablate`, `sae_scale`, `sae_clamp`. What needs the loaded SAE (its size, the
// stage's width) is checked when it is resolved (src/checkpoint/saeResolve.ts), at these places.

import type { ArrayNode, PropertyNode } from './jsonc';
import type { At, SaeEdit, SaeRef } from './checkpointRequest';
import { SAE_FIELDS } from './format';
import type { PathSegment } from './problems';
import { describe } from './readerBase';
import type { NumberReader } from './readNumbers';
import { quote } from '../common/quote';
import { parseSaeId, parseStageId, STAGE } from '../core/ids';
import { SAE_SITES } from '../core/planSae';

// (short: a message quoting a hostile "at" with its escapes explained stays one line under 300 characters)
export const SITE_FORMS = '"layers.N.out", "layers.N.attn.residual", "layers.N.attn.out", "layers.N.ffn.down" or "input"';

/** `saes`: [{ "path": "./dir", "at": "layers.12.out" }, …]. */
export function readSaes(r: NumberReader, p: PropertyNode | undefined): SaeRef[] {
  if (!p?.value) return [];
  if (p.value.kind !== 'array') {
    r.error('type', ['saes'], p.value, `saes must be a list of SAEs, e.g. [{ "path": "./sae", "at": "layers.6.out" }], found ${describe(p.value)}`);
    return [];
  }
  const out: SaeRef[] = [];
  const sites = new Map<string, number>();
  (p.value as ArrayNode).items.forEach((item, i) => {
    const base: PathSegment[] = ['saes', i];
    if (item.kind !== 'object') {
      r.error('type', base, item, `saes[${i}] must be an object { "path": "./sae", "at": "layers.6.out" }, found ${describe(item)}`);
      return;
    }
    const f = r.fields(item, base, SAE_FIELDS);
    const pathProp = f.get('path');
    const atProp = f.get('at');
    if (!pathProp || !atProp) {
      r.error('missing', base, item, `saes[${i}] needs ${!pathProp ? '"path" (the SAE\'s folder: SAELens\' cfg.json + sae_weights.safetensors, or Gemma Scope\'s params.npz)' : ''}${!pathProp && !atProp ? ' and ' : ''}${!atProp ? `"at" (the stage it reads: ${SITE_FORMS})` : ''}`);
      return;
    }
    const path = r.string(pathProp, [...base, 'path']);
    const site = r.string(atProp, [...base, 'at']);
    const factorProp = f.get('norm_scaling_factor');
    const factor = factorProp ? r.number(factorProp, [...base, 'norm_scaling_factor'], { above: 0 }, NaN) : NaN;
    if (path === undefined || site === undefined) return;
    if (path === '') r.error('value', [...base, 'path'], pathProp.value!, 'path is empty: give the SAE\'s folder, e.g. "./sae"');
    const { layer, kind } = parseStageId(site);
    if (!SAE_SITES.includes(kind) || (kind === STAGE.input) !== (layer < 0)) {
      r.error('value', [...base, 'at'], atProp.value!, `${quote(site, 24)} is not a stage an SAE can read; the forms are ${SITE_FORMS}`);
      return;
    }
    const twice = sites.get(site);
    if (twice !== undefined) r.error('value', [...base, 'at'], atProp.value!, `saes[${twice}] already reads ${site}: one SAE per stage`);
    sites.set(site, i);
    const at = (q: PropertyNode, seg: string): At => ({ start: q.value?.start ?? q.keyStart, end: q.value?.end ?? q.end, path: [...base, seg] });
    out.push({ path, site, pathAt: at(pathProp, 'path'), siteAt: at(atProp, 'at'), ...(Number.isNaN(factor) ? {} : { scalingFactor: factor }) });
  });
  return out;
}

const FEATURE_FORM = '"layers.12.sae.1234" (feature 1234 of the SAE at layers.12.out; "layers.12.attn.out.sae.7" of one at layers.12.attn.out)';

/** `sae_ablate` (a list of features), `sae_scale` and `sae_clamp` ({ feature: number }). */
export function readSaeEdits(r: NumberReader, top: Map<string, PropertyNode>): SaeEdit[] {
  const out: SaeEdit[] = [];
  const feature = (text: string): { site: string; feature: number } | null => {
    const n = parseSaeId(text);
    return n && 'feature' in n ? n : null;
  };
  const ablate = top.get('sae_ablate');
  if (ablate?.value) {
    const list = r.strings(ablate.value, ['sae_ablate']);
    if (list && ablate.value.kind === 'array') {
      list.forEach((text, i) => {
        const item = (ablate.value as ArrayNode).items[i];
        const f = feature(text);
        if (!f) r.error('value', ['sae_ablate', i], item, `sae_ablate[${i}] is ${quote(text)}: a feature is ${FEATURE_FORM}`);
        else out.push({ ...f, kind: 'ablate', value: 0, text, at: { start: item.start, end: item.end, path: ['sae_ablate', i] } });
      });
    }
  }
  for (const key of ['sae_scale', 'sae_clamp'] as const) {
    const p = top.get(key);
    if (!p?.value) continue;
    if (p.value.kind !== 'object') {
      r.error('type', [key], p.value, `${key} must be an object of features and numbers, e.g. { "layers.6.sae.12": ${key === 'sae_scale' ? '0.5' : '8.0'} }, found ${describe(p.value)}`);
      continue;
    }
    for (const q of p.value.props) {
      const path: PathSegment[] = [key, q.key];
      const f = feature(q.key);
      if (!f) {
        r.error('value', path, { start: q.keyStart, end: q.keyEnd }, `${quote(q.key)} is not an SAE feature: a feature is ${FEATURE_FORM}`);
        continue;
      }
      const value = r.number(q, path, { float32: true }, NaN);
      if (!Number.isNaN(value)) out.push({ ...f, kind: key === 'sae_scale' ? 'scale' : 'clamp', value, text: q.key, at: { start: q.keyStart, end: q.end, path } });
    }
  }
  return out;
}
