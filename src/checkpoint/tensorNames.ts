// Hugging Face's tensor names → the core's param ids (src/core/params.ts), with the shape each must
// have and the layout it is stored in. GPT-2's Conv1D weights are [in][out] ('in_out') and its
// c_attn holds Q, K and V side by side (split here into three [C, C] matrices); Llama's and
// Qwen2's Linear weights are [out][in] ('out_in'). Names are given without the model's prefix
// (`transformer.` for gpt2, `model.` for llama/qwen2), which the Hub's files have or not.

import { PARAM, paramId, type ParamKind } from '../core/ids';
import { layerParam, shapeOf, type ParamDim } from '../core/paramTable';
import type { Param } from '../core/params';
import type { Layout } from '../core/spec';
import type { ArchConfig, ModelType } from './config';

/** What a tensor becomes. */
export type TensorRole =
  | { readonly kind: 'matrix'; readonly id: string; readonly layout: Layout }
  | { readonly kind: 'vector'; readonly id: string }
  /** GPT-2's c_attn weight [C][3C]: Wq, Wk, Wv of the layer, each [C, C] in_out. */
  | { readonly kind: 'qkv'; readonly layer: number }
  /** GPT-2's c_attn bias [3C]: bq, bk, bv. */
  | { readonly kind: 'qkvBias'; readonly layer: number };

export interface ExpectedTensor {
  /** Hugging Face's name without the model's prefix. */
  readonly name: string;
  readonly shape: readonly number[];
  /** The shape in config.json's words, for messages: `[kv_heads·head_dim, hidden_size]`. */
  readonly what: string;
  readonly role: TensorRole;
}

export const HEAD_TENSOR = 'lm_head.weight';

export function modelPrefix(type: ModelType): string {
  return type === 'gpt2' ? 'transformer.' : 'model.';
}

/** Every tensor the model reads but the head's (see headTensor), in the order of the model. */
export function expectedTensors(arch: ArchConfig): ExpectedTensor[] {
  return [...eachExpectedTensor(arch)];
}

/**
 * expectedTensors one at a time: a check that stops at the first missing tensor has made only the
 * names before it (never a list of every layer's, whatever number of layers config.json claims).
 */
export function* eachExpectedTensor(arch: ArchConfig): Generator<ExpectedTensor> {
  const gpt2 = arch.modelType === 'gpt2';
  yield* gpt2 ? gpt2Start(arch) : llamaStart(arch);
  for (let i = 0; i < arch.L; i++) yield* gpt2 ? gpt2Layer(arch, i) : llamaLayer(arch, i);
  yield* gpt2 ? gpt2End(arch) : llamaEnd(arch);
}

/** The embedding tensor's name (without the model's prefix): its shape is [vocab_size, hidden_size]. */
export function embeddingTensor(type: ModelType): string {
  return type === 'gpt2' ? 'wte.weight' : 'embed_tokens.weight';
}

/** The name before a layer's number (`h.` for gpt2, `layers.` for llama/qwen2), without the model's prefix. */
export function layerStem(type: ModelType): string {
  return type === 'gpt2' ? 'h.' : 'layers.';
}

/** A layer's tensor names start so (without the model's prefix): `h.3.`, `layers.3.`. */
export function layerTensorPrefix(type: ModelType, layer: number): string {
  return `${layerStem(type)}${layer}.`;
}

/** The untied head: lm_head.weight [V][C] as a Linear. */
export function headTensor(arch: ArchConfig): ExpectedTensor {
  const what = arch.modelType === 'gpt2' ? '[vocab_size, n_embd]' : '[vocab_size, hidden_size]';
  return { name: HEAD_TENSOR, shape: [arch.V, arch.C], what, role: { kind: 'matrix', id: PARAM.headW, layout: 'out_in' } };
}

const mat = (name: string, shape: [number, number], what: string, id: string, layout: Layout): ExpectedTensor => ({ name, shape, what, role: { kind: 'matrix', id, layout } });
const vec = (name: string, n: number, what: string, id: string): ExpectedTensor => ({ name, shape: [n], what, role: { kind: 'vector', id } });

/** The sizes of the param table's dimension key (src/core/paramTable.ts) for a checkpoint's layers. */
function dimsOf(arch: ArchConfig): Record<ParamDim, number> {
  return { C: arch.C, F: arch.F, Q: arch.NH * arch.HS, KV: arch.KVH * arch.HS, HS: arch.HS, NH: arch.NH };
}

