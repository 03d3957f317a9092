// What gemma2 and gemma3_text share: llama's layout with (1+w) RMSNorms, four norms a layer
// (ln1, ln1_post, ln2 = pre_feedforward, ln2_post), the embedding × √hidden_size, scores scaled by
// query_pre_attn_scalar^-½, gelu_pytorch_tanh(gate) · up, a tied head, sliding windows on some
// layers. Gemma2Config's / Gemma3TextConfig's defaults.

import { describeValue } from '../../common/quote';
import { lookup, type Fields } from './fields';
import { llamaHeads, llamaRest, windowOf } from './llamaLike';
import type { ArchActivation, ArchConfig, ModelType } from './types';

/** hidden_activation (ACT2FN's names) → the gated activation the core computes exactly. */
const GEMMA_ACTIVATIONS: Readonly<Record<string, ArchActivation>> = { gelu_pytorch_tanh: 'geglu_tanh', gelu_new: 'geglu_tanh', gelu: 'geglu' };

/** The options both gemmas have, given which layers slide (`sliding`, one per layer) and the defaults that differ. */
export function gemmaBase(f: Fields, modelType: ModelType, o: { readonly maxPositions: number; readonly attnSoftcap: number | null; readonly finalSoftcap: number | null }): { arch: Omit<ArchConfig, 'ropeTheta' | 'ropeScaling' | 'dynamicRope'>; window: number | null } {
  const heads = llamaHeads(f, { kvHeads: 4, headDim: 256 });
  const actName = f.c.hidden_activation ?? 'gelu_pytorch_tanh';
  const activation = lookup(GEMMA_ACTIVATIONS, actName);
  if (!activation) f.fail(`hidden_activation ${describeValue(actName)} is not supported; FFN Lens computes the gated MLP of ${Object.keys(GEMMA_ACTIVATIONS).join(', ')}`);
  const rest = llamaRest(f, { maxPositions: o.maxPositions, eps: 1e-6, tied: true, bos: 2 });
  const attentionBias = f.bool('attention_bias', false);
  const attnSoftcap = f.optNum('attn_logit_softcapping', o.attnSoftcap);
  const finalSoftcap = f.optNum('final_logit_softcapping', o.finalSoftcap);
  return {
    arch: {
      modelType, ...heads, ...rest, activation: activation!,
      qkvBias: attentionBias, oBias: attentionBias, mlpBias: false,
      normOnePlus: true, postNorms: true,
      attnScale: f.num('query_pre_attn_scalar', 256) ** -0.5,
      // (transformers' normalizer: a tensor of √hidden_size in the model's dtype, float32)
      embedScale: Math.fround(Math.sqrt(heads.C)),
      ...(attnSoftcap !== null ? { attnSoftcap } : {}),
      ...(finalSoftcap !== null ? { finalSoftcap } : {}),
    },
    window: windowOf(f, 'sliding_window', 4096),
  };
}

/** The sliding window of each layer (null: full), or undefined when none slides. */
export function windows(sliding: readonly boolean[], window: number | null): Array<number | null> | undefined {
  if (window === null || !sliding.some((s) => s)) return undefined;
  return sliding.map((s) => (s ? window : null));
}
