// planModel: a model's stages, in the order they are computed, as the block graph (graph.ts)
// describes them. This is the forward pass written once, for every architecture:
//
//   input                                  embedding (+ positions) (× embedScale: gemma)
//   for each layer i:
//     [ln1]                                pre-norm
//     attn.q attn.k attn.v                 projections into heads (q/k norms, + RoPE)
//     attn.scores attn.weights             Q·Kᵀ/√HS (scale, soft-cap), then masked softmax (causal, window)
//     attn.context attn.out                weights·V (× head scales), then ·Woᵀ
//     [ln1_post]                           gemma's norm of the attention output
//     [attn.residual] [ln1]                + stream; post-norm
//     [ln2]                                pre-norm (parallel residual: of the layer's input)
//     ffn.up [ffn.gate] ffn.act ffn.down   x·W1ᵀ, (x·Wgᵀ), f(·) (× neuron scales), ·W2ᵀ
//     [ln2_post]                           gemma's norm of the FFN output
//     [ffn.residual] [ln2]                 + stream (parallel: + both sublayers); post-norm
//     out                                  the stream after layer i
//   [ln_f] output                          final norm
//   [head.logits head.probs]               ·Wᵀ + b (soft-capped: gemma2), softmax(/ temperature)
//   [layers.i.lens.logits]                 the logit lens of every layer (as the head, cap included)
//
// (Brackets: only when the model has it. Shapes in graph.ts's StageView; dimension key in spec.ts.)

import { activationLabel, activationOp, isGated } from './activation';
import { cappedLinearOp } from './cappedLinear';
import { attentionContextOp } from './attentionContext';
import { attentionScoresOp } from './attentionScores';
import { attentionWeightsOp } from './attentionWeights';
import { embeddingOp } from './embedding';
import { aliasOp, type AxisKind, type StageDef, type StageGroup, type StageOp } from './graph';
import { headsOp, type HeadNorm } from './heads';
import { layernormOp } from './layernorm';
import { lensOp } from './lens';
import { linearOp } from './linear';
import { parallelResidualOp } from './parallelResidual';
import { residualOp } from './residual';
import { rmsnormOp, type RmsNormArgs } from './rmsnorm';
import { probsOp } from './softmax';
import { epsOf, type AttentionSpec, type ModelSpec } from './spec';
import { normParams, PARAM, paramId, STAGE, stageId } from './ids';
import type { StageShow } from './stageShow';
import { planSae, type AddStage } from './planSae';
import type { SaeSpec } from './saeSpec';
import { planSteer } from './planSteer';
import type { SteerSpec } from './steer';

interface Text {
  readonly title: string;
  readonly meaning: string;
  readonly cols: AxisKind;
  readonly group: StageGroup;
  readonly perHead?: boolean;
  readonly masked?: boolean;
  readonly source?: { readonly params: readonly string[]; readonly perHead: boolean };
  readonly show?: StageShow;
}

class Planner {
  readonly stages: StageDef[] = [];
  /** The SAEs by the stage they read (planSae.ts): later stages read the SAE's `out` in its place. */
  private readonly saes: ReadonlyMap<string, SaeSpec>;
  /** The steers by the stage they steer (planSteer.ts): later stages read the steered stage in its place. */
  private readonly steers: ReadonlyMap<string, SteerSpec>;

  constructor(readonly spec: ModelSpec) {
    this.saes = new Map((spec.saes ?? []).map((s) => [s.site, s]));
    this.steers = new Map((spec.steers ?? []).map((s) => [s.site, s]));
  }

  add<A>(layer: number, kind: string, shape: number[], op: StageOp<A>, args: A, reads: { inputs: string[]; params: string[] }, text: Text): string {
    const id = this.put(layer, kind, shape, op, args, reads, text);
    const sae = this.saes.get(id);
    const put: AddStage = (l, k, sh, o, a, r, t) => this.put(l, k, sh, o, a, r, t);
    const x = sae ? planSae(put, sae, this.spec.T) : id;
    const steer = this.steers.get(id);
    return steer ? planSteer(put, steer, x, this.spec.T, this.spec.C) : x;
  }

