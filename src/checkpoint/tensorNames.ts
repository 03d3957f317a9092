// Hugging Face's tensor names → the core's param ids (src/core/params.ts), with the shape each must
// have and the layout it is stored in, by the adapter of each architecture (src/checkpoint/arch/).
// GPT-2's Conv1D weights are [in][out] ('in_out') and its c_attn holds Q, K and V side by side
// (split here into three [C, C] matrices); the others' Linear weights are [out][in] ('out_in'),
// gpt_neox's query_key_value and phi3's qkv_proj / gate_up_proj holding the rows of several roles
// (cut here into them). Names are given without the model's prefix (`transformer.`, `model.`,
// `gpt_neox.`), which the Hub's files have or not.

import { PARAM, paramId, type ParamKind } from '../core/ids';
import type { Param } from '../core/params';
import { adapterOf, type ArchConfig, type ModelType } from './arch';
import { fusedPartRows, fusedParts, fusedRole, splitFused } from '../core/fused';
import { headOf, layerPrefix, type ExpectedTensor } from './arch/tensors';

export type { ExpectedTensor, FusedKind, TensorRole } from './arch/tensors';

/** The untied head's name of v1's architectures (gpt_neox's is embed_out.weight: headTensor). */
export const HEAD_TENSOR = 'lm_head.weight';

export function modelPrefix(type: ModelType): string {
  return adapterOf(type).prefix;
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
  const a = adapterOf(arch.modelType);
  yield* a.start(arch);
  for (let i = 0; i < arch.L; i++) yield* a.layer(arch, i);
  yield* a.end(arch);
}

/** The embedding tensor's name (without the model's prefix): its shape is [vocab_size, hidden_size]. */
export function embeddingTensor(type: ModelType): string {
  return adapterOf(type).embedding;
}

/** The name before a layer's number (`h.` for gpt2, `layers.` for the others), without the model's prefix. */
export function layerStem(type: ModelType): string {
  return adapterOf(type).layerStem;
}

/** A layer's tensor names start so (without the model's prefix): `h.3.`, `layers.3.`. */
export function layerTensorPrefix(type: ModelType, layer: number): string {
  return layerPrefix(layerStem(type), layer);
}

/** The untied head: lm_head.weight (gpt_neox embed_out.weight) [V][C] as a Linear. */
export function headTensor(arch: ArchConfig): ExpectedTensor {
  const { name, what } = adapterOf(arch.modelType).head;
  return headOf(arch, name, what);
}

/** The stored name of a tensor: with the model's prefix, else without; null when neither is there. */
export function storedName(stored: { has(name: string): boolean }, name: string, prefix: string): string | null {
  if (stored.has(prefix + name)) return prefix + name;
  return stored.has(name) ? name : null;
}

/**
 * The core's params a tensor's numbers become (the data is used as it is, not copied, but for
 * the fused ones' cuts). `alloc`: where the matrices cut out of a fused one go (as readTensor's). A
 * fused c_attn may come already cut, as [Q, K, V] (readSplitColumns). `arch`: the heads a fused
 * tensor's rows are cut by (gpt_neox, phi3).
 */
export function paramsOf(t: ExpectedTensor, data: Float32Array | readonly Float32Array[], alloc?: (length: number) => Float32Array, arch?: ArchConfig): Array<[string, Param]> {
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
    case 'fused': {
      if (!arch) throw new TypeError(`paramsOf: ${t.name} is cut by the architecture's heads`);
      // (a bias is a matrix of one column)
      const cols = r.bias ? 1 : t.shape[1];
      const parts = splitFused(r.fused, whole, cols, arch, r.bias ? undefined : alloc);
      return fusedParts(r.fused).map((part) => {
        const rows = fusedPartRows(part, arch);
        const data = parts.get(part)!;
        return [paramId(r.layer, fusedRole(part, r.bias)), r.bias ? { data, shape: [rows] } : { data, shape: [rows, cols], layout: 'out_in' }];
      });
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
