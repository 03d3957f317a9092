// The steers of a checkpoint model file, made part of its model: each steered stage in the spec
// (the plan adds `<site>.steer` after it, planSteer.ts) and its vector alpha·v as the param
// `<site>.steer.vector`, kept the same object while alpha and v stay the same (an edit of alpha
// recomputes only what reads the steered stage). Checked here, said at the key: a stage the model
// does not have, a vector of another length than the stage's width, a feature of no SAE attached,
// a position past the input.
//
// `contrast` (ActAdd, Turner et al. 2023): each prompt tokenized as `prompt` is (its special
// tokens too) and run through this model as the file sets it (ablate, scale, weights, SAE edits;
// no steer) up to the steered stage; v = the first's row at its last token − the second's at its
// last token. (ActAdd itself pads the two to one length and adds the whole difference at the
// first positions; a single row is one direction like "vector" and "feature", so alpha and
// positions mean the same for all three, no pad token is needed, and with a BOS-prefixed
// tokenizer the rows ActAdd would add at the BOS are zero anyway.) The runs are kept while the
// prompts, the stage and the model's numbers stay the same.

import { saeFeatureId, SAE_PARAM, SAE_PART, saeParamId, saeStageId, steerParamId } from '../core/ids';
import type { MatmulKernel } from '../core/kernel';
import { forward } from '../core/forward';
import { floatData, type Param } from '../core/params';
import { planModel } from '../core/plan';
import type { ModelSpec } from '../core/spec';
import type { SteerSpec } from '../core/steer';
import { errorDetail } from '../common/faultText';
import { quote } from '../common/quote';
import { TokenizerError } from '../tokenizer/tokenizerError';
import type { At, SteerRef } from '../model/checkpointRequest';
import { itemAt } from '../model/checkpointRequest';
import type { PromptTokenizer } from '../model/checkpointFacts';

export type SteerError = (at: At, message: string) => void;

/** Why a run over `n` tokens of this model cannot be made (its positions, its memory), or null: a contrast's prompts are bounded as the input is. */
export type InputBound = (n: number) => string | null;

interface Cached { readonly sig: string; readonly base: Float32Array | null; readonly param: Param }
interface Contrast { readonly key: string; readonly params: ReadonlyMap<string, Param>; readonly v: Float32Array }

export class SteerAttacher {
  private vectors = new Map<string, Cached>();
  private contrasts = new Map<string, Contrast>();

  /** The spec with the steers, their vectors set in `params`; errors said at their keys. `kernel`: the contrasts' runs. */
  attach(spec: ModelSpec, refs: readonly SteerRef[], params: Map<string, Param>, tok: PromptTokenizer | null, kernel: MatmulKernel | undefined, error: SteerError, bound: InputBound = () => null): ModelSpec {
    if (refs.length === 0) {
      this.vectors.clear();
      this.contrasts.clear();
      return spec;
    }
    const plan = planModel(spec);
    const widths = new Map(plan.map((d) => [d.id, d.shape[d.shape.length - 1]]));
    const steers: SteerSpec[] = [];
    const vectors = new Map<string, Cached>();
    const contrasts = new Map<string, Contrast>();
    for (const ref of refs) {
      const width = widths.get(ref.site);
      if (width === undefined) {
        error(ref.siteAt, `this model has no stage ${ref.site}${spec.layers.length > 0 ? ` (its layers are 0 to ${spec.layers.length - 1})` : ''}`);
        continue;
      }
      const positions = this.positions(ref, spec.T, error);
      const found = positions && this.direction(ref, spec, width, params, tok, kernel, error, contrasts, bound);
      if (!positions || !found) continue;
      const id = steerParamId(ref.site);
      const sig = `${ref.alpha}|${found.sig}`;
      let hit = this.vectors.get(id);
      if (!hit || hit.sig !== sig || hit.base !== found.base) {
        const data = new Float32Array(width);
        for (let c = 0; c < width; c++) data[c] = ref.alpha * found.v[c]; // (rounded to float32 as torch's alpha * v)
        hit = { sig, base: found.base, param: { data, shape: [1, width] } };
      }
      const over = hit.param.data!.findIndex((x) => !Number.isFinite(x));
      if (over >= 0) {
        error(ref.sourceAt, Number.isFinite(found.v[over]) ? `alpha ${ref.alpha} × this direction's number ${found.v[over]} (at ${over}) is past float32's range: the steered stage would be infinite; give a smaller alpha` : `this direction's number at ${over} is not a finite number: the steered stage would be too`);
        continue;
      }
      vectors.set(id, hit);
      params.set(id, hit.param);
      steers.push({ site: ref.site, positions, source: found.text });
    }
    this.vectors = vectors;
    this.contrasts = contrasts;
    return steers.length ? { ...spec, steers } : spec;
  }

  /** "all", or the indices ("last": T − 1), each inside the input; null when one is not (said). */
  private positions(ref: SteerRef, T: number, error: SteerError): SteerSpec['positions'] | null {
    if (ref.positions === 'all') return 'all';
    if (ref.positions === 'last') return [T - 1];
    const bad = ref.positions.findIndex((t) => t >= T);
    if (bad >= 0) {
      error(ref.positionsAt ? itemAt(ref.positionsAt, bad) : ref.siteAt, `positions[${bad}] is ${ref.positions[bad]}; the input has ${T} token${T === 1 ? '' : 's'} (0 to ${T - 1})`);
      return null;
    }
    return ref.positions;
  }