  private put<A>(layer: number, kind: string, shape: number[], op: StageOp<A>, args: A, reads: { inputs: string[]; params: string[] }, text: Text): string {
    const id = stageId(layer, kind);
    this.stages.push({
      id, shape, kind, layer, op: op as StageOp<unknown>, args,
      inputs: reads.inputs, params: reads.params,
      group: text.group, title: text.title, meaning: text.meaning, cols: text.cols,
      perHead: text.perHead ?? false, masked: text.masked ?? false, source: text.source ?? null, show: text.show ?? {},
    });
    return id;
  }

  /**
   * The residual-stream map's mark (show.overview 'stream') on what layer i hands on: moved from
   * `layers.i.out` to the SAE's splice or the steered stage after it, when there is one.
   */
  streamAt(i: number, handed: string): void {
    const out = stageId(i, STAGE.out);
    if (handed === out) return;
    const at = (id: string): number => this.stages.findIndex((d) => d.id === id);
    const o = at(out);
    const h = at(handed);
    if (o < 0 || h < 0) return;
    const { overview: _, ...rest } = this.stages[o].show;
    this.stages[o] = { ...this.stages[o], show: rest };
    this.stages[h] = { ...this.stages[h], show: { ...this.stages[h].show, overview: 'stream' } };
  }

  /** A norm stage of `x` with the params under its own id (`layers.0.ln1.gamma`, `ln_f.beta`). */
  norm(layer: number, kind: string, x: string, text: Text): string {
    const { spec } = this;
    const rms = spec.normKind === 'rmsnorm';
    const prefix = stageId(layer, kind);
    const { gamma, beta } = normParams(prefix);
    const args: RmsNormArgs = { x, gamma, beta: rms ? null : beta, eps: epsOf(spec, prefix), C: spec.C, ...(rms && spec.normOnePlus ? { onePlus: true } : {}) };
    const params = rms ? [args.gamma] : [args.gamma, args.beta!];
    return this.add(layer, kind, [spec.T, spec.C], rms ? rmsnormOp : layernormOp, args, { inputs: [x], params }, { ...text, source: { params, perHead: false } });
  }
}

const normName = (spec: ModelSpec): string => (spec.normKind === 'rmsnorm' ? 'RMSNorm' : 'LayerNorm');
/** How an RMSNorm scales, where it is gemma's: for the norms' meanings. */
const onePlusText = (spec: ModelSpec): string => (spec.normKind === 'rmsnorm' && spec.normOnePlus ? ', scaled by (1 + w)' : '');
/** A number as a meaning quotes it (at most 4 significant digits). */
const shown = (v: number): string => String(+v.toPrecision(4));

export function planModel(spec: ModelSpec): StageDef[] {
  const P = new Planner(spec);
  const e = spec.embedding;
  const inputParams: string[] = e.kind === 'vectors' ? [PARAM.input] : e.positional === 'learned' ? [PARAM.embed, PARAM.pos] : [PARAM.embed];
  const scale = spec.embedScale;
  const scaled = scale === undefined ? '' : `, × ${shown(scale)} (√d_model, as gemma scales it)`;
  let x = P.add(-1, STAGE.input, [spec.T, spec.C], embeddingOp, { embedding: e, C: spec.C, ...(scale === undefined ? {} : { scale }) }, { inputs: [], params: inputParams }, {
    group: 'input', title: 'Input', cols: 'dim',
    meaning: (e.kind === 'vectors'
      ? (e.positional === 'sinusoidal' ? 'the token vectors plus sinusoidal positions' : 'the token vectors entering layer 0')
      : (e.positional === 'learned' ? 'each token\'s embedding row plus its position\'s' : 'each token\'s embedding row')) + scaled,
  });
  // what each layer hands on: its output, or after an SAE splice or a steer there, the stage read in its place
  const handed: string[] = [];
  spec.layers.forEach((_, i) => {
    x = planLayer(P, i, x);
    handed.push(x);
    P.streamAt(i, x);
  });
  planOutput(P, x, handed);
  return P.stages;
}

