// What a tensor of a checkpoint becomes, and the builders adapters list their tensors with: each
// layer param's id from paramId/PARAM and its shape from the param table (src/core/paramTable.ts).

import { PARAM, paramId, type ParamKind } from '../../core/ids';
import { layerParam, shapeOf, type ParamDim } from '../../core/paramTable';
import type { Layout } from '../../core/spec';
import type { ArchConfig, ExpectedTensor, FusedKind } from './types';

export type { ExpectedTensor, FusedKind, TensorRole } from './types';

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
