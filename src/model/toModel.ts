// Parameter assembly: what the reader gathered of each part of a model file, handed to the core as
// a Model, each tensor under the core's param id (src/core/ids.ts) and with its shape from the one
// parameter table (src/core/paramTable.ts). A new layer parameter the file can hold is a row there
// and a key in format.ts; nothing here lists them.

import type { Activation } from '../core/activation';
import { normOf, paramId, PARAM } from '../core/ids';
import type { Model } from '../core/model';
import { LAYER_PARAMS, layerParamAt, shapeOf, type ParamDim, type Sublayer } from '../core/paramTable';
import type { Param } from '../core/params';
import { DEFAULT_EPS, type Layout, type ModelSpec, type Norm } from '../core/spec';

export type Positional = 'none' | 'sinusoidal';

/** A sublayer's tensors as read, by the key the file writes each under (`Wq`, `W1`, `gamma`); null: not given. */
export type Tensors = Readonly<Record<string, Float32Array | null>>;

export interface LayerNormWeights { readonly eps: number; readonly tensors: Tensors }
export interface AttentionWeights { readonly heads: number; readonly causal: boolean; readonly tensors: Tensors }
export interface FfnWeights { readonly activation: Activation; readonly F: number; readonly tensors: Tensors }
export interface LayerWeights { readonly attention: AttentionWeights | null; readonly ffn: FfnWeights | null; readonly ln1: LayerNormWeights; readonly ln2: LayerNormWeights }
export interface HeadWeights { readonly V: number; readonly W: Float32Array; readonly b: Float32Array | null; readonly temperature: number }

export const DEFAULT_LAYERNORM: LayerNormWeights = { eps: DEFAULT_EPS, tensors: {} };

/** Everything a model file gave, checked. */
export interface ReadWeights {
  readonly T: number;
  readonly C: number;
  readonly layout: Layout;
  readonly input: Float32Array;
  readonly positional: Positional;
  readonly residual: boolean;
  readonly norm: Norm;
  readonly layers: readonly LayerWeights[];
  readonly finalNorm: boolean;
  readonly lnF: LayerNormWeights;
  readonly head: HeadWeights | null;
}

/** The param id of the tensor a model file writes under `key` of sublayer `sub` of layer `layer`. */
export function layerParamId(layer: number, sub: Sublayer, key: string): string {
  const row = layerParamAt(sub, key);
  if (!row) throw new Error(`the parameter table has no key ${key} in ${sub}`); // (a bug of ours: readModel reports it)
  return paramId(layer, row.kind);
}

/** The ids of a layer norm's gain and shift (`layers.0.ln1.gamma`, `layers.0.ln1.beta`). */
export function normIds(layer: number, sub: 'ln1' | 'ln2'): { gamma: string; beta: string } {
  return { gamma: layerParamId(layer, sub, 'gamma'), beta: layerParamId(layer, sub, 'beta') };
}

/** The final norm's, which is not a layer's. */
export const FINAL_NORM_IDS = { gamma: paramId(-1, PARAM.lnFGamma), beta: paramId(-1, PARAM.lnFBeta) } as const;

/** The spec and params of what was read, under the core's param ids (src/core/params.ts). */
export function toModel(w: ReadWeights): Model {
  const params = new Map<string, Param>();
  const eps = new Map<string, number>();
  const put = (id: string, data: Float32Array | null | undefined, shape: readonly number[] | null): void => {
    if (!data) return;
    // a matrix's shape is [outputs, inputs]; the file's layout says how it is stored
    if (shape) params.set(id, { data, shape: w.layout === 'out_in' ? [shape[0], shape[1]] : [shape[1], shape[0]], layout: w.layout });
    else params.set(id, { data, shape: [data.length] });
  };
  params.set(paramId(-1, PARAM.input), { data: w.input, shape: [w.T, w.C] });
  w.layers.forEach((l, i) => {
    const parts: Partial<Record<Sublayer, { readonly tensors: Tensors; readonly eps?: number } | null>> = { attention: l.attention, ffn: l.ffn, ln1: l.ln1, ln2: l.ln2 };
    const dims = layerDims(w.C, l);
    for (const row of LAYER_PARAMS) {
      const part = parts[row.sub];
      if (!part || row.key === null) continue;
      const id = paramId(i, row.kind);
      put(id, part.tensors[row.key], row.role === 'matrix' ? shapeOf(row, dims) : null);
      if (row.role === 'gain' && part.eps !== undefined) eps.set(normOf(id)!, part.eps);
    }
  });
  put(FINAL_NORM_IDS.gamma, w.lnF.tensors.gamma, null);
  put(FINAL_NORM_IDS.beta, w.lnF.tensors.beta, null);
  eps.set(normOf(FINAL_NORM_IDS.gamma)!, w.lnF.eps);
  if (w.head) {
    put(paramId(-1, PARAM.headW), w.head.W, [w.head.V, w.C]);
    put(paramId(-1, PARAM.headB), w.head.b, null);
  }
  return { spec: specOf(w, eps), params };
}

/** A layer's sizes in the parameter table's dimension key (a file's attention has no grouped heads: KV = Q = C). */
function layerDims(C: number, l: LayerWeights): Readonly<Record<ParamDim, number>> {
  const NH = l.attention?.heads ?? 1;
  return { C, F: l.ffn?.F ?? 0, Q: C, KV: C, HS: C / NH, NH };
}

function specOf(w: ReadWeights, eps: ReadonlyMap<string, number>): ModelSpec {
  return {
    T: w.T, C: w.C, embedding: { kind: 'vectors', positional: w.positional }, norm: w.norm, normKind: 'layernorm', eps,
    residual: w.residual, finalNorm: w.finalNorm, head: w.head && { V: w.head.V, temperature: w.head.temperature }, lens: false,
    layers: w.layers.map((l) => ({
      attention: l.attention && { NH: l.attention.heads, KVH: l.attention.heads, HS: w.C / l.attention.heads, causal: l.attention.causal, rope: null },
      ffn: l.ffn && { F: l.ffn.F, activation: l.ffn.activation },
    })),
  };
}