/** Layer i on the stream `x`: its attention, its FFN, each with its residual and norms; returns its output. */
function planLayer(P: Planner, i: number, x: string): string {
  const { spec } = P;
  const L = spec.layers[i];
  const td = [spec.T, spec.C];
  const NN = normName(spec);
  let h = x;
  // A sublayer's output as the stream takes it: through gemma's norm after it (ln1_post, ln2_post).
  const post = (sub: 'attn' | 'ffn', y: string): string => {
    if (!L.postNorms) return y;
    const attn = sub === 'attn';
    return P.norm(i, attn ? STAGE.ln1Post : STAGE.ln2Post, y, {
      group: attn ? 'attention' : 'ffn', cols: 'dim', title: `${NN} after ${attn ? 'Attention' : 'FFN'}`,
      meaning: `${NN} of the ${attn ? 'attention' : 'FFN'}'s output before it is added to the stream (${attn ? 'post_attention_layernorm' : 'post_feedforward_layernorm'}${onePlusText(spec)})`,
    });
  };
  if (L.parallelResidual && L.attention && L.ffn && spec.residual) {
    // both sublayers read the layer's input; no stream between them (no attn.residual)
    const a = post('attn', planAttention(P, i, x));
    const f = post('ffn', planFfn(P, i, x, true));
    h = P.add(i, STAGE.ffnResidual, td, parallelResidualOp, { x, attn: a, mlp: f, C: spec.C }, { inputs: [x, a, f], params: [] }, {
      group: 'ffn', cols: 'dim', title: 'Residual (parallel)', meaning: 'the layer\'s input + what the attention wrote + what the FFN wrote, both read from that same input (parallel residual)',
    });
    return planOut(P, i, h);
  }
  // A sublayer's end: the stream plus its output (residual), then the post-norm.
  const end = (sub: 'attn' | 'ffn', y: string): string => {
    const attn = sub === 'attn';
    const what = attn ? 'attention' : 'FFN';
    const group = attn ? 'attention' : 'ffn';
    y = post(sub, y);
    if (spec.residual) {
      y = P.add(i, attn ? STAGE.attnResidual : STAGE.ffnResidual, td, residualOp, { a: h, b: y, C: spec.C }, { inputs: [h, y], params: [] }, {
        group, cols: 'dim', title: `Residual after ${attn ? 'Attention' : 'FFN'}`, meaning: `the input of the sublayer + what the ${what} wrote`,
      });
    }
    if (spec.norm === 'post') {
      y = P.norm(i, attn ? STAGE.ln1 : STAGE.ln2, y, { group, cols: 'dim', title: `${NN} ${attn ? 1 : 2}`, meaning: `${NN}(x + ${what}(x)) (post-norm)` });
    }
    return y;
  };
  if (L.attention) h = end('attn', planAttention(P, i, h));
  if (L.ffn) h = end('ffn', planFfn(P, i, h));
  return planOut(P, i, h);
}

/** `layers.i.out`: the stream `h` after layer i. */
function planOut(P: Planner, i: number, h: string): string {
  const { spec } = P;
  return P.add(i, STAGE.out, [spec.T, spec.C], aliasOp, { of: h }, { inputs: [h], params: [] }, {
    group: 'layer', cols: 'dim', title: `Layer ${i} Output`, meaning: 'the residual stream after this layer: what it hands on', show: { overview: 'stream' },
  });
}

/** A norm before a sublayer (pre-norm), or the stream as it is. */
function preNorm(P: Planner, i: number, kind: typeof STAGE.ln1 | typeof STAGE.ln2, h: string, group: StageGroup, before: string, note = ''): string {
  const { spec } = P;
  if (spec.norm !== 'pre') return h;
  const NN = normName(spec);
  return P.norm(i, kind, h, { group, cols: 'dim', title: `${NN} ${kind === STAGE.ln1 ? 1 : 2}`, meaning: `normalizes each token before ${before} (pre-norm${spec.normKind === 'rmsnorm' ? ', by its root mean square' : ''}${onePlusText(spec)}${note})` });
}

