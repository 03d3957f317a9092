// gpt2 (checkpoints-v1): learned positions (wpe) added to wte; pre-LN (ln_1, ln_2, eps
// layer_norm_epsilon); attention c_attn (Conv1D: weight stored [in][out], Q, K, V side by side,
// split at load), c_proj; MLP c_fc → gelu_new → c_proj; ln_f; head tied to wte. Names under
// `transformer.` or none, as the Hub's files differ.

import { PARAM } from '../../core/ids';
import type { Activation } from '../../core/activation';
import { describeValue as describe } from '../../common/quote';
import { lookup } from './fields';
import { layerPrefix, layerTensors, mat, vec, type ExpectedTensor } from './tensors';
import type { ArchAdapter, ArchConfig } from './types';

/** GPT-2's activation_function values (Hugging Face's ACT2FN) the core computes exactly. */
export const GPT2_ACTIVATIONS: Readonly<Record<string, Activation>> = { gelu_new: 'gelu_tanh', gelu_pytorch_tanh: 'gelu_tanh', gelu: 'gelu', relu: 'relu' };

const STEM = 'h.';

export const gpt2: ArchAdapter = {
  modelType: 'gpt2',
  prefix: 'transformer.',
  layerStem: STEM,
  embedding: 'wte.weight',
  head: { name: 'lm_head.weight', what: '[vocab_size, n_embd]' },
  sizeKeys: { L: 'n_layer', C: 'n_embd', V: 'vocab_size' },

  config({ c, fail, int, num, bool, bos }) {
    const C = int('n_embd');
    const NH = int('n_head');
    if (C % NH) fail(`n_embd ${C} must be a multiple of n_head ${NH}`);
    const actName = c.activation_function ?? 'gelu_new';
    const activation = lookup(GPT2_ACTIVATIONS, actName);
    if (!activation) fail(`activation_function ${describe(actName)} is not supported; FFN Lens computes ${Object.keys(GPT2_ACTIVATIONS).join(', ')}`);
    if (!bool('scale_attn_weights', true)) fail('"scale_attn_weights": false is not supported (FFN Lens divides attention scores by √head_size, as GPT-2 does)');
    if (bool('scale_attn_by_inverse_layer_idx', false)) fail('"scale_attn_by_inverse_layer_idx": true is not supported (FFN Lens divides attention scores by √head_size only)');
    return {
      modelType: 'gpt2', C, F: int('n_inner', 4 * C), L: int('n_layer'), NH, KVH: NH, HS: C / NH, V: int('vocab_size'), bos: bos(int('vocab_size')),
      maxPositions: int('n_positions', 1024), eps: num('layer_norm_epsilon', 1e-5), activation: activation!, ropeTheta: null, ropeScaling: null, dynamicRope: false,
      tied: bool('tie_word_embeddings', true), qkvBias: true, oBias: true, mlpBias: true,
    };
  },

  start(arch: ArchConfig): ExpectedTensor[] {
    const { C, V } = arch;
    return [
      mat('wte.weight', [V, C], '[vocab_size, n_embd]', PARAM.embed, 'out_in'),
      mat('wpe.weight', [arch.maxPositions, C], '[n_positions, n_embd]', PARAM.pos, 'out_in'),
    ];
  },

  layer(arch: ArchConfig, i: number): ExpectedTensor[] {
    const { C } = arch;
    const h = layerPrefix(STEM, i);
    const { mat, vec } = layerTensors(arch, STEM, i);
    return [
      vec('ln_1.weight', '[n_embd]', PARAM.ln1Gamma),
      vec('ln_1.bias', '[n_embd]', PARAM.ln1Beta),
      { name: `${h}attn.c_attn.weight`, shape: [C, 3 * C], what: '[n_embd, 3·n_embd]', role: { kind: 'qkv', layer: i } },
      { name: `${h}attn.c_attn.bias`, shape: [3 * C], what: '[3·n_embd]', role: { kind: 'qkvBias', layer: i } },
      mat('attn.c_proj.weight', '[n_embd, n_embd]', PARAM.Wo, 'in_out'),
      vec('attn.c_proj.bias', '[n_embd]', PARAM.bo),
      vec('ln_2.weight', '[n_embd]', PARAM.ln2Gamma),
      vec('ln_2.bias', '[n_embd]', PARAM.ln2Beta),
      mat('mlp.c_fc.weight', '[n_embd, n_inner]', PARAM.W1, 'in_out'),
      vec('mlp.c_fc.bias', '[n_inner]', PARAM.b1),
      mat('mlp.c_proj.weight', '[n_inner, n_embd]', PARAM.W2, 'in_out'),
      vec('mlp.c_proj.bias', '[n_embd]', PARAM.b2),
    ];
  },

  end(arch: ArchConfig): ExpectedTensor[] {
    return [vec('ln_f.weight', arch.C, '[n_embd]', PARAM.lnFGamma), vec('ln_f.bias', arch.C, '[n_embd]', PARAM.lnFBeta)];
  },
};