/** Layer `i`'s params as one architecture stores them: each tensor's id and shape from the param table. */
function layerTensors(arch: ArchConfig, i: number): { mat(name: string, what: string, kind: ParamKind, layout: Layout): ExpectedTensor; vec(name: string, what: string, kind: ParamKind): ExpectedTensor } {
  const dims = dimsOf(arch);
  const shape = (kind: ParamKind): number[] => shapeOf(layerParam(kind)!, dims);
  const h = layerTensorPrefix(arch.modelType, i);
  return {
    // (in_out: stored [inputs][outputs], the table's [outputs, inputs] the other way round)
    mat: (name, what, kind, layout) => {
      const [out, inp] = shape(kind);
      return mat(h + name, layout === 'in_out' ? [inp, out] : [out, inp], what, paramId(i, kind), layout);
    },
    vec: (name, what, kind) => vec(h + name, shape(kind)[0], what, paramId(i, kind)),
  };
}

function gpt2Start(arch: ArchConfig): ExpectedTensor[] {
  const { C, V } = arch;
  return [
    mat('wte.weight', [V, C], '[vocab_size, n_embd]', PARAM.embed, 'out_in'),
    mat('wpe.weight', [arch.maxPositions, C], '[n_positions, n_embd]', PARAM.pos, 'out_in'),
  ];
}

function gpt2Layer(arch: ArchConfig, i: number): ExpectedTensor[] {
  const { C } = arch;
  const h = layerTensorPrefix(arch.modelType, i);
  const { mat, vec } = layerTensors(arch, i);
  return [
    vec('ln_1.weight', '[n_embd]', PARAM.ln1Gamma),
    vec('ln_1.bias', '[n_embd]', PARAM.ln1Beta),
    { name: `${h}attn.c_attn.weight`, shape: [C, 3 * C], what: '[n_embd, 3·n_embd]', role: { kind: 'qkv', layer: i } },
    { name: `${h}attn.c_attn.bias`, shape: [3 * C], what: '[3·n_embd]', role: { kind: 'qkvBias', layer: i } },
    mat('attn.c_proj.weight', '[n_embd, n_embd]', PARAM.Wo, 'in_out'),
    vec('attn.c_proj.bias', '[n_embd]', PARAM.bo),
    vec('ln_2.weight', '[n_embd]', PARAM.ln2Gamma),
    vec('ln_2.bias', '[n_embd]', PARAM.ln2Beta),
    mat('mlp.c_fc.weight', '[n_embd, n_inner]', PARAM.W1, 'in_out'),
    vec('mlp.c_fc.bias', '[n_inner]', PARAM.b1),
    mat('mlp.c_proj.weight', '[n_inner, n_embd]', PARAM.W2, 'in_out'),
    vec('mlp.c_proj.bias', '[n_embd]', PARAM.b2),
  ];
}

function gpt2End(arch: ArchConfig): ExpectedTensor[] {
  return [vec('ln_f.weight', arch.C, '[n_embd]', PARAM.lnFGamma), vec('ln_f.bias', arch.C, '[n_embd]', PARAM.lnFBeta)];
}

function llamaStart(arch: ArchConfig): ExpectedTensor[] {
  return [mat('embed_tokens.weight', [arch.V, arch.C], '[vocab_size, hidden_size]', PARAM.embed, 'out_in')];
}

