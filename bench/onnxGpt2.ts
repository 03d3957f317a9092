// The GPT-2 forward as an ONNX graph of standard ops (opset 20), from our model's params, for the
// onnxruntime peers (bench/onnxPeer.ts): Gather + Add for the embedding, LayerNormalization,
// MatMul + Add, Reshape/Transpose for the heads, a causal mask added before Softmax, Gelu with
// approximate = 'tanh' (GPT-2's gelu_new), a tied head. Every stage our engine keeps is a graph
// output, so onnxruntime hands each back as we keep each (and cannot fuse across them).
import { normParams, PARAM, paramId, STAGE, stageId } from '../src/core/ids';
import { epsOf } from '../src/core/spec';
import type { Model } from '../src/core/model';
import { floatData, floatOrNull, type Param, weightIndex } from '../src/core/params';
import { OnnxGraph } from './onnxProto';

export interface OnnxGpt2 { bytes: Uint8Array; stages: number; logits: string; ids: string; T: number }

/** A matrix of K inputs and N outputs as (K,N) (`nk` false: MatMul's B) or (N,K) (an embedding's rows), whatever its layout (panels too). */
function plain(p: Param, K: number, N: number, nk = false): Float32Array {
  if (p.layout === 'in_out' && !nk) return floatData(p).subarray(0, K * N);
  if ((p.layout ?? 'out_in') === 'out_in' && nk) return floatData(p).subarray(0, K * N);
  const d = new Float32Array(K * N);
  for (let n = 0; n < N; n++) for (let k = 0; k < K; k++) d[nk ? n * K + k : k * N + n] = floatData(p)[weightIndex(p.layout, k, n, K, N)];
  return d;
}
const kn = (p: Param, K: number, N: number): Float32Array => plain(p, K, N);

export function onnxGpt2(model: Model): OnnxGpt2 {
  const { spec, params } = model;
  const { C, T } = spec;
  const e = spec.embedding;
  if (e.kind !== 'tokens' || e.positional !== 'learned' || spec.normKind !== 'layernorm' || !spec.head) throw new Error('onnx peer: a GPT-2 model is expected');
  const V = spec.head.V;
  const g = new OnnxGraph();
  const get = (id: string): Param => {
    const p = params.get(id);
    if (!p) throw new Error(`onnx peer: the model has no param ${id}`);
    return p;
  };
  const vec = (id: string, n: number): string => g.weight(id, floatOrNull(params.get(id))?.subarray(0, n) ?? new Float32Array(n), [n]);
  const mat = (id: string, K: number, N: number): string => g.weight(id, kn(get(id), K, N), [K, N]);
  let stages = 0;
  const keep = (name: string, dims: number[]): string => {
    stages++;
    return g.output(name, dims);
  };
  const ln = (x: string, prefix: string, out: string): string => {
    const n = normParams(prefix);
    return g.op('LayerNormalization', [x, vec(n.gamma, C), vec(n.beta, C)], { axis: -1, epsilon: epsOf(spec, prefix) }, out);
  };

  // the embedding: rows of wte by id, plus the first T rows of wpe
  const ids = g.input('ids', [T], 'int64');
  const wte = g.weight(PARAM.embed, plain(get(PARAM.embed), C, V, true), [V, C]);
  const pos = g.weight(PARAM.pos, floatData(get(PARAM.pos)).subarray(0, T * C), [T, C]);
  let x = g.op('Add', [g.op('Gather', [wte, ids], { axis: 0 }), pos], {}, STAGE.input);
  keep(x, [T, C]);
  const mask = g.weight('mask', Float32Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? -Infinity : 0)), [T, T]);
  spec.layers.forEach((L, i) => {
    const a = L.attention!;
    const F = L.ffn!.F;
    const P = (kind: string): string => paramId(i, kind);
    const S = (kind: string): string => stageId(i, kind);
    const heads = g.ints(`heads_${i}`, [T, a.NH, a.HS]);
    const flat = g.ints(`flat_${i}`, [T, a.NH * a.HS]);
    const h = ln(x, stageId(i, STAGE.ln1), S(STAGE.ln1));
    keep(h, [T, C]);
    const proj = (W: string, b: string, name: string): string => {
      const y = g.op('Add', [g.op('MatMul', [h, mat(P(W), C, a.NH * a.HS)]), vec(P(b), a.NH * a.HS)]);
      const hd = g.op('Transpose', [g.op('Reshape', [y, heads])], { perm: [1, 0, 2] }, S(name));
      keep(hd, [a.NH, T, a.HS]);
      return hd;
    };
    const q = proj(PARAM.Wq, PARAM.bq, STAGE.q);
    const k = proj(PARAM.Wk, PARAM.bk, STAGE.k);
    const v = proj(PARAM.Wv, PARAM.bv, STAGE.v);
    const kT = g.op('Transpose', [k], { perm: [0, 2, 1] });
    const scores = g.op('Mul', [g.op('MatMul', [q, kT]), g.scalar(`scale_${i}`, 1 / Math.sqrt(a.HS))], {}, S(STAGE.scores));
    keep(scores, [a.NH, T, T]);
    const weights = g.op('Softmax', [g.op('Add', [scores, mask])], { axis: -1 }, S(STAGE.weights));
    keep(weights, [a.NH, T, T]);
    const ctx = g.op('Reshape', [g.op('Transpose', [g.op('MatMul', [weights, v])], { perm: [1, 0, 2] }), flat], {}, S(STAGE.context));
    keep(ctx, [T, a.NH * a.HS]);
    const o = g.op('Add', [g.op('MatMul', [ctx, mat(P(PARAM.Wo), a.NH * a.HS, C)]), vec(P(PARAM.bo), C)], {}, S(STAGE.attnOut));
    keep(o, [T, C]);
    x = g.op('Add', [x, o], {}, S(STAGE.attnResidual));
    keep(x, [T, C]);
    const h2 = ln(x, stageId(i, STAGE.ln2), S(STAGE.ln2));
    keep(h2, [T, C]);
    const up = g.op('Add', [g.op('MatMul', [h2, mat(P(PARAM.W1), C, F)]), vec(P(PARAM.b1), F)], {}, S(STAGE.up));
    keep(up, [T, F]);
    const act = g.op('Gelu', [up], { approximate: 'tanh' }, S(STAGE.act));
    keep(act, [T, F]);
    const down = g.op('Add', [g.op('MatMul', [act, mat(P(PARAM.W2), F, C)]), vec(P(PARAM.b2), C)], {}, S(STAGE.down));
    keep(down, [T, C]);
    x = g.op('Add', [x, down], {}, S(STAGE.out));
    keep(x, [T, C]);
  });
  const f = ln(x, STAGE.lnF, STAGE.lnF);
  keep(f, [T, C]);
  const logits = g.op('MatMul', [f, g.weight(PARAM.headW, kn(params.get(PARAM.headW) ?? get(PARAM.embed), C, V), [C, V])], {}, STAGE.logits);
  keep(logits, [T, V]);
  keep(g.op('Softmax', [logits], { axis: -1 }, STAGE.probs), [T, V]);
  return { bytes: g.encode(20), stages, logits, ids, T };
}
