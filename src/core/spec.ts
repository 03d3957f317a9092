// What a model computes, before any number: its dimensions and settings. The block graph
// (graph.ts) lists every stage from these; the numbers come separately (params.ts). A spec is
// read from a model file (src/model/read.ts) or from a checkpoint's config.json.
//
// Dimension key used in every comment of src/core/:
//   T   = seq (tokens)        C   = d_model (hidden size)   F  = d_ff (intermediate size)
//   NH  = attention heads     KVH = key/value heads (grouped-query attention; NH without it)
//   HS  = head size           V   = vocab                   L  = layers
//   OC  = output channels of a linear layer

import type { Activation } from './activationKinds';

export type Norm = 'none' | 'pre' | 'post';
export type NormKind = 'layernorm' | 'rmsnorm';
export type Layout = 'out_in' | 'in_out';

/** How the first stage is made: vectors given as they are, or token ids looked up in an embedding table. */
export type Embedding =
  | { readonly kind: 'vectors'; readonly positional: 'none' | 'sinusoidal' }
  | { readonly kind: 'tokens'; readonly ids: readonly number[]; readonly positional: 'none' | 'learned' };

export interface AttentionSpec {
  readonly NH: number;
  readonly KVH: number;
  readonly HS: number;
  readonly causal: boolean;
  /** Rotary positions on Q and K (rotate-half, as Hugging Face's Llama), or none. */
  readonly rope: RopeSpec | null;
}

/**
 * RoPE's frequencies θ^(-2i/HS), rescaled for long contexts where the checkpoint says so (Hugging
 * Face's `rope_scaling`): "linear" divides each by `factor`; "llama3" (Llama 3.1–3.3) divides the
 * low ones (wavelength over originalMaxPositions / lowFreqFactor) by `factor`, keeps the high ones
 * (under originalMaxPositions / highFreqFactor) and blends those between.
 */
export interface RopeSpec {
  readonly theta: number;
  readonly scaling?: RopeScaling | null;
}

export type RopeScaling =
  | { readonly type: 'linear'; readonly factor: number }
  | { readonly type: 'llama3'; readonly factor: number; readonly lowFreqFactor: number; readonly highFreqFactor: number; readonly originalMaxPositions: number };

export interface FfnSpec {
  readonly F: number;
  readonly activation: Activation;
}

export interface LayerSpec {
  readonly attention: AttentionSpec | null;
  readonly ffn: FfnSpec | null;
}

export interface ModelSpec {
  readonly T: number;
  readonly C: number;
  readonly embedding: Embedding;
  readonly norm: Norm;
  readonly normKind: NormKind;
  /** LayerNorm/RMSNorm epsilon of each norm, by its param prefix (`layers.0.ln1`, `ln_f`); 1e-5 if absent. */
  readonly eps: ReadonlyMap<string, number>;
  readonly residual: boolean;
  readonly layers: readonly LayerSpec[];
  readonly finalNorm: boolean;
  readonly head: { readonly V: number; readonly temperature: number } | null;
  /** Also the logit lens: the head applied to the final norm of every layer's output. */
  readonly lens: boolean;
}

export const DEFAULT_EPS = 1e-5;

export function epsOf(spec: ModelSpec, norm: string): number {
  return spec.eps.get(norm) ?? DEFAULT_EPS;
}
