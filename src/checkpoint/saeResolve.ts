// The SAEs a checkpoint model file attaches, made part of its model: each loaded SAE's numbers as
// params under its ids (`layers.12.sae.W_enc` …, the same objects while the SAE stays loaded, so
// the engine packs W_enc once) and its spec in the model's spec (the plan adds its stages,
// planSae.ts); the feature edits as per-feature `scale` and `clamp` vectors, kept while they stay
// the same (an edit of one recomputes only what reads the SAE's splice). Checked here, said at the
// key: a stage the model does not have, a d_in other than the stage's width, a feature past d_sae.

import { SAE_PARAM, saeFeatureId, saeParamId } from '../core/ids';
import type { Param } from '../core/params';
import { planModel } from '../core/plan';
import type { SaeSpec } from '../core/saeSpec';
import type { ModelSpec } from '../core/spec';
import type { At, SaeEdit, SaeRef } from '../model/checkpointRequest';
import type { LoadedSae } from './saeFiles';

export type SaeError = (at: At, message: string) => void;

interface EditCache { readonly sig: string; readonly param: Param }

export class SaeAttacher {
  private readonly weights = new WeakMap<LoadedSae, Map<string, Param>>();
  private edits = new Map<string, EditCache>();

  /** The spec with the SAEs, their params set in `params`; errors said at their keys. */
  attach(spec: ModelSpec, refs: readonly SaeRef[], loaded: readonly LoadedSae[], edits: readonly SaeEdit[], params: Map<string, Param>, error: SaeError): ModelSpec {
    if (refs.length === 0) {
      for (const e of edits) error(e.at, `${e.text}: no SAE is attached at ${e.site}; add it to "saes": [{ "path": "./sae", "at": "${e.site}" }]`);
      this.edits.clear();
      return spec;
    }
    const widths = new Map(planModel(spec).map((d) => [d.id, d.shape[d.shape.length - 1]]));
    const saes: SaeSpec[] = [];
    refs.forEach((ref, i) => {
      const sae = loaded[i];
      const width = widths.get(ref.site);
      if (width === undefined) {
        error(ref.siteAt, `this model has no stage ${ref.site}${spec.layers.length > 0 ? ` (its layers are 0 to ${spec.layers.length - 1})` : ''}`);
        return;
      }
      if (sae.config.dIn !== width) {
        error(ref.pathAt, `the SAE's d_in is ${sae.config.dIn}; ${ref.site} has ${width} numbers per token: is it this model's SAE, and this stage's?`);
        return;
      }
      const { hookName: _h, ...config } = sae.config;
      saes.push({ ...config, site: ref.site, ...(ref.scalingFactor !== undefined && config.normalize === 'expected_average_only_in' && config.scalingFactor === undefined ? { scalingFactor: ref.scalingFactor } : {}) });
      for (const [id, p] of this.paramsOf(sae, ref.site)) params.set(id, p);
    });
    this.editParams(saes, edits, params, error);
    return saes.length ? { ...spec, saes } : spec;
  }

  private paramsOf(sae: LoadedSae, site: string): Map<string, Param> {
    let bySite = this.weights.get(sae);
    if (!bySite) this.weights.set(sae, (bySite = new Map()));
    const key = (k: (typeof SAE_PARAM)[keyof typeof SAE_PARAM]): string => saeParamId(site, k);
    const out = new Map<string, Param>();
    const { dIn, dSae } = sae.config;
    const w = sae.weights;
    const put = (id: string, make: () => Param | null): void => {
      let p = bySite!.get(id) ?? null;
      if (!p) {
        p = make();
        if (p) bySite!.set(id, p);
      }
      if (p) out.set(id, p);
    };
    put(key(SAE_PARAM.Wenc), () => w.Wenc);
    put(key(SAE_PARAM.Wdec), () => ({ data: w.Wdec, shape: [dSae, dIn], layout: 'in_out' }));
    put(key(SAE_PARAM.benc), () => (w.benc ? { data: w.benc, shape: [dSae] } : null));
    put(key(SAE_PARAM.bdec), () => (w.bdec ? { data: w.bdec, shape: [dIn] } : null));
    put(key(SAE_PARAM.threshold), () => (w.threshold ? { data: w.threshold, shape: [dSae] } : null));
    return out;
  }

  /** sae_ablate/sae_scale → a `scale` vector (ones elsewhere), sae_clamp → a `clamp` vector (NaN elsewhere). */
  private editParams(saes: readonly SaeSpec[], edits: readonly SaeEdit[], params: Map<string, Param>, error: SaeError): void {
    const bySite = new Map(saes.map((s) => [s.site, s]));
    const lists = new Map<string, { size: number; fill: number; list: Array<[number, number]> }>();
    // (scales first, then ablations: a feature both scaled and ablated is zero, as units are)
    const ordered = [...edits.filter((e) => e.kind === 'scale'), ...edits.filter((e) => e.kind !== 'scale')];
    for (const e of ordered) {
      const sae = bySite.get(e.site);
      if (!sae) {
        error(e.at, `${e.text}: no SAE ${bySite.size ? 'of this file ' : ''}reads ${e.site}${bySite.size ? ` (the SAEs read ${[...bySite.keys()].slice(0, 4).join(', ')}${bySite.size > 4 ? ', …' : ''})` : ''}`);
        continue;
      }
      if (e.feature >= sae.dSae) {
        error(e.at, `${e.text}: the SAE at ${e.site} has features 0 to ${sae.dSae - 1} (${saeFeatureId(e.site, sae.dSae - 1)})`);
        continue;
      }
      const id = saeParamId(e.site, e.kind === 'clamp' ? SAE_PARAM.clamp : SAE_PARAM.scale);
      let entry = lists.get(id);
      if (!entry) lists.set(id, (entry = { size: sae.dSae, fill: e.kind === 'clamp' ? NaN : 1, list: [] }));
      entry.list.push([e.feature, e.value]);
    }
    const next = new Map<string, EditCache>();
    for (const [id, { size, fill, list }] of lists) {
      const sig = `${size}|${list.map(([f, v]) => `${f}:${v}`).join(',')}`;
      let hit = this.edits.get(id);
      if (!hit || hit.sig !== sig) {
        const data = new Float32Array(size).fill(fill);
        for (const [f, v] of list) data[f] = v;
        hit = { sig, param: { data, shape: [size] } };
      }
      next.set(id, hit);
      params.set(id, hit.param);
    }
    this.edits = next;
  }
}
