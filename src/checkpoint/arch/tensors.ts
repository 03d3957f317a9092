// What a tensor of a checkpoint becomes, and the builders adapters list their tensors with: each
// layer param's id from paramId/PARAM and its shape from the param table (src/core/paramTable.ts).

import { PARAM, paramId, type ParamKind } from '../../core/ids';
import { layerParam, shapeOf, type ParamDim } from '../../core/paramTable';
import type { Layout } from '../../core/spec';
import type { ArchConfig } from './types';

/** Fused storage cut at load into v1's role params (src/core/fused.ts's names). */
export type FusedKind = 'qkv_per_head' | 'qkv' | 'gate_up';

/** What a tensor becomes. */
export type TensorRole =
  | { readonly kind: 'matrix'; readonly id: string; readonly layout: Layout }
  | { readonly kind: 'vector'; readonly id: string }
  /** GPT-2's c_attn weight [C][3C]: Wq, Wk, Wv of the layer, each [C, C] in_out. */
  | { readonly kind: 'qkv'; readonly layer: number }
  /** GPT-2's c_attn bias [3C]: bq, bk, bv. */
  | { readonly kind: 'qkvBias'; readonly layer: number }
  /**
   * Rows of several roles in one out_in tensor (gpt_neox query_key_value, phi3 qkv_proj and
   * gate_up_proj), or their biases (`bias`): cut by rows into Wq/Wk/Wv (bq/bk/bv) or Wg/W1.
   */
  | { readonly kind: 'fused'; readonly layer: number; readonly fused: FusedKind; readonly bias: boolean };

export interface ExpectedTensor {
  /** Hugging Face's name without the model's prefix. */
  readonly name: string;
  readonly shape: readonly number[];
  /** The shape in config.json's words, for messages: `[kv_heads·head_dim, hidden_size]`. */
  readonly what: string;
  readonly role: TensorRole;
}

export const mat = (name: string, shape: [number, number], what: string, id: string, layout: Layout): ExpectedTensor => ({ name, shape, what, role: { kind: 'matrix', id, layout } });
export const vec = (name: string, n: number, what: string, id: string): ExpectedTensor => ({ name, shape: [n], what, role: { kind: 'vector', id } });

/** The sizes of the param table's dimension key (src/core/paramTable.ts) for a checkpoint's layers. */
export function dimsOf(arch: ArchConfig): Record<ParamDim, number> {
  return { C: arch.C, F: arch.F, Q: arch.NH * arch.HS, KV: arch.KVH * arch.HS, HS: arch.HS, NH: arch.NH };
}

/** A layer's tensor names start so (without the model's prefix): `h.3.`, `layers.3.`. */
export function layerPrefix(stem: string, layer: number): string {
  return `${stem}${layer}.`;
}

export interface LayerBuilder {
  /** A layer param stored as a matrix (in_out: stored [inputs][outputs], the table's [outputs, inputs] the other way round). */
  mat(name: string, what: string, kind: ParamKind, layout: Layout): ExpectedTensor;
  vec(name: string, what: string, kind: ParamKind): ExpectedTensor;
  /** A fused tensor of this layer: its stored shape, and what it is cut into. */
  fused(name: string, shape: number[], what: string, fused: FusedKind, bias?: boolean): ExpectedTensor;
}

/** Layer `i`'s params as one architecture stores them under `stem` (`h.`, `layers.`): each tensor's id and shape from the param table. */
export function layerTensors(arch: ArchConfig, stem: string, i: number): LayerBuilder {
  const dims = dimsOf(arch);
  const shape = (kind: ParamKind): number[] => shapeOf(layerParam(kind)!, dims);
  const h = layerPrefix(stem, i);
  return {
    mat: (name, what, kind, layout) => {
      const [out, inp] = shape(kind);
      return mat(h + name, layout === 'in_out' ? [inp, out] : [out, inp], what, paramId(i, kind), layout);
    },
    vec: (name, what, kind) => vec(h + name, shape(kind)[0], what, paramId(i, kind)),
    fused: (name, s, what, fused, bias = false) => ({ name: h + name, shape: s, what, role: { kind: 'fused', layer: i, fused, bias } }),
  };
}

/** The untied head: [V][C] as a Linear. */
export function headOf(arch: ArchConfig, name: string, what: string): ExpectedTensor {
  return { name, shape: [arch.V, arch.C], what, role: { kind: 'matrix', id: PARAM.headW, layout: 'out_in' } };
}

/** The role kinds a fused tensor's parts become, in storage order. */
export function fusedKinds(fused: FusedKind, bias: boolean): ParamKind[] {
  if (fused === 'gate_up') return bias ? [PARAM.bg, PARAM.b1] : [PARAM.Wg, PARAM.W1];
  return bias ? [PARAM.bq, PARAM.bk, PARAM.bv] : [PARAM.Wq, PARAM.Wk, PARAM.Wv];
}

/** Rows of each part of a fused tensor: q NH·HS, k and v KVH·HS, gate and up F. */
export function fusedPartRows(fused: FusedKind, d: { readonly NH: number; readonly KVH: number; readonly HS: number; readonly F: number }): number[] {
  return fused === 'gate_up' ? [d.F, d.F] : [d.NH * d.HS, d.KVH * d.HS, d.KVH * d.HS];
}

/**
 * The stored row of row j of part p (in storage order) of a fused tensor, as src/core/fused.ts's
 * fusedRow: gpt_neox's per head ((j / HS)·3·HS + p·HS + j % HS), else the parts' blocks one after
 * another. (A copy of the core's rule for the loader, until the two branches meet.)
 */
export function fusedStoredRow(fused: FusedKind, p: number, j: number, d: { readonly NH: number; readonly KVH: number; readonly HS: number; readonly F: number }): number {
  if (fused === 'qkv_per_head') return Math.floor(j / d.HS) * 3 * d.HS + p * d.HS + (j % d.HS);
  return fusedPartRows(fused, d).slice(0, p).reduce((a, b) => a + b, 0) + j;
}

/** A fused [stored rows][cols] tensor cut into its parts' out_in matrices [rows][cols], in storage order, each in `alloc(n)`. */
export function splitFusedRows(fused: FusedKind, data: Float32Array, cols: number, d: { readonly NH: number; readonly KVH: number; readonly HS: number; readonly F: number }, alloc: (n: number) => Float32Array = (n) => new Float32Array(n)): Float32Array[] {
  const rows = fusedPartRows(fused, d);
  // (runs of consecutive stored rows: a head's HS rows at a time, or a whole block)
  return rows.map((n, p) => {
    const m = alloc(n * cols);
    const run = fused === 'qkv_per_head' ? d.HS : n;
    for (let j = 0; j < n; j += run) {
      const s = fusedStoredRow(fused, p, j, d);
      m.set(data.subarray(s * cols, (s + run) * cols), j * cols);
    }
    return m;
  });
}