  /** v itself: its numbers, what tells it apart for the cache, and its words for the stage's meaning. */
  private direction(ref: SteerRef, spec: ModelSpec, width: number, params: Map<string, Param>, tok: PromptTokenizer | null, kernel: MatmulKernel | undefined, error: SteerError, contrasts: Map<string, Contrast>, bound: InputBound): { v: Float32Array; sig: string; base: Float32Array | null; text: string } | null {
    const s = ref.source;
    if (s.kind === 'vector') {
      if (s.values.length !== width) {
        error(ref.sourceAt, `vector has ${s.values.length} number${s.values.length === 1 ? '' : 's'}; ${ref.site} has ${width} numbers per token (d_model)`);
        return null;
      }
      return { v: s.values, sig: Array.from(s.values).join(','), base: null, text: 'the vector given' };
    }
    if (s.kind === 'feature') {
      const sae = (spec.saes ?? []).find((x) => x.site === s.site);
      if (!sae) {
        error(ref.sourceAt, `${s.text}: no SAE is attached at ${s.site}; add it to "saes": [{ "path": "./sae", "at": "${s.site}" }]`);
        return null;
      }
      if (s.feature >= sae.dSae) {
        error(ref.sourceAt, `${s.text}: the SAE at ${s.site} has features 0 to ${sae.dSae - 1} (${saeFeatureId(s.site, sae.dSae - 1)})`);
        return null;
      }
      if (sae.dIn !== width) {
        error(ref.sourceAt, `${s.text}: its decoder row has ${sae.dIn} numbers; ${ref.site} has ${width} numbers per token`);
        return null;
      }
      const W = params.get(saeParamId(s.site, SAE_PARAM.Wdec))!;
      return { v: floatData(W).subarray(s.feature * sae.dIn, (s.feature + 1) * sae.dIn), sig: `f${s.feature}`, base: floatData(W), text: `the decoder row of feature ${s.text}` };
    }
    const v = this.contrast(ref, spec, params, tok, kernel, error, contrasts, bound);
    return v && { v, sig: Array.from(v).join(','), base: null, text: `${quote(s.prompts[0])} − ${quote(s.prompts[1])} at ${ref.site}, at their last tokens (ActAdd)` };
  }

  /** The contrast's v: the two prompts run up to the stage the steer adds to, last token minus last token. */
  private contrast(ref: SteerRef, spec: ModelSpec, params: Map<string, Param>, tok: PromptTokenizer | null, kernel: MatmulKernel | undefined, error: SteerError, contrasts: Map<string, Contrast>, bound: InputBound): Float32Array | null {
    if (ref.source.kind !== 'contrast') return null;
    if (!tok) {
      error(ref.sourceAt, '"contrast" needs a tokenizer, as "prompt" does: give "tokenizer": "path/to/tokenizer.json", or the direction as "vector"');
      return null;
    }
    const V = spec.head?.V ?? Infinity;
    const runs: Float32Array[] = [];
    for (const [i, prompt] of ref.source.prompts.entries()) {
      let ids: readonly number[];
      try {
        ids = tok.encode(prompt).ids;
      } catch (e) {
        error(itemAt(ref.sourceAt, i), `the tokenizer cannot encode this prompt: ${e instanceof TokenizerError ? e.message.split('\n')[0] : errorDetail(e)}`);
        return null;
      }
      const bad = ids.find((id) => id >= V);
      if (ids.length === 0 || bad !== undefined) {
        error(itemAt(ref.sourceAt, i), ids.length === 0 ? 'this prompt gives no tokens: write some text' : `the tokenizer gives id ${bad}, outside this model's vocabulary of ${V}: is the tokenizer the model's own?`);
        return null;
      }
      // (as the input is: a contrast runs the model over its prompt, which its positions and the memory bound)
      const why = bound(ids.length);
      if (why) {
        error(itemAt(ref.sourceAt, i), `this prompt gives ${ids.length.toLocaleString('en-US')} tokens; ${why}: give a shorter one`);
        return null;
      }
      runs.push(this.lastRow(ref.site, spec, ids, params, kernel, contrasts));
    }
    return Float32Array.from(runs[0], (x, c) => x - runs[1][c]);
  }

  /** The last token's row of the stage the steer at `site` adds to, of a run over `ids`. */
  private lastRow(site: string, spec: ModelSpec, ids: readonly number[], params: Map<string, Param>, kernel: MatmulKernel | undefined, contrasts: Map<string, Contrast>): Float32Array {
    if (spec.embedding.kind !== 'tokens') throw new Error('a contrast needs a model of tokens');
    const run: ModelSpec = { ...spec, T: ids.length, embedding: { ...spec.embedding, ids }, head: null, lens: false, steers: undefined };
    const key = `${site}|${JSON.stringify({ ...run, eps: [...run.eps] })}`;
    const hit = this.contrasts.get(key) ?? contrasts.get(key);
    if (hit && hit.params.size === params.size && [...params].every(([id, p]) => hit.params.get(id) === p)) {
      contrasts.set(key, hit);
      return hit.v;
    }
    const plan = planModel(run);
    // (what the steer adds to: the site's stage, or its SAE's out where one reads it)
    const x = (spec.saes ?? []).some((s) => s.site === site) ? saeStageId(site, SAE_PART.out) : site;
    const end = plan.findIndex((d) => d.id === x);
    const out = forward({ spec: run, params }, kernel, undefined, plan.slice(0, end + 1));
    const data = out[out.length - 1].data;
    const C = data.length / ids.length;
    const v = data.slice((ids.length - 1) * C, ids.length * C);
    contrasts.set(key, { key, params: new Map(params), v });
    return v;
  }
}
