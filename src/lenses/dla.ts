// Direct logit attribution: how much each part of the residual stream at one position writes
// into the logit of a target word (or the difference target − alternative), read through the
// final norm with its scale frozen at this run's value, as TransformerLens does
// (cache.apply_ln_to_stack). Linear in what each part wrote, so the parts add up:
//
//   x = the last layer's output at pos = input + Σ_layers (Σ_heads head_h + bo + mlp)
//   logit_a − logit_b = Σ_parts part · d' + constant
//     u  = W_U[:, a] − W_U[:, b]               the head's direction (C)
//     LayerNorm: d' = γ⊙u/σ − mean(γ⊙u/σ)      σ = √(var(x) + ε)   constant = β·u + b_U[a] − b_U[b]
//     RMSNorm:   d' = γ⊙u/r                    r = √(mean(x²) + ε)  constant = b_U[a] − b_U[b]
//     no final norm: d' = u
// A head's part is its slice of the context times its rows of Wo (without bo); a neuron's, its
// activation times its column of W2 (without b2); an MLP layer's, its whole output (with b2).
//
// Every norm is read from its stage in the plan (frozenNorm.ts): gemma's (1 + w) gains, and its
// post-norms (`ln1_post` on attn.out, `ln2_post` on ffn.down, before the stream), each with its
// scale frozen at this run's value as the final norm's is, so a sublayer's heads (neurons) add up
// exactly to what it wrote into the stream. The parts sum to the logit difference the head's linear
// layer gives (z_a − z_b); a final soft-cap (gemma2: c · tanh(z / c)) is not linear in them, and
// what it changes is shown as `remainder`: parts + constant + remainder = the logits' difference.
// Parallel residual (gpt_neox) changes nothing here: each sublayer still writes into the stream once.

import { PARAM, paramId, STAGE, stageId, sublayerId, unitId } from '../core/ids';
import { planModel } from '../core/plan';
import { floatData } from '../core/params';
import type { StageDef } from '../core/graph';
import { LensError, top2, type Run } from './cache';
import { finalStream, frozenNorm, normReading } from './frozenNorm';
import { backProject, dot, weightAt } from './weights';

export interface DlaOptions {
  /** The position read (default: the last). */
  readonly pos?: number;
  /** The target word (default: the top prediction at pos). */
  readonly target?: number;
  /** The alternative subtracted (default: none; "second" picks the runner-up). */
  readonly alt?: number | 'second' | null;
  /** How many neurons to list, by |contribution| (default 20). */
  readonly topNeurons?: number;
  /** The plan the run was computed by (default: the spec's, planModel). */
  readonly plan?: readonly StageDef[];
}

export interface DlaPart {
  /** `embed`, `pos_embed`, `input`, `layers.3.attn.head.5`, `layers.3.attn.bo`, `layers.3.ffn`, `layers.3.ffn.neuron.17`. */
  readonly name: string;
  readonly kind: 'embed' | 'head' | 'bias' | 'mlp' | 'neuron';
  readonly layer: number;
  /** The head or the neuron, else -1. */
  readonly unit: number;
  readonly value: number;
}

export interface Dla {
  readonly pos: number;
  readonly target: number;
  readonly alt: number | null;
  /** logit[pos, target] − logit[pos, alt] as the forward computed it. */
  readonly logitDiff: number;
  /** The embeddings, every head, every attention bias and every MLP layer: with `constant`, they sum to logitDiff. */
  readonly parts: readonly DlaPart[];
  /** The final norm's bias, the post-norms' biases and the head's bias along the direction. */
  readonly constant: number;
  /** logitDiff − (Σ parts + constant): what a final soft-cap takes off (with float rounding; ≈ 0 without one). */
  readonly remainder: number;
  /** Which parts are exact, and why (a sentence for people). */
  readonly note: string;
  /** [layer][head]: the heads' parts as a grid (NaN where a layer has no attention). */
  readonly heads: number[][];
  /** The neurons with the largest |contribution|, largest first. */
  readonly topNeurons: readonly DlaPart[];
  /** Every neuron's contribution, by layer (empty where a layer has no FFN). */
  readonly neurons: readonly Float64Array[];
}

