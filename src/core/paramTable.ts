// Every parameter of a layer, named once (as llm.c's ParameterTensors): its kind (src/core/ids.ts),
// the sublayer and key the model file writes it under, its role and its shape in the dimension key.
// The model-file reader, the checkpoint's tensor names, the plan, the generator and the `weights`
// overrides read it; a new parameter is one row here.
//
// Dimension key (spec.ts): C d_model, F d_ff, Q = NH·HS (query width), KV = KVH·HS, HS head size,
// NH heads. A matrix's shape is [outputs, inputs] (out_in, how the core reads every matrix).

import { PARAM, type ParamKind } from './ids';

export type ParamDim = 'C' | 'F' | 'Q' | 'KV' | 'HS' | 'NH';

/** Where a parameter sits: the sublayer object of the model file (`attention`, `ffn`, `ln1`, …). */
export type Sublayer = 'attention' | 'ffn' | 'ln1' | 'ln2' | 'ln1_post' | 'ln2_post';

export type ParamRole =
  | 'matrix'   // multiplied: y = x·Wᵀ
  | 'bias'     // added after a matrix
  | 'gain'     // a norm's γ
  | 'shift'    // a LayerNorm's β
  | 'units';   // a scale per neuron or head (ablate, scale): not in any file

export interface ParamRow {
  readonly kind: ParamKind;
  readonly sub: Sublayer;
  /** Its key inside the sublayer's object in a model file (`W1`, `gamma`); null when no file holds it. */
  readonly key: string | null;
  readonly role: ParamRole;
  /** [outputs, inputs] of a matrix, [n] of a vector. */
  readonly shape: readonly ParamDim[];
  /** The matrix a bias is added after. */
  readonly of?: ParamKind;
  /** In a few words, for hovers and messages. */
  readonly title: string;
}

const m = (kind: ParamKind, sub: Sublayer, key: string, out: ParamDim, inp: ParamDim, title: string): ParamRow =>
  ({ kind, sub, key, role: 'matrix', shape: [out, inp], title });
const b = (kind: ParamKind, of: ParamKind, sub: Sublayer, key: string, n: ParamDim, title: string): ParamRow =>
  ({ kind, sub, key, role: 'bias', shape: [n], of, title });
const norm = (gamma: ParamKind, beta: ParamKind | null, sub: Sublayer, title: string): ParamRow[] => [
  { kind: gamma, sub, key: 'gamma', role: 'gain', shape: ['C'], title: `${title} gain` },
  ...(beta ? [{ kind: beta, sub, key: 'beta', role: 'shift' as const, shape: ['C'] as const, title: `${title} shift` }] : []),
];

/** A layer's parameters, in the order a layer computes with them. */
export const LAYER_PARAMS: readonly ParamRow[] = [
  ...norm(PARAM.ln1Gamma, PARAM.ln1Beta, 'ln1', 'attention norm'),
  m(PARAM.Wq, 'attention', 'Wq', 'Q', 'C', 'query projection'),
  b(PARAM.bq, PARAM.Wq, 'attention', 'bq', 'Q', 'query bias'),
  m(PARAM.Wk, 'attention', 'Wk', 'KV', 'C', 'key projection'),
  b(PARAM.bk, PARAM.Wk, 'attention', 'bk', 'KV', 'key bias'),
  m(PARAM.Wv, 'attention', 'Wv', 'KV', 'C', 'value projection'),
  b(PARAM.bv, PARAM.Wv, 'attention', 'bv', 'KV', 'value bias'),
  { kind: PARAM.qNorm, sub: 'attention', key: null, role: 'gain', shape: ['HS'], title: 'query norm gain' },
  { kind: PARAM.kNorm, sub: 'attention', key: null, role: 'gain', shape: ['HS'], title: 'key norm gain' },
  { kind: PARAM.headUnits, sub: 'attention', key: null, role: 'units', shape: ['NH'], title: 'head scales' },
  m(PARAM.Wo, 'attention', 'Wo', 'C', 'Q', 'output projection'),
  b(PARAM.bo, PARAM.Wo, 'attention', 'bo', 'C', 'output bias'),
  ...norm(PARAM.ln1PostGamma, null, 'ln1_post', 'post-attention norm'),
  ...norm(PARAM.ln2Gamma, PARAM.ln2Beta, 'ln2', 'FFN norm'),
  m(PARAM.Wg, 'ffn', 'Wg', 'F', 'C', 'gate projection'),
  b(PARAM.bg, PARAM.Wg, 'ffn', 'bg', 'F', 'gate bias'),
  m(PARAM.W1, 'ffn', 'W1', 'F', 'C', 'up-projection'),
  b(PARAM.b1, PARAM.W1, 'ffn', 'b1', 'F', 'up bias'),
  { kind: PARAM.neuronUnits, sub: 'ffn', key: null, role: 'units', shape: ['F'], title: 'neuron scales' },
  m(PARAM.W2, 'ffn', 'W2', 'C', 'F', 'down-projection'),
  b(PARAM.b2, PARAM.W2, 'ffn', 'b2', 'C', 'down bias'),
  ...norm(PARAM.ln2PostGamma, null, 'ln2_post', 'post-FFN norm'),
];

const BY_KIND = new Map<string, ParamRow>(LAYER_PARAMS.map((r) => [r.kind, r]));

/** The row of a layer param kind (`ffn.W1`), or undefined. */
export function layerParam(kind: string): ParamRow | undefined {
  return BY_KIND.get(kind);
}

/** The rows of one sublayer, in order. */
export function sublayerParams(sub: Sublayer): ParamRow[] {
  return LAYER_PARAMS.filter((r) => r.sub === sub);
}

/** Whether a layer param kind is a matrix the forward multiplies. */
export function isMatrixKind(kind: string): boolean {
  return BY_KIND.get(kind)?.role === 'matrix';
}

/** A row's shape in numbers, for one layer's sizes. */
export function shapeOf(row: ParamRow, dims: Readonly<Record<ParamDim, number>>): number[] {
  return row.shape.map((d) => dims[d]);
}

/** The row a model file writes as `key` of a layer's sublayer `sub` (`ffn` and `W1`, `ln1` and `gamma`), or undefined. */
export function layerParamAt(sub: Sublayer, key: string): ParamRow | undefined {
  return LAYER_PARAMS.find((r) => r.sub === sub && r.key === key);
}
