// One SAE feature, as Neuronpedia shows it: its activation over the prompt, the words its decoder
// direction promotes and suppresses through the unembedding, and its direct logit attribution to a
// prediction. Written against stage and param ids (`layers.12.sae.acts`, `layers.12.sae.W_dec`,
// `head.W`), so it reads every architecture the plan describes.
//
//   promoted/suppressed: W_dec[f] · W_U, the decoder row read through the final norm's gain (and
//     LayerNorm's centering) with its scale 1/σ taken as 1, as TransformerLens' fold_ln reads it:
//     the top and bottom words of  Σ_c g_c (v_c − mean v) W_U[c, w]   (RMSNorm: no centering).
//   DLA: the stream at the SAE's site, pos = Σ_f a_f W_dec[f] / s + b_dec / s + error  (s: the
//     SAE's input rescale, 1 unless it normalizes), each part read along d' (the logit direction
//     through the frozen final norm, dla.ts): a_f / s · (W_dec[f] · d'). With `rest`, what the
//     stream gets elsewhere (the layers after the site, the biases, an SAE edit's change), they sum
//     to the logit difference:  Σ features + b_dec part + error + rest = logitDiff − remainder.

import { PARAM, SAE_PARAM, SAE_PART, saeParamId, saeStageId, STAGE } from '../core/ids';
import type { StageDef } from '../core/graph';
import { floatData, floatOrNull, type Params } from '../core/params';
import { planModel } from '../core/plan';
import { inputScale, type SaeSpec } from '../core/saeSpec';
import { LensError, top2, type Run } from './cache';
import { finalStream, frozenNorm, normReading } from './frozenNorm';
import { dot, weightAt } from './weights';

/** The SAE of a run that reads `site`, or a LensError that says which SAEs there are. */
export function saeAt(run: Run, site: string): SaeSpec {
  const saes = run.model.spec.saes ?? [];
  const sae = saes.find((s) => s.site === site);
  if (!sae) throw new LensError(`no SAE reads ${site}${saes.length ? ` (the SAEs read ${saes.map((s) => s.site).join(', ')})` : ''}`);
  return sae;
}

function checkFeature(sae: SaeSpec, feature: number): void {
  if (!Number.isInteger(feature) || feature < 0 || feature >= sae.dSae) throw new LensError(`feature ${feature} is outside the SAE's 0…${sae.dSae - 1}`);
}

/** A feature's activation at each token of the run. */
export function featureActs(run: Run, sae: SaeSpec, feature: number): Float32Array {
  checkFeature(sae, feature);
  const acts = run.stage(saeStageId(sae.site, SAE_PART.acts));
  const T = run.model.spec.T;
  return Float32Array.from({ length: T }, (_, t) => acts[t * sae.dSae + feature]);
}

/** The final norm as the logits read a direction with its scale taken as 1: its gain, and whether it centers (LayerNorm). */
export interface UnitNorm {
  readonly gain: ArrayLike<number> | null;
  readonly onePlus: boolean;
  readonly center: boolean;
}

/** The final norm of a plan read with its scale as 1 (null: the model has none). */
export function unitFinalNorm(plan: readonly StageDef[], params: Params): UnitNorm | null {
  const lnF = plan.find((s) => s.id === STAGE.lnF);
  if (!lnF) return null;
  const a = lnF.args as { gamma: string; onePlus?: boolean };
  return { gain: floatOrNull(params.get(a.gamma)), onePlus: !!a.onePlus, center: lnF.op.name === 'layernorm' };
}

/**
 * What a direction v (C) adds to each word's logit (V) through the unembedding W_U (C inputs, V
 * outputs; null: the identity), read through `norm` with its scale as 1.
 */