export function directLogitAttribution(run: Run, opts: DlaOptions = {}): Dla {
  const { spec, params } = run.model;
  const { T, C } = spec;
  if (!spec.head) throw new LensError('direct logit attribution needs a prediction head (this model has no "head")');
  if (!spec.residual) throw new LensError('direct logit attribution reads the residual stream: this model has none ("residual": false)');
  if (spec.norm === 'post') throw new LensError('direct logit attribution needs pre-norm layers: with "norm": "post" the stream is normalized inside every layer, so the parts do not add up to the logits');
  const V = spec.head.V;
  const pos = opts.pos ?? T - 1;
  if (!Number.isInteger(pos) || pos < 0 || pos >= T) throw new LensError(`position ${pos} is outside 0…${T - 1}`);
  const logits = run.stage(STAGE.logits).subarray(pos * V, (pos + 1) * V);
  const [first, second] = top2(logits);
  const target = opts.target ?? first;
  const alt = opts.alt === 'second' ? (target === first ? second : first) : opts.alt ?? null;
  for (const w of alt === null ? [target] : [target, alt]) {
    if (!Number.isInteger(w) || w < 0 || w >= V) throw new LensError(`word ${w} is outside the vocabulary 0…${V - 1}`);
  }
  // (the logits, before the temperature: it divides only for the probabilities)
  const logitDiff = logits[target] - (alt === null ? 0 : logits[alt]);

  // u = W_U[:, a] − W_U[:, b]: the head as a linear layer of C inputs and V outputs
  const W = params.get(PARAM.headW) ?? null;
  const u = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    const wa = W ? weightAt(W, c, target, C, V) : c === target ? 1 : 0;
    const wb = alt === null ? 0 : W ? weightAt(W, c, alt, C, V) : c === alt ? 1 : 0;
    u[c] = wa - wb;
  }
  const bU = params.get(PARAM.headB)?.data;
  let constant = bU ? bU[target] - (alt === null ? 0 : bU[alt]) : 0;

  // the frozen final norm: d' such that part · d' is the part's share of the logit
  const plan = opts.plan ?? planModel(spec);
  const byId = new Map(plan.map((s) => [s.id, s]));
  const x = run.stage(finalStream(plan)).subarray(pos * C, (pos + 1) * C); // (after an SAE splice or steer at the last layer, as ln_f reads it)
  const lnF = byId.get(STAGE.lnF);
  let d: Float64Array = u;
  if (lnF) {
    const f = frozenNorm(lnF, params, x, u, C);
    d = f.dir;
    constant += f.constant;
  }
  const row = (id: string, width: number): Float32Array => run.stage(id).subarray(pos * width, (pos + 1) * width);
  const parts = embedParts(run, pos, d);
  const layers = layerParts(run, plan, d, row);
  parts.push(...layers.parts);
  constant += layers.constant;
  const all = layers.neurons.flatMap((n, l) => Array.from(n, (value, j): DlaPart => ({ name: unitId('neuron', l, j), kind: 'neuron', layer: l, unit: j, value })));
  all.sort((p1, p2) => Math.abs(p2.value) - Math.abs(p1.value));
  const sum = parts.reduce((s, p) => s + p.value, constant);
  return {
    pos, target, alt, logitDiff, parts, constant, remainder: logitDiff - sum, note: dlaNote(spec.head.softcap ?? null, layers.postNorms, sum),
    heads: layers.heads, topNeurons: all.slice(0, opts.topNeurons ?? 20), neurons: layers.neurons,
  };
}

// the input's parts: the embedding (and the learned position's apart)
function embedParts(run: Run, pos: number, d: Float64Array): DlaPart[] {
  const { spec, params } = run.model;
  const { C } = spec;
  const input = run.stage(STAGE.input).subarray(pos * C, (pos + 1) * C);
  const e = spec.embedding;
  if (e.kind === 'tokens' && e.positional === 'learned') {
    // the input row is embed[id] + pos[pos]: the two apart (the input as computed, so an
    // override of the embedding row counts where it acts)
    const P = floatData(params.get(PARAM.pos)!).subarray(pos * C, (pos + 1) * C);
    const posPart = dot(P, d, C);
    return [
      { name: PARAM.embed, kind: 'embed', layer: -1, unit: -1, value: dot(input, d, C) - posPart },
      { name: 'pos_embed', kind: 'embed', layer: -1, unit: -1, value: posPart },
    ];
  }
  return [{ name: e.kind === 'tokens' ? PARAM.embed : PARAM.input, kind: 'embed', layer: -1, unit: -1, value: dot(input, d, C) }];
}