function llamaLayer(arch: ArchConfig, i: number): ExpectedTensor[] {
  const { mat, vec } = layerTensors(arch, i);
  const t: ExpectedTensor[] = [
    vec('input_layernorm.weight', '[hidden_size]', PARAM.ln1Gamma),
    mat('self_attn.q_proj.weight', '[heads·head_dim, hidden_size]', PARAM.Wq, 'out_in'),
    mat('self_attn.k_proj.weight', '[kv_heads·head_dim, hidden_size]', PARAM.Wk, 'out_in'),
    mat('self_attn.v_proj.weight', '[kv_heads·head_dim, hidden_size]', PARAM.Wv, 'out_in'),
  ];
  if (arch.qkvBias) {
    t.push(
      vec('self_attn.q_proj.bias', '[heads·head_dim]', PARAM.bq),
      vec('self_attn.k_proj.bias', '[kv_heads·head_dim]', PARAM.bk),
      vec('self_attn.v_proj.bias', '[kv_heads·head_dim]', PARAM.bv),
    );
  }
  t.push(mat('self_attn.o_proj.weight', '[hidden_size, heads·head_dim]', PARAM.Wo, 'out_in'));
  if (arch.oBias) t.push(vec('self_attn.o_proj.bias', '[hidden_size]', PARAM.bo));
  t.push(
    vec('post_attention_layernorm.weight', '[hidden_size]', PARAM.ln2Gamma),
    mat('mlp.gate_proj.weight', '[intermediate_size, hidden_size]', PARAM.Wg, 'out_in'),
    mat('mlp.up_proj.weight', '[intermediate_size, hidden_size]', PARAM.W1, 'out_in'),
    mat('mlp.down_proj.weight', '[hidden_size, intermediate_size]', PARAM.W2, 'out_in'),
  );
  if (arch.mlpBias) {
    t.push(
      vec('mlp.gate_proj.bias', '[intermediate_size]', PARAM.bg),
      vec('mlp.up_proj.bias', '[intermediate_size]', PARAM.b1),
      vec('mlp.down_proj.bias', '[hidden_size]', PARAM.b2),
    );
  }
  return t;
}

function llamaEnd(arch: ArchConfig): ExpectedTensor[] {
  return [vec('norm.weight', arch.C, '[hidden_size]', PARAM.lnFGamma)];
}

/** The stored name of a tensor: with the model's prefix, else without; null when neither is there. */
export function storedName(stored: { has(name: string): boolean }, name: string, prefix: string): string | null {
  if (stored.has(prefix + name)) return prefix + name;
  return stored.has(name) ? name : null;
}

/**
 * The core's params a tensor's numbers become (the data is used as it is, not copied, but for
 * c_attn's split). `alloc`: where the matrices cut out of a fused one go (as readTensor's). A
 * fused c_attn may come already cut, as [Q, K, V] (readSplitColumns).
 */
export function paramsOf(t: ExpectedTensor, data: Float32Array | readonly Float32Array[], alloc?: (length: number) => Float32Array): Array<[string, Param]> {
  if (Array.isArray(data) && t.role.kind !== 'qkv') throw new TypeError(`paramsOf: ${t.name} comes whole, not cut`);
  const whole = data as Float32Array;
  const r = t.role;
  switch (r.kind) {
    case 'matrix': return [[r.id, { data: whole, shape: t.shape, layout: r.layout }]];
    case 'vector': return [[r.id, { data: whole, shape: t.shape }]];
    case 'qkv': {
      const C = t.shape[0];
      const [q, k, v] = Array.isArray(data) ? data : splitColumns(whole, C, 3 * C, 3, alloc);
      const id = (kind: ParamKind): string => paramId(r.layer, kind);
      return [[id(PARAM.Wq), { data: q, shape: [C, C], layout: 'in_out' }], [id(PARAM.Wk), { data: k, shape: [C, C], layout: 'in_out' }], [id(PARAM.Wv), { data: v, shape: [C, C], layout: 'in_out' }]];
    }
    case 'qkvBias': {
      const C = t.shape[0] / 3;
      return ([PARAM.bq, PARAM.bk, PARAM.bv] as const).map((b, i) => [paramId(r.layer, b), { data: whole.slice(i * C, (i + 1) * C), shape: [C] }]);
    }
  }
}

/** A [rows][cols] matrix cut into `parts` matrices of cols/parts columns each, side by side. */
export function splitColumns(m: Float32Array, rows: number, cols: number, parts: number, alloc: (n: number) => Float32Array = (n) => new Float32Array(n)): Float32Array[] {
  const out = Array.from({ length: parts }, () => alloc(rows * (cols / parts)));
  cutRowsInto(m.subarray(0, rows * cols), 0, cols, out);
  return out;
}

/**
 * Whole rows of a [rows][cols] matrix, from row `firstRow` on, written into the matrices it is cut
 * into: `out[k]` takes columns k·w … (k+1)·w − 1 (w = cols / out.length). splitColumns cuts a whole
 * matrix this way; readSplitColumns cuts one as its rows are read.
 */
export function cutRowsInto(rows: Float32Array, firstRow: number, cols: number, out: readonly Float32Array[]): void {
  const w = cols / out.length;
  for (let r = 0; r * cols < rows.length; r++) {
    for (let k = 0; k < out.length; k++) out[k].set(rows.subarray(r * cols + k * w, r * cols + (k + 1) * w), (firstRow + r) * w);
  }
}