/** Layer i's attention on the stream `h`: returns its output (before the residual). */
function planAttention(P: Planner, i: number, h: string): string {
  const { spec } = P;
  const { T, C } = spec;
  const a = spec.layers[i].attention!;
  const { NH, KVH, HS } = a;
  const text = (t: Omit<Text, 'group'>): Text => ({ group: 'attention', ...t });
  const inp = preNorm(P, i, STAGE.ln1, h, 'attention', 'attention');
  const rope = ropeText(P, a);
  const proj = (k: 'q' | 'k' | 'v', H: number, title: string, meaning: string): string => {
    const W = paramId(i, { q: PARAM.Wq, k: PARAM.Wk, v: PARAM.Wv }[k]);
    const b = paramId(i, { q: PARAM.bq, k: PARAM.bk, v: PARAM.bv }[k]);
    // q_norm / k_norm (qwen3, gemma3): each head's HS numbers normed before RoPE
    const norm: HeadNorm | null = k !== 'v' && a.qkNorm ? { gamma: paramId(i, k === 'q' ? PARAM.qNorm : PARAM.kNorm), eps: a.qkNorm.eps, onePlus: a.qkNorm.onePlus } : null;
    const normed = norm ? `; each head's ${HS} numbers RMS-normed (${k}_norm${norm.onePlus ? ', scaled by (1 + w)' : ''}) before RoPE` : '';
    return P.add(i, { q: STAGE.q, k: STAGE.k, v: STAGE.v }[k], [H, T, HS], headsOp, { x: inp, W, b, C, H, HS, rope: k === 'v' ? null : a.rope, ...(norm ? { norm } : {}) },
      { inputs: [inp], params: norm ? [W, b, norm.gamma] : [W, b] }, text({ cols: 'head-dim', perHead: true, title, meaning: meaning + normed + (k === 'v' ? '' : rope), source: { params: [W], perHead: true } }));
  };
  const gqa = KVH !== NH ? ` (${KVH} key/value heads, each shared by ${NH / KVH} query heads)` : '';
  const q = proj('q', NH, 'Q (queries)', 'what each token looks for: x·Wqᵀ + bq, split into heads');
  const k = proj('k', KVH, 'K (keys)', `what each token offers to be found by: x·Wkᵀ + bk${gqa}`);
  const v = proj('v', KVH, 'V (values)', `what each token passes on when it is attended to: x·Wvᵀ + bv${gqa}`);
  const window = a.window ?? null;
  const masked = a.causal || window !== null;
  const seen = window === null ? {} : { window };
  const scale = a.scale === undefined ? 'Q·Kᵀ / √d_head' : `Q·Kᵀ × ${shown(a.scale)}`;
  const cap = a.softcap ?? null;
  const capped = cap === null ? '' : `, soft-capped at ${shown(cap)} (tanh(s / ${shown(cap)}) · ${shown(cap)})`;
  const slide = window === null ? '' : `; a sliding window of ${window} on this layer hides the keys ${window} or more tokens back`;
  const scores = P.add(i, STAGE.scores, [NH, T, T], attentionScoresOp, { q, k, NH, KVH, HS, ...(a.scale === undefined ? {} : { scale: a.scale }), ...(cap === null ? {} : { softcap: cap }) }, { inputs: [q, k], params: [] },
    text({ cols: 'key', perHead: true, masked, title: 'Self-Attention Scores', meaning: `${scale}${capped}: how well each query (row) matches each key (column)${a.causal ? '; the causal mask hides the future' : ''}${slide}`,
      show: { valueName: 'score', overview: 'block', ...seen } }));
  const weights = P.add(i, STAGE.weights, [NH, T, T], attentionWeightsOp, { scores, NH, causal: a.causal, ...seen }, { inputs: [scores], params: [] },
    text({ cols: 'key', perHead: true, masked, title: 'Attention Weights', meaning: `softmax of the scores by row: how much each token reads from each other token (rows sum to 1)${window === null ? '' : `; only the last ${window} tokens (sliding window of ${window} on this layer), the others exactly 0`}`,
      show: { valueName: 'weight', nonNegative: true, attentionPattern: true, ...seen } }));
  const units = paramId(i, PARAM.headUnits);
  const Wv = paramId(i, PARAM.Wv);
  const context = P.add(i, STAGE.context, [T, NH * HS], attentionContextOp, { weights, v, units, NH, KVH, HS }, { inputs: [weights, v], params: [units] },
    text({ cols: 'dim', title: 'Context', meaning: 'each head\'s weights · V, heads side by side', source: { params: [Wv], perHead: false }, show: { units: 'head' } }));
  const Wo = paramId(i, PARAM.Wo);
  const bo = paramId(i, PARAM.bo);
  return P.add(i, STAGE.attnOut, [T, C], linearOp, { x: context, W: Wo, b: bo, C: NH * HS, OC: C }, { inputs: [context], params: [Wo, bo] },
    text({ cols: 'dim', title: 'Attention Output', meaning: 'context · Woᵀ + bo', source: { params: [Wo], perHead: false } }));
}

