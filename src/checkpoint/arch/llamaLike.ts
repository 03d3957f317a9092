// The block llama, qwen2, qwen3, mistral, phi3 and gemma share: RMSNorm before each sublayer,
// q/k/v/o projections with RoPE and grouped-query heads, a gated MLP (gate, up, down), a final
// norm; Linear weights stored [out][in] under `model.`. Each adapter reads its own defaults and
// adds its options; these read the fields they share, in the same order and words for all.

import { PARAM } from '../../core/ids';
import { describeValue } from '../../common/quote';
import type { Fields } from './fields';
import { layerTensors, mat, vec, type ExpectedTensor } from './tensors';
import type { ArchAdapter, ArchConfig, ModelType } from './types';

export const LLAMA_STEM = 'layers.';

/** Heads and their size: hidden_size, num_attention_heads, num_key_value_heads, head_dim. */
export function llamaHeads(f: Fields, o: { readonly kvHeads?: number; readonly headDim?: number; readonly partialRotary?: boolean } = {}): { C: number; NH: number; KVH: number; HS: number } {
  const { c, fail, int } = f;
  const C = int('hidden_size');
  const NH = int('num_attention_heads');
  // (a config class's default where the field is absent; null: as many as the query heads)
  const KVH = c.num_key_value_heads === undefined && o.kvHeads !== undefined ? o.kvHeads : int('num_key_value_heads', NH);
  if (NH % KVH) fail(`num_attention_heads ${NH} must be a multiple of num_key_value_heads ${KVH}${c.num_key_value_heads === undefined ? ' (its default)' : ''}`);
  const HS = c.head_dim === undefined && o.headDim !== undefined ? o.headDim : c.head_dim == null ? Math.floor(C / NH) : int('head_dim');
  if (HS === 0) fail(`hidden_size ${C} is smaller than num_attention_heads ${NH}`);
  // (partial rotary checks its own rotated dims)
  if (HS % 2 && !o.partialRotary) fail(`the head size ${HS} is odd; RoPE rotates pairs of dimensions`);
  return { C, NH, KVH, HS };
}

/** hidden_act: the SwiGLU MLP's silu only. */
export function swiglu(f: Fields): 'swiglu' {
  const act = f.c.hidden_act ?? 'silu';
  if (act !== 'silu') f.fail(`hidden_act ${describeValue(act)} is not supported; FFN Lens computes the SwiGLU MLP ("silu")`);
  return 'swiglu';
}

/** The sizes and settings after the heads: intermediate_size … tie_word_embeddings, with the config class's defaults. */
export function llamaRest(f: Fields, o: { readonly maxPositions: number; readonly eps: number; readonly tied: boolean; readonly bos?: number }): Pick<ArchConfig, 'F' | 'L' | 'V' | 'bos' | 'maxPositions' | 'eps' | 'tied'> {
  const { int, num, bool } = f;
  return {
    F: int('intermediate_size'), L: int('num_hidden_layers'), V: int('vocab_size'), bos: f.bos(int('vocab_size'), o.bos),
    maxPositions: int('max_position_embeddings', o.maxPositions), eps: num('rms_norm_eps', o.eps), tied: bool('tie_word_embeddings', o.tied),
  };
}

/** How a llama-like layer is stored beyond llama's own. */
export interface LlamaStorage {
  /** q_norm, k_norm [head_dim] after the projections (qwen3, gemma3_text). */
  readonly qkNorm?: boolean;
  /** gemma: post_attention_layernorm is ln1_post, pre_feedforward_layernorm ln2, post_feedforward_layernorm ln2_post. */
  readonly postNorms?: boolean;
  /** phi3: qkv_proj (q rows, then k, then v) and gate_up_proj (gate rows, then up). */
  readonly fused?: boolean;
}

