// gpt_neox (Pythia, GPT-NeoX-20B): LayerNorm with bias (layer_norm_eps); query_key_value fused
// per head (rows [head][q,k,v][head_size], cut into Wq/Wk/Wv and bq/bk/bv at load); rotary on the
// first int(head_size · rotary_pct) dims of each head (base rotary_emb_base), the rest passed
// through; use_parallel_residual (default true); hidden_act "gelu" (exact, erf); biases on every
// linear (attention_bias for query_key_value and dense); untied embed_out. Names under
// `gpt_neox.` (embed_out outside it). GPTNeoXConfig's defaults; transformers 5's
// rope_parameters (rope_theta, partial_rotary_factor) read as well.

import { PARAM } from '../../core/ids';
import { describeValue } from '../../common/quote';
import { lookup, ropeOf, rotaryDimsOf } from './fields';
import { GPT2_ACTIVATIONS } from './gpt2';
import { layerTensors, mat, vec, type ExpectedTensor } from './tensors';
import type { ArchAdapter, ArchConfig } from './types';

const STEM = 'layers.';

export const gptNeox: ArchAdapter = {
  modelType: 'gpt_neox',
  prefix: 'gpt_neox.',
  layerStem: STEM,
  embedding: 'embed_in.weight',
  head: { name: 'embed_out.weight', what: '[vocab_size, hidden_size]' },
  sizeKeys: { L: 'num_hidden_layers', C: 'hidden_size', V: 'vocab_size' },

  config(f): ArchConfig {
    const { c, fail, int, num, bool } = f;
    const C = int('hidden_size');
    const NH = int('num_attention_heads');
    if (C % NH) fail(`hidden_size ${C} must be a multiple of num_attention_heads ${NH}`);
    const HS = C / NH;
    const actName = c.hidden_act ?? 'gelu';
    // (ACT2FN's "gelu" is the exact one, as GPT-2's table says)
    const activation = lookup(GPT2_ACTIVATIONS, actName);
    if (!activation) fail(`hidden_act ${describeValue(actName)} is not supported; FFN Lens computes ${Object.keys(GPT2_ACTIVATIONS).join(', ')}`);
    const rope = ropeOf(f, { thetaKeys: ['rotary_emb_base', 'rope_theta'] });
    const rotaryDims = rotaryDimsOf(f, HS, ['rope_parameters.partial_rotary_factor', 'partial_rotary_factor', 'rotary_pct'], 0.25, 'rotary_pct');
    const L = int('num_hidden_layers');
    const V = int('vocab_size');
    const attentionBias = bool('attention_bias', true);
    const parallel = bool('use_parallel_residual', true);
    return {
      modelType: 'gpt_neox', C, F: int('intermediate_size'), L, NH, KVH: NH, HS, V, bos: f.bos(V, 0),
      maxPositions: int('max_position_embeddings', 2048), eps: num('layer_norm_eps', 1e-5), activation: activation!,
      ropeTheta: rope.theta, ropeScaling: rope.scaling, dynamicRope: rope.dynamic,
      tied: bool('tie_word_embeddings', false), qkvBias: attentionBias, oBias: attentionBias, mlpBias: true,
      normKind: 'layernorm', fusedQkv: 'qkv_per_head',
      ...(parallel ? { parallelResidual: true as const } : {}),
      ...(rotaryDims < HS ? { layerRope: Array.from({ length: L }, () => ({ theta: rope.theta, scaling: rope.scaling, rotaryDims })) } : {}),
    };
  },

  start: (arch) => [mat('embed_in.weight', [arch.V, arch.C], '[vocab_size, hidden_size]', PARAM.embed, 'out_in')],

  layer(arch: ArchConfig, i: number): ExpectedTensor[] {
    const { mat, vec, fused } = layerTensors(arch, STEM, i);
    const t: ExpectedTensor[] = [
      vec('input_layernorm.weight', '[hidden_size]', PARAM.ln1Gamma),
      vec('input_layernorm.bias', '[hidden_size]', PARAM.ln1Beta),
      vec('post_attention_layernorm.weight', '[hidden_size]', PARAM.ln2Gamma),
      vec('post_attention_layernorm.bias', '[hidden_size]', PARAM.ln2Beta),
      fused('attention.query_key_value.weight', [3 * arch.C, arch.C], '[3·hidden_size, hidden_size]', 'qkv_per_head'),
    ];
    if (arch.qkvBias) t.push(fused('attention.query_key_value.bias', [3 * arch.C], '[3·hidden_size]', 'qkv_per_head', true));
    t.push(mat('attention.dense.weight', '[hidden_size, hidden_size]', PARAM.Wo, 'out_in'));
    if (arch.oBias) t.push(vec('attention.dense.bias', '[hidden_size]', PARAM.bo));
    t.push(
      mat('mlp.dense_h_to_4h.weight', '[intermediate_size, hidden_size]', PARAM.W1, 'out_in'),
      vec('mlp.dense_h_to_4h.bias', '[intermediate_size]', PARAM.b1),
      mat('mlp.dense_4h_to_h.weight', '[hidden_size, intermediate_size]', PARAM.W2, 'out_in'),
      vec('mlp.dense_4h_to_h.bias', '[hidden_size]', PARAM.b2),
    );
    return t;
  },

  end: (arch) => [vec('final_layer_norm.weight', arch.C, '[hidden_size]', PARAM.lnFGamma), vec('final_layer_norm.bias', arch.C, '[hidden_size]', PARAM.lnFBeta)],
};