/** How Q and K are rotated, for their meanings: the part of each head, and the base where layers differ in it. */
function ropeText(P: Planner, a: AttentionSpec): string {
  const r = a.rope;
  if (!r) return '';
  const part = r.rotaryDims !== undefined && r.rotaryDims < a.HS ? ` on the first ${r.rotaryDims} of each head's ${a.HS} dims, the rest passed through` : '';
  const thetas = new Set(P.spec.layers.map((l) => l.attention?.rope?.theta));
  const base = thetas.size > 1 ? `, base ${r.theta} on this layer` : '';
  return `; rotated by its position (RoPE${base})${part}`;
}

/** Layer i's FFN on the stream `h` (`parallel`: the layer's input, beside the attention): returns its output (before the residual). */
function planFfn(P: Planner, i: number, h: string, parallel = false): string {
  const { spec } = P;
  const { T, C } = spec;
  const f = spec.layers[i].ffn!;
  const { F } = f;
  const text = (t: Omit<Text, 'group'>): Text => ({ group: 'ffn', ...t });
  const inp = preNorm(P, i, STAGE.ln2, h, 'ffn', 'the FFN', parallel ? '; of the layer\'s input, which the attention reads too: parallel residual' : '');
  const lin = (kind: string, Wk: string, bk: string, xIn: string, CIn: number, OC: number, t: Omit<Text, 'group'>): string => {
    const W = paramId(i, Wk);
    const b = paramId(i, bk);
    return P.add(i, kind, [T, OC], linearOp, { x: xIn, W, b, C: CIn, OC }, { inputs: [xIn], params: [W, b] }, text({ ...t, source: { params: [W], perHead: false } }));
  };
  const block = { overview: 'block' } as const;
  const up = lin(STAGE.up, PARAM.W1, PARAM.b1, inp, C, F, { cols: 'neuron', title: 'FFN - Projection Up', meaning: 'x·W1ᵀ + b1: each neuron (column) asks the token a question', show: block });
  const gated = isGated(f.activation);
  const gate = gated ? lin(STAGE.gate, PARAM.Wg, PARAM.bg, inp, C, F, { cols: 'neuron', title: 'FFN - Gate', meaning: 'x·Wgᵀ + bg: how much of each neuron passes' }) : null;
  const act = activationLabel(f.activation);
  const units = paramId(i, PARAM.neuronUnits);
  // (its tooltip quotes what went in: act = f(up), or for a gated FFN f(gate) · up)
  const quotes = gate ? [{ label: 'gate (pre-activation)', stage: gate }, { label: 'up', stage: up }] : [{ label: 'up (pre-activation)', stage: up }];
  const a = P.add(i, STAGE.act, [T, F], activationOp, { up, gate, activation: f.activation, units, F }, { inputs: gate ? [up, gate] : [up], params: [units] },
    text({ cols: 'neuron', title: `FFN - Activation (${act})`, meaning: gated ? `${act}: f(gate) ⊙ up` : `${act}(up): which neurons answer, and how strongly`, source: { params: [paramId(i, PARAM.W1)], perHead: false },
      show: { ...block, valueName: 'activation', quotes, units: 'neuron', activationChart: { fn: f.activation, input: gate ?? up } } }));
  return lin(STAGE.down, PARAM.W2, PARAM.b2, a, F, C, { cols: 'dim', title: 'FFN - Projection Down', meaning: 'act·W2ᵀ + b2: each active neuron adds its column of W2', show: { ...block, neuronWrites: true } });
}

