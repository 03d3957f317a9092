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
import type { SaeSpec } from './saeSpec';
import type { SteerSpec } from './steerSpec';

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
  /** Rotary positions on Q and K (rotate-half, as Hugging Face's Llama), or none. Per layer: gemma3's sliding layers have their own base. */
  readonly rope: RopeSpec | null;
  /** The scores' scale; absent: 1/√HS (gemma: query_pre_attn_scalar^-½). */
  readonly scale?: number;
  /** Soft-cap of the scores, tanh(s / c) · c, after the scale and before the mask (gemma2's attn_logit_softcapping); absent or null: none. */
  readonly softcap?: number | null;
  /** Sliding window: key j is seen by query i iff i − window < j ≤ i (mistral, gemma's sliding layers); absent or null: every earlier key. */
  readonly window?: number | null;
  /**
   * RMSNorm of each head's HS numbers of Q and K before RoPE (q_norm/k_norm: qwen3 plain, gemma3
   * (1+w)), gains `attn.q_norm.gamma` / `attn.k_norm.gamma` (HS); absent or null: none.
   */
  readonly qkNorm?: { readonly eps: number; readonly onePlus: boolean } | null;
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
  /**
   * Partial rotary (gpt_neox rotary_pct, phi3 partial_rotary_factor): only the first rotaryDims
   * of each head are rotated, with frequencies over rotaryDims (θ^(-2i/rotaryDims)); the rest pass
   * through. Even, at most HS; absent: HS (the whole head).
   */
  readonly rotaryDims?: number;
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
  /**
   * Parallel residual (gpt_neox use_parallel_residual): out = x + attn(ln1(x)) + ffn(ln2(x)), added
   * as transformers adds them, (ffn + attn) + x; no `attn.residual` stage. Absent or false: sequential.
   */
  readonly parallelResidual?: boolean;
  /** Gemma's norms after each sublayer (`ln1_post` on attn.out, `ln2_post` on ffn.down) before its residual add; absent or false: none. */
  readonly postNorms?: boolean;
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
  /** The unembedding; `softcap`: head.logits = tanh(l / c) · c (gemma2's final_logit_softcapping), absent or null: none. */
  readonly head: { readonly V: number; readonly temperature: number; readonly softcap?: number | null } | null;
  /** Also the logit lens: the head applied to the final norm of every layer's output. */
  readonly lens: boolean;
  /** Every RMSNorm as x̂ · (1 + w) (gemma; its stored gains are w), else w · x̂; absent: false. */
  readonly normOnePlus?: boolean;
  /** `input` = the embedding × this (gemma: float32(√C), embedScale.ts); absent: 1. */
  readonly embedScale?: number;
  /** Sparse autoencoders attached to stages (saeSpec.ts, planSae.ts); absent: none. */
  readonly saes?: readonly SaeSpec[];
  /** Steered stages (steer.ts, planSteer.ts); absent: none. */
  readonly steers?: readonly SteerSpec[];
}

export const DEFAULT_EPS = 1e-5;

export function epsOf(spec: ModelSpec, norm: string): number {
  return spec.eps.get(norm) ?? DEFAULT_EPS;
}
