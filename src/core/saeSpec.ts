// What a sparse autoencoder attached to a stage computes, before any number (its weights are
// params: `layers.12.sae.W_enc` …, ids.ts). As SAELens defines it (sae_lens/saes/*.py):
//
//   x̃      = norm_in(x) − b_dec · apply_b_dec_to_input
//   pre    = x̃ · W_enc + b_enc                        W_enc [d_in, d_sae]
//   acts   = relu(pre) | topk(pre, k) then relu | relu(pre) · (pre > threshold)   (jumprelu)
//   recon  = norm_out(acts · W_dec + b_dec)            W_dec [d_sae, d_in]
//   error  = x − recon
//
// norm_in/norm_out: 'none' (both the identity); 'constant_norm_rescale' (x · √d_in / ‖x‖ per token,
// and back); 'expected_average_only_in' (x · s and back, s the factor SAELens folds into the weights
// when it loads such an SAE: fold_activation_norm_scaling_factor).

export type SaeActivation = 'relu' | 'topk' | 'jumprelu';
export const SAE_ACTIVATIONS: readonly SaeActivation[] = ['relu', 'topk', 'jumprelu'];

export type SaeNormalize = 'none' | 'expected_average_only_in' | 'constant_norm_rescale';
export const SAE_NORMALIZE: readonly SaeNormalize[] = ['none', 'expected_average_only_in', 'constant_norm_rescale'];

export interface SaeSpec {
  /** The stage it reads (a stream, attention-output or MLP-output stage of width dIn). */
  readonly site: string;
  readonly dIn: number;
  readonly dSae: number;
  readonly activation: SaeActivation;
  /** topk: the features kept per token. */
  readonly k?: number;
  readonly applyBDecToInput: boolean;
  readonly normalize: SaeNormalize;
  /** expected_average_only_in: x is multiplied by it before encoding (1 when the SAE does not give it). */
  readonly scalingFactor?: number;
  /** Where it came from, for titles (its folder's name). */
  readonly name?: string;
  /** Neuronpedia's id of the SAE (cfg.json's `neuronpedia_id`: `gpt2-small/0-res-jb`), for a link to a feature's page. */
  readonly neuronpedia?: string;
}

/** The factor each token's input is multiplied by before encoding (the recon is divided by it after). */
export function inputScale(sae: SaeSpec, x: Float32Array, t: number): number {
  if (sae.normalize === 'expected_average_only_in') return sae.scalingFactor ?? 1;
  if (sae.normalize !== 'constant_norm_rescale') return 1;
  const D = sae.dIn;
  let s = 0;
  for (let j = 0; j < D; j++) s += x[t * D + j] * x[t * D + j];
  return Math.fround(Math.sqrt(D) / Math.sqrt(s));
}