/** The final norm, the output, and the head with its logit lens of every layer. */
function planOutput(P: Planner, x: string, handed: readonly string[]): void {
  const { spec } = P;
  const { T, C } = spec;
  const NN = normName(spec);
  if (spec.finalNorm) x = P.norm(-1, STAGE.lnF, x, { group: 'output', cols: 'dim', title: `Final ${NN}`, meaning: `${NN} of the last layer's output` });
  const output = P.add(-1, STAGE.output, [T, C], aliasOp, { of: x }, { inputs: [x], params: [] }, { group: 'output', cols: 'dim', title: 'Output', meaning: spec.finalNorm ? 'the final norm of the last layer\'s output' : 'the last layer\'s output' });
  const head = spec.head;
  if (!head) return;
  const { V } = head;
  const W = paramId(-1, PARAM.headW);
  const b = paramId(-1, PARAM.headB);
  const cap = head.softcap ?? null;
  const capped = cap === null ? '' : `, soft-capped at ${shown(cap)} (tanh(l / ${shown(cap)}) · ${shown(cap)})`;
  const lin = { x: output, W, b, C, OC: V };
  const reads = { inputs: [output], params: [W, b] };
  const text: Text = { group: 'head', cols: 'vocab', title: 'Logits', meaning: `output·Wᵀ + b${capped}: a score per vocabulary word`, source: { params: [W], perHead: false } };
  const logits = cap === null ? P.add(-1, STAGE.logits, [T, V], linearOp, lin, reads, text) : P.add(-1, STAGE.logits, [T, V], cappedLinearOp, { ...lin, cap }, reads, text);
  P.add(-1, STAGE.probs, [T, V], probsOp, { logits, V, temperature: head.temperature }, { inputs: [logits], params: [] },
    { group: 'head', cols: 'vocab', title: `Probabilities (temperature ${head.temperature})`, meaning: 'softmax(logits / temperature) by row', source: { params: [W], perHead: false }, show: { nonNegative: true } });
  if (!spec.lens) return;
  const rms = spec.normKind === 'rmsnorm';
  const f = normParams(STAGE.lnF);
  const norm = spec.finalNorm ? { kind: spec.normKind, gamma: f.gamma, beta: rms ? null : f.beta, eps: epsOf(spec, STAGE.lnF), ...(rms && spec.normOnePlus ? { onePlus: true } : {}) } : null;
  const normIds = norm ? (rms ? [f.gamma] : [f.gamma, f.beta]) : [];
  spec.layers.forEach((_, i) => {
    // (the stream as the next layer reads it: after an SAE's splice or a steer at layers.i.out)
    const li = handed[i];
    const as = li === stageId(i, STAGE.out) ? '' : ` as ${li} hands it on`;
    P.add(i, STAGE.lens, [T, V], lensOp, { x: li, norm, W, b, C, V, ...(cap === null ? {} : { softcap: cap }) }, { inputs: [li], params: [...normIds, W, b] },
      { group: 'lens', cols: 'vocab', title: `Logit Lens, layer ${i}`, meaning: `the head read off layer ${i}'s output${as}${norm ? ' through the final norm' : ''}${capped}: what the model would predict if it stopped here`, source: { params: [W], perHead: false } });
  });
}