export function directionLogits(v: ArrayLike<number>, W: Parameters<typeof weightAt>[0] | null, C: number, V: number, norm: UnitNorm | null): Float64Array {
  const x = Float64Array.from({ length: C }, (_, c) => v[c]);
  if (norm?.center) {
    const m = x.reduce((s, y) => s + y, 0) / C;
    for (let c = 0; c < C; c++) x[c] -= m;
  }
  if (norm?.gain) for (let c = 0; c < C; c++) x[c] *= norm.onePlus ? 1 + norm.gain[c] : norm.gain[c];
  const out = new Float64Array(V);
  if (!W) {
    for (let w = 0; w < Math.min(C, V); w++) out[w] = x[w];
    return out;
  }
  for (let c = 0; c < C; c++) {
    const xc = x[c];
    if (xc === 0) continue;
    for (let w = 0; w < V; w++) out[w] += xc * weightAt(W, c, w, C, V);
  }
  return out;
}

/** The k largest (or smallest) entries of a row, [index, value], ties by index. */
export function topOf(row: ArrayLike<number>, k: number, smallest = false): Array<[number, number]> {
  const idx = Array.from({ length: row.length }, (_, i) => i);
  const sign = smallest ? -1 : 1;
  idx.sort((a, b) => sign * (row[b] - row[a]) || a - b);
  return idx.slice(0, k).map((i) => [i, row[i]]);
}

/** W_dec[f] (d_in) of the SAE. */
export function decoderRow(params: Params, sae: SaeSpec, feature: number): Float32Array {
  checkFeature(sae, feature);
  const W = params.get(saeParamId(sae.site, SAE_PARAM.Wdec));
  if (!W) throw new LensError(`the SAE at ${sae.site} has no W_dec`);
  return floatData(W).subarray(feature * sae.dIn, (feature + 1) * sae.dIn);
}

/** The words a feature's decoder direction promotes (top k) and suppresses (bottom k). */
export function featureWords(run: Run, sae: SaeSpec, feature: number, k = 10, plan: readonly StageDef[] = planModel(run.model.spec)): { promoted: Array<[number, number]>; suppressed: Array<[number, number]> } {
  const { spec, params } = run.model;
  if (!spec.head) throw new LensError('the words a feature promotes are read through the unembedding: this model has no "head"');
  if (sae.dIn !== spec.C) throw new LensError(`the SAE at ${sae.site} reads ${sae.dIn} numbers per token, not the stream's ${spec.C}: its decoder directions are not in the unembedding's space`);
  const logits = directionLogits(decoderRow(params, sae, feature), params.get(PARAM.headW) ?? null, spec.C, spec.head.V, unitFinalNorm(plan, params));
  return { promoted: topOf(logits, k), suppressed: topOf(logits, k, true) };
}

export interface SaeDla {
  readonly pos: number;
  readonly target: number;
  readonly alt: number | null;
  readonly logitDiff: number;
  /** Each active feature's part at pos, [feature, value], largest |value| first. */
  readonly features: ReadonlyArray<readonly [number, number]>;
  /** b_dec's part (b_dec / s · d'). */
  readonly bdec: number;
  /** The SAE's error's part. */
  readonly error: number;
  /** Everything else the logit difference gets: the layers after the site, the biases, an SAE edit's change. */
  readonly rest: number;
  /** logitDiff − (features + bdec + error + rest): a final soft-cap's change (float rounding without one). */
  readonly remainder: number;
}

/** The logit direction at pos through the frozen final norm (d'), the constant it adds, and x_final · d'. */
function logitDirection(run: Run, plan: readonly StageDef[], pos: number, target: number, alt: number | null): { d: Float64Array; constant: number; xFinal: Float32Array } {
  const { spec, params } = run.model;
  const { C } = spec;
  const V = spec.head!.V;
  const W = params.get(PARAM.headW) ?? null;
  const u = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    const wa = W ? weightAt(W, c, target, C, V) : c === target ? 1 : 0;
    const wb = alt === null ? 0 : W ? weightAt(W, c, alt, C, V) : c === alt ? 1 : 0;
    u[c] = wa - wb;
  }
  const bU = floatOrNull(params.get(PARAM.headB)) ?? undefined;
  let constant = bU ? bU[target] - (alt === null ? 0 : bU[alt]) : 0;
  const xFinal = run.stage(finalStream(plan)).subarray(pos * C, (pos + 1) * C);
  const lnF = plan.find((s) => s.id === STAGE.lnF);
  if (!lnF) return { d: u, constant, xFinal };
  const f = frozenNorm(lnF, params, xFinal, u, C);
  constant += f.constant;
  return { d: f.dir, constant, xFinal };
}

