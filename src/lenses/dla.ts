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

import { epsOf } from '../core/spec';
import { PARAM, paramId, STAGE, stageId, sublayerId, unitId } from '../core/ids';
import { LensError, top2, type Run } from './cache';
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
  /** The final norm's bias and the head's bias along the direction. */
  readonly constant: number;
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
  const L = spec.layers.length;
  const x = run.stage(L ? stageId(L - 1, STAGE.out) : STAGE.input).subarray(pos * C, (pos + 1) * C);
  const d = new Float64Array(C);
  if (spec.finalNorm) {
    const gamma = params.get(PARAM.lnFGamma)?.data;
    const eps = epsOf(spec, STAGE.lnF);
    if (spec.normKind === 'rmsnorm') {
      let ss = 0;
      for (let c = 0; c < C; c++) ss += x[c] * x[c];
      const r = Math.sqrt(ss / C + eps);
      for (let c = 0; c < C; c++) d[c] = ((gamma ? gamma[c] : 1) * u[c]) / r;
    } else {
      let m = 0;
      for (let c = 0; c < C; c++) m += x[c];
      m /= C;
      let v = 0;
      for (let c = 0; c < C; c++) v += (x[c] - m) * (x[c] - m);
      const sigma = Math.sqrt(v / C + eps);
      let md = 0;
      for (let c = 0; c < C; c++) md += (d[c] = ((gamma ? gamma[c] : 1) * u[c]) / sigma);
      md /= C;
      for (let c = 0; c < C; c++) d[c] -= md;
      const beta = params.get(PARAM.lnFBeta)?.data;
      if (beta) constant += dot(beta, u, C);
    }
  } else d.set(u);

  const parts: DlaPart[] = [];
  const row = (id: string, width: number): Float32Array => run.stage(id).subarray(pos * width, (pos + 1) * width);
  const input = row(STAGE.input, C);
  const e = spec.embedding;
  if (e.kind === 'tokens' && e.positional === 'learned') {
    // the input row is embed[id] + pos[pos]: the two apart (the input as computed, so an
    // override of the embedding row counts where it acts)
    const P = params.get(PARAM.pos)!.data.subarray(pos * C, (pos + 1) * C);
    const posPart = dot(P, d, C);
    parts.push({ name: PARAM.embed, kind: 'embed', layer: -1, unit: -1, value: dot(input, d, C) - posPart });
    parts.push({ name: 'pos_embed', kind: 'embed', layer: -1, unit: -1, value: posPart });
  } else parts.push({ name: e.kind === 'tokens' ? PARAM.embed : PARAM.input, kind: 'embed', layer: -1, unit: -1, value: dot(input, d, C) });

  const heads: number[][] = [];
  const neurons: Float64Array[] = [];
  const all: DlaPart[] = [];
  spec.layers.forEach((layer, l) => {
    const a = layer.attention;
    if (a) {
      const K = a.NH * a.HS;
      const ctx = row(stageId(l, STAGE.context), K);
      const back = backProject(params.get(paramId(l, PARAM.Wo)) ?? null, d, K, C);
      const hs: number[] = [];
      for (let h = 0; h < a.NH; h++) {
        let s = 0;
        for (let j = h * a.HS; j < (h + 1) * a.HS; j++) s += ctx[j] * back[j];
        hs.push(s);
        parts.push({ name: unitId('head', l, h), kind: 'head', layer: l, unit: h, value: s });
      }
      heads.push(hs);
      const bo = params.get(paramId(l, PARAM.bo))?.data;
      parts.push({ name: paramId(l, PARAM.bo), kind: 'bias', layer: l, unit: -1, value: bo ? dot(bo, d, C) : 0 });
    } else heads.push([]);
    if (layer.ffn) {
      const F = layer.ffn.F;
      parts.push({ name: sublayerId(l, 'ffn'), kind: 'mlp', layer: l, unit: -1, value: dot(row(stageId(l, STAGE.down), C), d, C) });
      const act = row(stageId(l, STAGE.act), F);
      const g = backProject(params.get(paramId(l, PARAM.W2)) ?? null, d, F, C);
      const n = new Float64Array(F);
      for (let j = 0; j < F; j++) {
        n[j] = act[j] * g[j];
        all.push({ name: unitId('neuron', l, j), kind: 'neuron', layer: l, unit: j, value: n[j] });
      }
      neurons.push(n);
    } else neurons.push(new Float64Array(0));
  });
  all.sort((p1, p2) => Math.abs(p2.value) - Math.abs(p1.value));
  return { pos, target, alt, logitDiff, parts, constant, heads, topNeurons: all.slice(0, opts.topNeurons ?? 20), neurons };
}
