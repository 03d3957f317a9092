// planModel: a model's stages, in the order they are computed, as the block graph (graph.ts)
// describes them. This is the forward pass written once, for every architecture:
//
//   input                                  embedding (+ positions)
//   for each layer i:
//     [ln1]                                pre-norm
//     attn.q attn.k attn.v                 projections into heads (+ RoPE)
//     attn.scores attn.weights             Q·Kᵀ/√HS, then masked softmax
//     attn.context attn.out                weights·V (× head scales), then ·Woᵀ
//     [attn.residual] [ln1]                + stream; post-norm
//     [ln2]                                pre-norm
//     ffn.up [ffn.gate] ffn.act ffn.down   x·W1ᵀ, (x·Wgᵀ), f(·) (× neuron scales), ·W2ᵀ
//     [ffn.residual] [ln2]                 + stream; post-norm
//     out                                  the stream after layer i
//   [ln_f] output                          final norm
//   [head.logits head.probs]               ·Wᵀ + b, softmax(/ temperature)
//   [layers.i.lens.logits]                 the logit lens of every layer
//
// (Brackets: only when the model has it. Shapes in graph.ts's StageView; dimension key in spec.ts.)

import { activationLabel, activationOp, isGated } from './activation';
import { attentionContextOp } from './attentionContext';
import { attentionScoresOp } from './attentionScores';
import { attentionWeightsOp } from './attentionWeights';
import { embeddingOp } from './embedding';
import { aliasOp, type AxisKind, type StageDef, type StageGroup, type StageOp } from './graph';
import { headsOp } from './heads';
import { layernormOp, type NormArgs } from './layernorm';
import { lensOp } from './lens';
import { linearOp } from './linear';
import { residualOp } from './residual';
import { rmsnormOp } from './rmsnorm';
import { probsOp } from './softmax';
import { epsOf, type ModelSpec } from './spec';
import { stageId } from './ids';

interface Text {
  readonly title: string;
  readonly meaning: string;
  readonly cols: AxisKind;
  readonly group: StageGroup;
  readonly perHead?: boolean;
  readonly masked?: boolean;
  readonly source?: { readonly params: readonly string[]; readonly perHead: boolean };
}

class Planner {
  readonly stages: StageDef[] = [];

  constructor(readonly spec: ModelSpec) {}

  add<A>(layer: number, kind: string, shape: number[], op: StageOp<A>, args: A, reads: { inputs: string[]; params: string[] }, text: Text): string {
    const id = stageId(layer, kind);
    this.stages.push({
      id, shape, kind, layer, op: op as StageOp<unknown>, args,
      inputs: reads.inputs, params: reads.params,
      group: text.group, title: text.title, meaning: text.meaning, cols: text.cols,
      perHead: text.perHead ?? false, masked: text.masked ?? false, source: text.source ?? null,
    });
    return id;
  }

  /** A norm stage of `x` with the params under `prefix` (`layers.0.ln1`, `ln_f`). */
  norm(layer: number, kind: string, x: string, prefix: string, text: Text): string {
    const { spec } = this;
    const rms = spec.normKind === 'rmsnorm';
    const args: NormArgs = { x, gamma: `${prefix}.gamma`, beta: rms ? null : `${prefix}.beta`, eps: epsOf(spec, prefix), C: spec.C };
    const params = rms ? [args.gamma] : [args.gamma, args.beta!];
    return this.add(layer, kind, [spec.T, spec.C], rms ? rmsnormOp : layernormOp, args, { inputs: [x], params }, { ...text, source: { params, perHead: false } });
  }
}

const normName = (spec: ModelSpec): string => (spec.normKind === 'rmsnorm' ? 'RMSNorm' : 'LayerNorm');

