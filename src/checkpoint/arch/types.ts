// What an architecture adapter gives (one file per model_type in this folder, listed in index.ts):
// config.json read into the block description (ArchConfig: the dimensions plus the options of the
// block), and the tensor names it is stored under, each with the param id it becomes.
//
// ArchConfig's block options are absent where the block is v1's (checkpoints-v1: gpt2, llama,
// qwen2), so the three v1 architectures give exactly the description they gave before; the core's
// ModelSpec takes the same options under the same absent-means-v1 rule (see load.ts's archSpec).

import type { Activation } from '../../core/activation';
import type { NormKind, RopeScaling } from '../../core/spec';
import type { ExpectedTensor } from './tensors';
import type { Fields } from './fields';

/** Every model_type FFN Lens reads, in the order messages list them. */
export const MODEL_TYPES = ['gpt2', 'llama', 'qwen2', 'gpt_neox', 'gemma2', 'gemma3_text', 'qwen3', 'mistral', 'phi3'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

/**
 * The FFN's activation: the core's names, and `geglu_tanh` (gemma's gelu_pytorch_tanh(gate) · up),
 * which issue 29's core adds to Activation (src/core/activation.ts) in the same words.
 */
export type ArchActivation = Activation | 'geglu_tanh';

/** RoPE of one layer, where layers differ from the model's ropeTheta/ropeScaling over whole heads. */
export interface LayerRope {
  /** Its base θ (gemma3: rope_local_base_freq on sliding layers, rope_theta on full ones). */
  readonly theta: number;
  /** Its rescaled frequencies, or null (gemma3: rope_scaling on the full layers only). */
  readonly scaling: RopeScaling | null;
  /** The dims of each head that are rotated, the rest passed through (gpt_neox int(head_size·rotary_pct), phi3 int(head_dim·partial_rotary_factor)); even, ≤ HS. */
  readonly rotaryDims: number;
}

export interface ArchConfig {
  readonly modelType: ModelType;
  /** d_model, d_ff, layers, heads, key/value heads, head size, vocabulary (the core's dimension key). */
  readonly C: number;
  readonly F: number;
  readonly L: number;
  readonly NH: number;
  readonly KVH: number;
  readonly HS: number;
  readonly V: number;
  /** gpt2's learned positions (n_positions); the others' max_position_embeddings. */
  readonly maxPositions: number;
  /** bos_token_id, where it names a word of the vocabulary (the induction test starts with it), else null. */
  readonly bos: number | null;
  /** Of every norm (layer_norm_epsilon, layer_norm_eps, rms_norm_eps), q/k norms included. */
  readonly eps: number;
  /**
   * The FFN's activation as the core names it: gpt2's gelu_new is 'gelu_tanh'; llama's silu MLP
   * is 'swiglu'; gpt_neox's "gelu" is the exact (erf) 'gelu'; gemma's gelu_pytorch_tanh gated is 'geglu_tanh'.
   */
  readonly activation: ArchActivation;
  /** RoPE θ (every architecture but gpt2), else null. Per layer where layers differ: layerRope. */
  readonly ropeTheta: number | null;
  /** RoPE's frequencies rescaled (`rope_scaling` of type linear or llama3), or null. */
  readonly ropeScaling: RopeScaling | null;
  /**
   * `rope_scaling` of type dynamic (NTK): Hugging Face's frequencies are the default ones up to
   * max_position_embeddings tokens and rescaled past them, so the input is held to that length.
   */
  readonly dynamicRope: boolean;
  /** The head is the embedding (tie_word_embeddings). */
  readonly tied: boolean;
  /** Biases on q/k/v (gpt2, qwen2; gpt_neox, llama, qwen3, gemma: attention_bias), on o (gpt2; the same attention_bias), on the MLP (gpt2, gpt_neox; llama's mlp_bias). */
  readonly qkvBias: boolean;
  readonly oBias: boolean;
  readonly mlpBias: boolean;

  // --- block options of architectures-v2; absent: v1's block ---------------------------------

  /** The norms' kind where the model_type does not say it as v1 did (gpt2 LayerNorm, the rest RMSNorm): gpt_neox 'layernorm' (with biases). */
  readonly normKind?: NormKind;
  /** Every RMSNorm as x̂ · (1 + w), the stored gains being w (gemma2, gemma3_text: ln1, ln2, the post-norms, ln_f, q/k norms). */
  readonly normOnePlus?: true;
  /**
   * Gemma's four norms a layer: `ln1` input_layernorm; `ln1_post` post_attention_layernorm, on
   * attn.out before its residual add; `ln2` pre_feedforward_layernorm; `ln2_post`
   * post_feedforward_layernorm, on ffn.down before its residual add.
   */
  readonly postNorms?: true;
  /** gpt_neox use_parallel_residual (default true): out = x + attn(ln1(x)) + mlp(ln2(x)); no attn.residual. */
  readonly parallelResidual?: true;
  /**
   * Per layer (L entries), where a layer's RoPE is not ropeTheta/ropeScaling over the whole head:
   * partial rotary (gpt_neox, phi3 with partial_rotary_factor < 1), gemma3's local base on sliding layers.
   */
  readonly layerRope?: readonly LayerRope[];
  /**
   * Per layer (L entries): the sliding window (key j seen by query i iff i − window < j ≤ i), or
   * null for full causal attention. gemma2: even layers (or layer_types); gemma3_text: layer_types,
   * else sliding_window_pattern; mistral and phi3: every layer when sliding_window is set.
   */
  readonly slidingWindow?: readonly (number | null)[];
  /** The scores' scale, where it is not 1/√HS: gemma's query_pre_attn_scalar^-½. */
  readonly attnScale?: number;
  /** tanh(s / c) · c of the scaled scores before the mask: gemma2's attn_logit_softcapping. */
  readonly attnSoftcap?: number;
  /** tanh(l / c) · c of the logits: gemma2's final_logit_softcapping (the logit lens too). */
  readonly finalSoftcap?: number;
  /** RMSNorm of each head's HS numbers of q and k before RoPE (q_norm, k_norm: params attn.q_norm.gamma, attn.k_norm.gamma): qwen3 'plain', gemma3_text 'one_plus'. */
  readonly qkNorm?: 'plain' | 'one_plus';
  /** `input` = the embedding × this: gemma's √hidden_size, as float32 (transformers' normalizer is a tensor of the model's dtype). */
  readonly embedScale?: number;
  /**
   * How the checkpoint stores q/k/v and gate/up, as src/core/fused.ts names it: 'qkv_per_head'
   * (gpt_neox query_key_value, rows [head][q,k,v][head_dim]), 'qkv' (phi3 qkv_proj: q rows, then k,
   * then v). The loader cuts them into the role params attn.Wq/Wk/Wv (and biases): informational.
   */
  readonly fusedQkv?: 'qkv_per_head' | 'qkv';
  /** phi3's gate_up_proj: gate rows then up rows, cut into ffn.Wg and ffn.W1 at load. Informational. */
  readonly fusedGateUp?: true;
}

/**
 * One architecture: its config.json's fields and its tensor names. Names are without the model's
 * prefix (which the Hub's files have or not), each with the param id it becomes.
 */
export interface ArchAdapter {
  readonly modelType: ModelType;
  /** The prefix of the model's own tensors (`transformer.`, `model.`, `gpt_neox.`). */
  readonly prefix: string;
  /** The name before a layer's number (`h.`, `layers.`), without the prefix. */
  readonly layerStem: string;
  /** The embedding [vocab, hidden] (without the prefix). */
  readonly embedding: string;
  /** The untied head [vocab, hidden] (lm_head.weight; gpt_neox embed_out.weight), and its shape in config.json's words. */
  readonly head: { readonly name: string; readonly what: string };
  /** config.json's keys of the layers, the width and the vocabulary (for bounds.ts's messages). */
  readonly sizeKeys: { readonly L: string; readonly C: string; readonly V: string };
  /** config.json's fields → the block description; `f.fail` for anything the core would compute wrongly. */
  config(f: Fields): ArchConfig;
  /** The tensors before the layers, of layer i, after them (the head apart), in the model's order. */
  start(arch: ArchConfig): ExpectedTensor[];
  layer(arch: ArchConfig, i: number): ExpectedTensor[];
  end(arch: ArchConfig): ExpectedTensor[];
}
