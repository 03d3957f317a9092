// The parts of a model file: a layer (attention, FFN and their norms), a LayerNorm, the head. Each
// tensor is checked against the shape it must have and recorded under its param id, which comes
// from the parameter table (toModel.ts's layerParamId), never spelled here.

import { isGated, type Activation } from '../core/activation';
import { paramId, PARAM } from '../core/ids';
import { DEFAULT_EPS, type Norm } from '../core/spec';
import { ATTENTION_FIELDS, FFN_FIELDS, HEAD_FIELDS, LAYERNORM_FIELDS } from './format';
import type { JsonNode, PropertyNode } from './jsonc';
import { formatPath, type PathSegment } from './problems';
import { describe } from './readerBase';
import type { Dim, Mat, NumberReader } from './readNumbers';
import {
  DEFAULT_LAYERNORM, layerParamId, normIds, type AttentionWeights, type FfnWeights, type HeadWeights, type LayerNormWeights, type LayerWeights,
} from './toModel';

/** What the reader counts of each part, for the panel's summary. */
export interface Counts { attention: number; ffn: number; norm: number; head: number }
/** The input's rows and columns (null when the input could not be read: nothing is checked against it). */
export type Dims = { readonly T: number; readonly C: number } | null;

/** Layer `layer`, from its properties `f` (a layer object's, or the top level's in the single-layer shorthand). */
export function readLayer(r: NumberReader, f: Map<string, PropertyNode>, path: readonly PathSegment[], layer: number, dims: Dims, norm: Norm, counts: Counts): LayerWeights | null {
  let ok = true;
  let attention: AttentionWeights | null = null;
  let ffn: FfnWeights | null = null;
  const a = f.get('attention');
  if (a?.value) {
    attention = readAttention(r, a.value, [...path, 'attention'], layer, dims, counts);
    ok &&= attention !== null;
  }
  const ff = f.get('ffn');
  if (ff?.value) {
    ffn = readFfn(r, ff.value, [...path, 'ffn'], layer, dims, counts);
    ok &&= ffn !== null;
  }
  const ln = (key: 'ln1' | 'ln2', sub: 'attention' | 'ffn'): LayerNormWeights => {
    const p = f.get(key);
    if (!p?.value) return DEFAULT_LAYERNORM;
    const used = norm !== 'none' && f.has(sub);
    const w = readLayerNorm(r, p.value, [...path, key], normIds(layer, key), dims, counts, used);
    if (norm === 'none') r.warn('unused', [...path, key], { start: p.keyStart, end: p.keyEnd }, `${key} is not applied because norm is "none": set "norm": "pre" or "post" at the top level to use it`);
    else if (!f.has(sub)) r.warn('unused', [...path, key], { start: p.keyStart, end: p.keyEnd }, `${key} normalizes the ${sub} sublayer, which this layer does not have`);
    if (!w) ok = false;
    return w ?? DEFAULT_LAYERNORM;
  };
  const ln1 = ln('ln1', 'attention');
  const ln2 = ln('ln2', 'ffn');
  return ok ? { attention, ffn, ln1, ln2 } : null;
}

/** A LayerNorm object, its gain and shift under the param ids `ids`. */
export function readLayerNorm(
  r: NumberReader, node: JsonNode, path: readonly PathSegment[], ids: { readonly gamma: string; readonly beta: string },
  dims: { C: number } | null, counts: { norm: number }, used: boolean,
): LayerNormWeights | null {
  if (node.kind !== 'object') {
    r.error('type', path, node, `${formatPath(path)} must be a LayerNorm object { "gamma": [...], "beta": [...], "eps": 1e-5 }, found ${describe(node)}`);
    return null;
  }
  const f = r.fields(node, path, LAYERNORM_FIELDS);
  const C = dims?.C ?? null;
  const why = `input rows have d_model = ${C}`;
  const gamma = r.sizedVector(f.get('gamma'), [...path, 'gamma'], ids.gamma, C, why);
  const beta = r.sizedVector(f.get('beta'), [...path, 'beta'], ids.beta, C, why);
  const eps = r.number(f.get('eps'), [...path, 'eps'], { above: 0 }, DEFAULT_EPS);
  if (used) counts.norm += (gamma?.length ?? 0) + (beta?.length ?? 0);
  if ((f.get('gamma')?.value && !gamma) || (f.get('beta')?.value && !beta)) return null;
  return { eps, tensors: { gamma, beta } };
}