export function llamaLayer(arch: ArchConfig, i: number, s: LlamaStorage = {}): ExpectedTensor[] {
  const { mat, vec, fused } = layerTensors(arch, LLAMA_STEM, i);
  const t: ExpectedTensor[] = [vec('input_layernorm.weight', '[hidden_size]', PARAM.ln1Gamma)];
  if (s.fused) {
    t.push(fused('self_attn.qkv_proj.weight', [(arch.NH + 2 * arch.KVH) * arch.HS, arch.C], '[(heads + 2·kv_heads)·head_dim, hidden_size]', 'qkv'));
  } else {
    t.push(
      mat('self_attn.q_proj.weight', '[heads·head_dim, hidden_size]', PARAM.Wq, 'out_in'),
      mat('self_attn.k_proj.weight', '[kv_heads·head_dim, hidden_size]', PARAM.Wk, 'out_in'),
      mat('self_attn.v_proj.weight', '[kv_heads·head_dim, hidden_size]', PARAM.Wv, 'out_in'),
    );
  }
  if (arch.qkvBias) {
    t.push(
      vec('self_attn.q_proj.bias', '[heads·head_dim]', PARAM.bq),
      vec('self_attn.k_proj.bias', '[kv_heads·head_dim]', PARAM.bk),
      vec('self_attn.v_proj.bias', '[kv_heads·head_dim]', PARAM.bv),
    );
  }
  if (s.qkNorm) t.push(vec('self_attn.q_norm.weight', '[head_dim]', PARAM.qNorm), vec('self_attn.k_norm.weight', '[head_dim]', PARAM.kNorm));
  t.push(mat('self_attn.o_proj.weight', '[hidden_size, heads·head_dim]', PARAM.Wo, 'out_in'));
  if (arch.oBias) t.push(vec('self_attn.o_proj.bias', '[hidden_size]', PARAM.bo));
  if (s.postNorms) {
    t.push(
      vec('post_attention_layernorm.weight', '[hidden_size]', PARAM.ln1PostGamma),
      vec('pre_feedforward_layernorm.weight', '[hidden_size]', PARAM.ln2Gamma),
    );
  } else t.push(vec('post_attention_layernorm.weight', '[hidden_size]', PARAM.ln2Gamma));
  if (s.fused) t.push(fused('mlp.gate_up_proj.weight', [2 * arch.F, arch.C], '[2·intermediate_size, hidden_size]', 'gate_up'));
  else {
    t.push(
      mat('mlp.gate_proj.weight', '[intermediate_size, hidden_size]', PARAM.Wg, 'out_in'),
      mat('mlp.up_proj.weight', '[intermediate_size, hidden_size]', PARAM.W1, 'out_in'),
    );
  }
  t.push(mat('mlp.down_proj.weight', '[hidden_size, intermediate_size]', PARAM.W2, 'out_in'));
  if (arch.mlpBias) {
    t.push(
      vec('mlp.gate_proj.bias', '[intermediate_size]', PARAM.bg),
      vec('mlp.up_proj.bias', '[intermediate_size]', PARAM.b1),
      vec('mlp.down_proj.bias', '[hidden_size]', PARAM.b2),
    );
  }
  if (s.postNorms) t.push(vec('post_feedforward_layernorm.weight', '[hidden_size]', PARAM.ln2PostGamma));
  return t;
}

/** An adapter of the llama-like block: its config reader and its storage. */
export function llamaAdapter(modelType: ModelType, config: ArchAdapter['config'], storage: LlamaStorage = {}): ArchAdapter {
  return {
    modelType,
    prefix: 'model.',
    layerStem: LLAMA_STEM,
    embedding: 'embed_tokens.weight',
    head: { name: 'lm_head.weight', what: '[vocab_size, hidden_size]' },
    sizeKeys: { L: 'num_hidden_layers', C: 'hidden_size', V: 'vocab_size' },
    config,
    start: (arch) => [mat('embed_tokens.weight', [arch.V, arch.C], '[vocab_size, hidden_size]', PARAM.embed, 'out_in')],
    layer: (arch, i) => llamaLayer(arch, i, storage),
    end: (arch) => [vec('norm.weight', arch.C, '[hidden_size]', PARAM.lnFGamma)],
  };
}

/** `key` as a sliding window: a positive whole number, or null for none (absent: dflt). */
export function windowOf(f: Fields, key: string, dflt: number | null): number | null {
  const v = f.c[key] === undefined ? dflt : f.c[key];
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) f.fail(`"${key}" must be a positive whole number or null${f.found(key)}`);
  return v as number;
}

/** A sliding window on every layer, or none. */
export function everyLayer(L: number, window: number | null): Array<number | null> | undefined {
  return window === null ? undefined : Array.from({ length: L }, () => window);
}