export function planModel(spec: ModelSpec): StageDef[] {
  const P = new Planner(spec);
  const { T, C } = spec;
  const td = [T, C];
  const e = spec.embedding;
  const inputParams = e.kind === 'vectors' ? ['input'] : e.positional === 'learned' ? ['embed', 'pos'] : ['embed'];
  let x = P.add(-1, 'input', td, embeddingOp, { embedding: e, C }, { inputs: [], params: inputParams }, {
    group: 'input', title: 'Input', cols: 'dim',
    meaning: e.kind === 'vectors'
      ? (e.positional === 'sinusoidal' ? 'the token vectors plus sinusoidal positions' : 'the token vectors entering layer 0')
      : (e.positional === 'learned' ? 'each token\'s embedding row plus its position\'s' : 'each token\'s embedding row'),
  });
  const NN = normName(spec);

  spec.layers.forEach((L, i) => {
    const p = `layers.${i}.`;
    let h = x;
    // A sublayer's end: the stream plus its output (residual), then the post-norm.
    const end = (sub: 'attn' | 'ffn', ln: 'ln1' | 'ln2', y: string, what: string): string => {
      if (spec.residual) {
        y = P.add(i, `${sub}.residual`, td, residualOp, { a: h, b: y, C }, { inputs: [h, y], params: [] }, {
          group: sub === 'attn' ? 'attention' : 'ffn', cols: 'dim',
          title: `Residual after ${sub === 'attn' ? 'Attention' : 'FFN'}`, meaning: `the input of the sublayer + what the ${what} wrote`,
        });
      }
      if (spec.norm === 'post') {
        y = P.norm(i, ln, y, p + ln, { group: sub === 'attn' ? 'attention' : 'ffn', cols: 'dim', title: `${NN} ${ln === 'ln1' ? 1 : 2}`, meaning: `${NN}(x + ${what}(x)) (post-norm)` });
      }
      return y;
    };

    if (L.attention) {
      const a = L.attention;
      const { NH, KVH, HS } = a;
      const text = (t: Omit<Text, 'group'>): Text => ({ group: 'attention', ...t });
      const inp = spec.norm === 'pre' ? P.norm(i, 'ln1', h, p + 'ln1', text({ cols: 'dim', title: `${NN} 1`, meaning: `normalizes each token before attention (pre-norm${spec.normKind === 'rmsnorm' ? ', by its root mean square' : ''})` })) : h;
      const rope = a.rope ? '; rotated by its position (RoPE)' : '';
      const proj = (k: 'q' | 'k' | 'v', H: number, title: string, meaning: string): string => {
        const W = `${p}attn.W${k}`;
        const b = `${p}attn.b${k}`;
        return P.add(i, `attn.${k}`, [H, T, HS], headsOp, { x: inp, W, b, C, H, HS, rope: k === 'v' ? null : a.rope },
          { inputs: [inp], params: [W, b] }, text({ cols: 'head-dim', perHead: true, title, meaning, source: { params: [W], perHead: true } }));
      };
      const gqa = KVH !== NH ? ` (${KVH} key/value heads, each shared by ${NH / KVH} query heads)` : '';
      const q = proj('q', NH, 'Q (queries)', `what each token looks for: x·Wqᵀ + bq, split into heads${rope}`);
      const k = proj('k', KVH, 'K (keys)', `what each token offers to be found by: x·Wkᵀ + bk${rope}${gqa}`);
      const v = proj('v', KVH, 'V (values)', `what each token passes on when it is attended to: x·Wvᵀ + bv${gqa}`);
      const scores = P.add(i, 'attn.scores', [NH, T, T], attentionScoresOp, { q, k, NH, KVH, HS }, { inputs: [q, k], params: [] },
        text({ cols: 'key', perHead: true, masked: a.causal, title: 'Self-Attention Scores', meaning: `Q·Kᵀ / √d_head: how well each query (row) matches each key (column)${a.causal ? '; the causal mask hides the future' : ''}` }));
      const weights = P.add(i, 'attn.weights', [NH, T, T], attentionWeightsOp, { scores, NH, causal: a.causal }, { inputs: [scores], params: [] },
        text({ cols: 'key', perHead: true, masked: a.causal, title: 'Attention Weights', meaning: 'softmax of the scores by row: how much each token reads from each other token (rows sum to 1)' }));
      const units = `${p}attn.units`;
      const context = P.add(i, 'attn.context', [T, NH * HS], attentionContextOp, { weights, v, units, NH, KVH, HS }, { inputs: [weights, v], params: [units] },
        text({ cols: 'dim', title: 'Context', meaning: 'each head\'s weights · V, heads side by side', source: { params: [`${p}attn.Wv`], perHead: false } }));
      const Wo = `${p}attn.Wo`;
      const bo = `${p}attn.bo`;
      const out = P.add(i, 'attn.out', td, linearOp, { x: context, W: Wo, b: bo, C: NH * HS, OC: C }, { inputs: [context], params: [Wo, bo] },
        text({ cols: 'dim', title: 'Attention Output', meaning: 'context · Woᵀ + bo', source: { params: [Wo], perHead: false } }));
      h = end('attn', 'ln1', out, 'attention');
    }

    if (L.ffn) {
      const f = L.ffn;
      const { F } = f;
      const text = (t: Omit<Text, 'group'>): Text => ({ group: 'ffn', ...t });
      const inp = spec.norm === 'pre' ? P.norm(i, 'ln2', h, p + 'ln2', text({ cols: 'dim', title: `${NN} 2`, meaning: `normalizes each token before the FFN (pre-norm${spec.normKind === 'rmsnorm' ? ', by its root mean square' : ''})` })) : h;
      const lin = (kind: string, W: string, b: string, xIn: string, CIn: number, OC: number, t: Omit<Text, 'group'>): string =>
        P.add(i, kind, [T, OC], linearOp, { x: xIn, W: p + W, b: p + b, C: CIn, OC }, { inputs: [xIn], params: [p + W, p + b] }, text({ ...t, source: { params: [p + W], perHead: false } }));
      const up = lin('ffn.up', 'ffn.W1', 'ffn.b1', inp, C, F, { cols: 'neuron', title: 'FFN - Projection Up', meaning: 'x·W1ᵀ + b1: each neuron (column) asks the token a question' });
      const gated = isGated(f.activation);
      const gate = gated ? lin('ffn.gate', 'ffn.Wg', 'ffn.bg', inp, C, F, { cols: 'neuron', title: 'FFN - Gate', meaning: 'x·Wgᵀ + bg: how much of each neuron passes' }) : null;
      const act = activationLabel(f.activation);
      const units = `${p}ffn.units`;
      const a = P.add(i, 'ffn.act', [T, F], activationOp, { up, gate, activation: f.activation, units, F }, { inputs: gate ? [up, gate] : [up], params: [units] },
        text({ cols: 'neuron', title: `FFN - Activation (${act})`, meaning: gated ? `${act}: f(gate) ⊙ up` : `${act}(up): which neurons answer, and how strongly`, source: { params: [`${p}ffn.W1`], perHead: false } }));
      const down = lin('ffn.down', 'ffn.W2', 'ffn.b2', a, F, C, { cols: 'dim', title: 'FFN - Projection Down', meaning: 'act·W2ᵀ + b2: each active neuron adds its column of W2' });
      h = end('ffn', 'ln2', down, 'FFN');
    }
    x = P.add(i, 'out', td, aliasOp, { of: h }, { inputs: [h], params: [] }, { group: 'layer', cols: 'dim', title: `Layer ${i} Output`, meaning: 'the residual stream after this layer: what it hands on' });
  });

  if (spec.finalNorm) x = P.norm(-1, 'ln_f', x, 'ln_f', { group: 'output', cols: 'dim', title: `Final ${NN}`, meaning: `${NN} of the last layer's output` });
  const output = P.add(-1, 'output', td, aliasOp, { of: x }, { inputs: [x], params: [] }, { group: 'output', cols: 'dim', title: 'Output', meaning: spec.finalNorm ? 'the final norm of the last layer\'s output' : 'the last layer\'s output' });

  const head = spec.head;
  if (head) {
    const { V } = head;
    const logits = P.add(-1, 'head.logits', [T, V], linearOp, { x: output, W: 'head.W', b: 'head.b', C, OC: V }, { inputs: [output], params: ['head.W', 'head.b'] },
      { group: 'head', cols: 'vocab', title: 'Logits', meaning: 'output·Wᵀ + b: a score per vocabulary word', source: { params: ['head.W'], perHead: false } });
    P.add(-1, 'head.probs', [T, V], probsOp, { logits, V, temperature: head.temperature }, { inputs: [logits], params: [] },
      { group: 'head', cols: 'vocab', title: `Probabilities (temperature ${head.temperature})`, meaning: 'softmax(logits / temperature) by row', source: { params: ['head.W'], perHead: false } });
    if (spec.lens) {
      const rms = spec.normKind === 'rmsnorm';
      const norm = spec.finalNorm ? { kind: spec.normKind, gamma: 'ln_f.gamma', beta: rms ? null : 'ln_f.beta', eps: epsOf(spec, 'ln_f') } : null;
      const normParams = norm ? (rms ? ['ln_f.gamma'] : ['ln_f.gamma', 'ln_f.beta']) : [];
      spec.layers.forEach((_, i) => {
        const li = stageId(i, 'out');
        P.add(i, 'lens.logits', [T, V], lensOp, { x: li, norm, W: 'head.W', b: 'head.b', C, V }, { inputs: [li], params: [...normParams, 'head.W', 'head.b'] },
          { group: 'lens', cols: 'vocab', title: `Logit Lens, layer ${i}`, meaning: `the head read off layer ${i}'s output${norm ? ' through the final norm' : ''}: what the model would predict if it stopped here`, source: { params: ['head.W'], perHead: false } });
      });
    }
  }
  return P.stages;
}