function readAttention(r: NumberReader, node: JsonNode, path: readonly PathSegment[], layer: number, dims: Dims, counts: { attention: number }): AttentionWeights | null {
  if (node.kind !== 'object') {
    r.error('type', path, node, `${formatPath(path)} must be an object with "heads", "causal" and optional "Wq", "Wk", "Wv", "Wo" and biases, found ${describe(node)}`);
    return null;
  }
  const f = r.fields(node, path, ATTENTION_FIELDS);
  const heads = r.number(f.get('heads'), [...path, 'heads'], { integer: true, min: 1 }, 1);
  const causal = r.bool(f.get('causal'), [...path, 'causal'], false);
  let ok = true;
  const C = dims?.C ?? null;
  if (C !== null && C % heads !== 0) {
    const divisors = Array.from({ length: C }, (_, i) => i + 1).filter((d) => C % d === 0);
    const p = f.get('heads')!;
    r.error('heads', [...path, 'heads'], p.value ?? p, `${formatPath([...path, 'heads'])} = ${heads} does not divide d_model = ${C}: each head takes d_model / heads columns; use one of ${divisors.join(', ')}`);
    ok = false;
  }
  const mat = (key: string): Float32Array | null => {
    const p = f.get(key);
    if (!p?.value) return null;
    const m = r.matrix(p.value, [...path, key], key, layerParamId(layer, 'attention', key));
    if (!m) {
      ok = false;
      return null;
    }
    if (C === null) return null;
    if (m.rows !== C || m.cols !== C) {
      r.error('shape', [...path, key], m.node, `${formatPath([...path, key])} is [${m.rows}, ${m.cols}] but input rows have d_model = ${C}, so ${key} must be [${C}, ${C}]`);
      ok = false;
      return null;
    }
    counts.attention += m.rows * m.cols;
    return m.data;
  };
  const vec = (key: string): Float32Array | null => {
    const p = f.get(key);
    if (!p?.value) return null;
    const v = r.sizedVector(p, [...path, key], layerParamId(layer, 'attention', key), C, `input rows have d_model = ${C}`);
    if (!v) ok = false;
    else counts.attention += v.length;
    return v;
  };
  const tensors = { Wq: mat('Wq'), bq: vec('bq'), Wk: mat('Wk'), bk: vec('bk'), Wv: mat('Wv'), bv: vec('bv'), Wo: mat('Wo'), bo: vec('bo') };
  return ok ? { heads, causal, tensors } : null;
}

/** An FFN sublayer being read: its properties, where it stands, its layer. */
interface FfnPart {
  readonly r: NumberReader;
  readonly f: Map<string, PropertyNode>;
  readonly node: JsonNode;
  readonly path: readonly PathSegment[];
  readonly layer: number;
}

function readFfn(r: NumberReader, node: JsonNode, path: readonly PathSegment[], layer: number, dims: Dims, counts: { ffn: number }): FfnWeights | null {
  if (node.kind !== 'object') {
    r.error('type', path, node, `${formatPath(path)} must be an object with "activation", "W1", "b1", "W2", "b2", found ${describe(node)}`);
    return null;
  }
  const f = r.fields(node, path, FFN_FIELDS);
  const part: FfnPart = { r, f, node, path, layer };
  const activation = r.enumValue(f.get('activation'), [...path, 'activation'], FFN_FIELDS.activation.values!, 'relu') as Activation;
  let ok = true;
  const C = dims?.C ?? null;
  const dIn: Dim = { n: C ?? 0, name: 'd_model', why: `input rows have d_model = ${C}` };
  const W1 = requiredMatrix(part, 'W1');
  if (W1 === undefined) ok = false;
  let F: number | null = null;
  if (W1 && C !== null) {
    F = r.linearShape(W1, [...path, 'W1'], 'W1', dIn, { n: null, name: 'd_ff' });
    if (F === null) ok = false;
  }
  const dff: Dim | null = F === null ? null : { n: F, name: 'd_ff', why: `d_ff = ${F} (from W1)` };
  const b1 = r.sizedVector(f.get('b1'), [...path, 'b1'], layerParamId(layer, 'ffn', 'b1'), F, `d_ff = ${F} (from W1)`);
  if (f.get('b1')?.value && !b1) ok = false;

  const gate = readGate(part, activation, C, dIn, dff, F, counts);
  ok &&= gate.ok;

  const W2 = requiredMatrix(part, 'W2');
  if (W2 === undefined) ok = false;
  if (W2 && C !== null && dff) {
    if (r.linearShape(W2, [...path, 'W2'], 'W2', { n: F!, name: 'd_ff', why: `d_ff = ${F} (from W1)` }, { n: C, name: 'd_model', why: `d_model = ${C}` }) === null) ok = false;
  }
  const b2 = r.sizedVector(f.get('b2'), [...path, 'b2'], layerParamId(layer, 'ffn', 'b2'), C, `input rows have d_model = ${C}`);
  if (f.get('b2')?.value && !b2) ok = false;

  if (!ok || !W1 || !W2 || F === null) return null;
  counts.ffn += W1.rows * W1.cols + W2.rows * W2.cols + (b1?.length ?? 0) + (b2?.length ?? 0);
  return { activation, F, tensors: { W1: W1.data, b1, Wg: gate.Wg, bg: gate.bg, W2: W2.data, b2 } };
}