interface LayerParts {
  readonly parts: DlaPart[];
  readonly heads: number[][];
  readonly neurons: Float64Array[];
  /** The post-norms' biases along the direction. */
  readonly constant: number;
  /** How many sublayers write through a post-norm. */
  readonly postNorms: number;
}

// every layer's heads, attention bias and MLP (with its neurons), each sublayer read through its
// post-norm where the plan has one (the norm stage that reads attn.out / ffn.down), frozen
function layerParts(run: Run, plan: readonly StageDef[], d: Float64Array, row: (id: string, width: number) => Float32Array): LayerParts {
  const { spec, params } = run.model;
  const { C } = spec;
  const out: LayerParts = { parts: [], heads: [], neurons: [], constant: 0, postNorms: 0 };
  let constant = 0;
  let postNorms = 0;
  // the direction a sublayer's output (`id`) is read along: d, or d through its post-norm
  const through = (id: string): Float64Array => {
    const norm = normReading(plan, id);
    if (!norm) return d;
    postNorms++;
    const f = frozenNorm(norm, params, row(id, C), d, C);
    constant += f.constant;
    return f.dir;
  };
  spec.layers.forEach((layer, l) => {
    const a = layer.attention;
    if (a) {
      const dA = through(stageId(l, STAGE.attnOut));
      const K = a.NH * a.HS;
      const ctx = row(stageId(l, STAGE.context), K);
      const back = backProject(params.get(paramId(l, PARAM.Wo)) ?? null, dA, K, C);
      const hs: number[] = [];
      for (let h = 0; h < a.NH; h++) {
        let s = 0;
        for (let j = h * a.HS; j < (h + 1) * a.HS; j++) s += ctx[j] * back[j];
        hs.push(s);
        out.parts.push({ name: unitId('head', l, h), kind: 'head', layer: l, unit: h, value: s });
      }
      out.heads.push(hs);
      const bo = params.get(paramId(l, PARAM.bo))?.data;
      out.parts.push({ name: paramId(l, PARAM.bo), kind: 'bias', layer: l, unit: -1, value: bo ? dot(bo, dA, C) : 0 });
    } else out.heads.push([]);
    if (layer.ffn) {
      const F = layer.ffn.F;
      const down = stageId(l, STAGE.down);
      const dF = through(down);
      out.parts.push({ name: sublayerId(l, 'ffn'), kind: 'mlp', layer: l, unit: -1, value: dot(row(down, C), dF, C) });
      const act = row(stageId(l, STAGE.act), F);
      const g = backProject(params.get(paramId(l, PARAM.W2)) ?? null, dF, F, C);
      const n = new Float64Array(F);
      for (let j = 0; j < F; j++) n[j] = act[j] * g[j];
      out.neurons.push(n);
    } else out.neurons.push(new Float64Array(0));
  });
  return { ...out, constant, postNorms };
}

// which parts are exact, and why
function dlaNote(softcap: number | null, postNorms: number, sum: number): string {
  const base = 'The parts are exact: with the final norm\'s scale held at this run\'s value (as TransformerLens does) the logit difference is linear in what each part wrote into the stream, so they add up to it.';
  const post = postNorms
    ? ' Each sublayer passes a norm after it (ln1_post, ln2_post) before the stream: its heads, bias and neurons are read through that norm with its scale held too, so they add up exactly to what the sublayer wrote, but one part\'s share depends on the others\' (they set the scale together).'
    : '';
  const cap = softcap !== null
    ? ` The final soft-cap (c · tanh(z / c), c = ${softcap}) is not linear: the parts add up to the logit difference before it (${sum.toFixed(4)}); the remainder is what the cap changes.`
    : ' The remainder is float rounding.';
  return base + post + cap;
}