/** Direct logit attribution of an SAE's features (and its b_dec and error) at pos, for target (− alt). */
export function saeDla(run: Run, sae: SaeSpec, opts: { pos?: number; target?: number; alt?: number | null } = {}, plan: readonly StageDef[] = planModel(run.model.spec)): SaeDla {
  const { spec, params } = run.model;
  const { T, C } = spec;
  if (!spec.head) throw new LensError('attribution needs a prediction head (this model has no "head")');
  if (!spec.residual || spec.norm === 'post') throw new LensError('attribution reads the residual stream of pre-norm layers: this model has none');
  if (sae.dIn !== C) throw new LensError(`the SAE at ${sae.site} reads ${sae.dIn} numbers per token, not the stream's ${C}`);
  const V = spec.head.V;
  const pos = opts.pos ?? T - 1;
  if (!Number.isInteger(pos) || pos < 0 || pos >= T) throw new LensError(`position ${pos} is outside 0…${T - 1}`);
  const logits = run.stage(STAGE.logits).subarray(pos * V, (pos + 1) * V);
  const target = opts.target ?? top2(logits)[0];
  const alt = opts.alt ?? null;
  for (const w of alt === null ? [target] : [target, alt]) {
    if (!Number.isInteger(w) || w < 0 || w >= V) throw new LensError(`word ${w} is outside the vocabulary 0…${V - 1}`);
  }
  const logitDiff = logits[target] - (alt === null ? 0 : logits[alt]);
  const { d, constant, xFinal } = logitDirection(run, plan, pos, target, alt);
  // the site's stage read where it enters the stream: through a post-norm after it, frozen (gemma's ln2_post on ffn.down)
  const x = run.stage(sae.site);
  const site = x.subarray(pos * C, (pos + 1) * C);
  const post = normReading(plan, sae.site);
  const fn = post ? frozenNorm(post, params, site, d, C) : null;
  const dS = fn ? fn.dir : d;
  const s = inputScale(sae, x, pos);
  const acts = run.stage(saeStageId(sae.site, SAE_PART.acts)).subarray(pos * sae.dSae, (pos + 1) * sae.dSae);
  const Wdec = floatData(params.get(saeParamId(sae.site, SAE_PARAM.Wdec))!);
  const features: Array<[number, number]> = [];
  for (let f = 0; f < sae.dSae; f++) {
    if (acts[f] === 0) continue;
    features.push([f, (acts[f] / s) * dot(Wdec.subarray(f * C, (f + 1) * C), dS, C)]);
  }
  features.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0] - b[0]);
  const b = floatOrNull(params.get(saeParamId(sae.site, SAE_PARAM.bdec))) ?? undefined;
  const bdec = b ? dot(b, dS, C) / s : 0;
  const error = dot(run.stage(saeStageId(sae.site, SAE_PART.error)).subarray(pos * C, (pos + 1) * C), dS, C);
  // the rest: the stream at the end minus the site's share (read as the parts are), and the constants
  const rest = dot(xFinal, d, C) + constant - dot(site, dS, C) - (fn ? fn.constant : 0);
  const sum = features.reduce((acc, [, v]) => acc + v, bdec + error + rest);
  return { pos, target, alt, logitDiff, features, bdec, error, rest, remainder: logitDiff - sum };
}

/** The k words the model predicts most at pos (its logits), most first. */
export function predictionsAt(run: Run, pos: number, k: number): number[] {
  const V = run.model.spec.head?.V ?? 0;
  if (!V) return [];
  return topOf(run.stage(STAGE.logits).subarray(pos * V, (pos + 1) * V), k).map(([w]) => w);
}