/** W1 or W2: undefined when it is missing or wrong (reported), null when its key has no value (a syntax slip). */
function requiredMatrix(p: FfnPart, key: 'W1' | 'W2'): Mat | null | undefined {
  const prop = p.f.get(key);
  if (!prop) {
    p.r.error('missing', [...p.path, key], { start: p.node.start, end: p.node.start + 1 }, `${formatPath(p.path)} needs ${key} (${key === 'W1' ? 'the up-projection, d_model → d_ff' : 'the down-projection, d_ff → d_model'})`);
    return undefined;
  }
  if (!prop.value) return null;
  return p.r.matrix(prop.value, [...p.path, key], key, layerParamId(p.layer, 'ffn', key)) ?? undefined;
}

/** The gate of a gated activation (Wg, bg); of any other, a warning that they are not used. */
function readGate(
  p: FfnPart, activation: Activation, C: number | null, dIn: Dim, dff: Dim | null, F: number | null, counts: { ffn: number },
): { ok: boolean; Wg: Float32Array | null; bg: Float32Array | null } {
  const { r, f, path } = p;
  if (!isGated(activation)) {
    for (const key of ['Wg', 'bg']) {
      const q = f.get(key);
      if (q) r.warn('unused', [...path, key], { start: q.keyStart, end: q.keyEnd }, `${key} is only used by the gated activations (swiglu, geglu, reglu); activation is "${activation}"`);
    }
    return { ok: true, Wg: null, bg: null };
  }
  let ok = true;
  let Wg: Float32Array | null = null;
  const wgProp = f.get('Wg');
  if (!wgProp) {
    r.error('missing', [...path, 'Wg'], { start: p.node.start, end: p.node.start + 1 }, `activation "${activation}" is gated: ${formatPath(path)} needs Wg (the gate, same shape as W1), act = ${activation === 'swiglu' ? 'SiLU' : activation === 'geglu' ? 'GELU' : 'ReLU'}(x·Wgᵀ + bg) ⊙ (x·W1ᵀ + b1)`);
    ok = false;
  } else if (wgProp.value) {
    const m = r.matrix(wgProp.value, [...path, 'Wg'], 'Wg', layerParamId(p.layer, 'ffn', 'Wg'));
    if (!m) ok = false;
    else if (C !== null && dff) {
      if (r.linearShape(m, [...path, 'Wg'], 'Wg', dIn, dff) === null) ok = false;
      else {
        Wg = m.data;
        counts.ffn += m.rows * m.cols;
      }
    }
  }
  const bg = r.sizedVector(f.get('bg'), [...path, 'bg'], layerParamId(p.layer, 'ffn', 'bg'), F, `d_ff = ${F} (from W1)`);
  if (f.get('bg')?.value && !bg) ok = false;
  if (bg) counts.ffn += bg.length;
  return { ok, Wg, bg };
}

export function readHead(r: NumberReader, node: JsonNode, path: readonly PathSegment[], dims: { C: number } | null, counts: { head: number }): { head: HeadWeights; vocab: string[] } | null {
  if (node.kind !== 'object') {
    r.error('type', path, node, `${formatPath(path)} must be an object with "W", "b", "vocab", "temperature", found ${describe(node)}`);
    return null;
  }
  const f = r.fields(node, path, HEAD_FIELDS);
  const temperature = r.number(f.get('temperature'), [...path, 'temperature'], { above: 0 }, 1);
  const vocabProp = f.get('vocab');
  const vocab = vocabProp?.value ? r.strings(vocabProp.value, [...path, 'vocab']) : null;
  const wProp = f.get('W');
  if (!wProp) {
    r.error('missing', [...path, 'W'], { start: node.start, end: node.start + 1 }, `${formatPath(path)} needs W (the unembedding, d_model → vocab)`);
    return null;
  }
  if (!wProp.value) return null;
  const W = r.matrix(wProp.value, [...path, 'W'], 'W', paramId(-1, PARAM.headW));
  if (!W || !dims) return null;
  const C = dims.C;
  const out = vocab ? { n: vocab.length, name: 'vocab', why: `head.vocab has ${vocab.length} words` } : { n: null, name: 'vocab' };
  const V = r.linearShape(W, [...path, 'W'], 'W', { n: C, name: 'd_model', why: `input rows have d_model = ${C}` }, out);
  if (V === null) return null;
  const bProp = f.get('b');
  const b = r.sizedVector(bProp, [...path, 'b'], paramId(-1, PARAM.headB), V, `the vocabulary has ${V} entries (rows of W)`);
  if (bProp?.value && !b) return null;
  if (vocabProp?.value && !vocab) return null;
  counts.head += W.rows * W.cols + (b?.length ?? 0);
  return {
    head: { V, W: W.data, b, temperature },
    vocab: vocab ?? Array.from({ length: V }, (_, i) => `v${i}`),
  };
}
