// llama (checkpoints-v1): no position embedding; RoPE on Q and K (rope_theta, rotate-half, with
// rope_scaling linear, llama3 or dynamic); RMSNorm (rms_norm_eps) before each sublayer;
// grouped-query attention; MLP down(silu(gate(x)) ⊙ up(x)); final RMSNorm; lm_head unless
// tie_word_embeddings; biases where attention_bias / mlp_bias say. LlamaConfig's defaults.

import { ropeOf } from './fields';
import { llamaAdapter, llamaHeads, llamaRest, swiglu } from './llamaLike';

export const llama = llamaAdapter('llama', (f) => {
  const heads = llamaHeads(f);
  const activation = swiglu(f);
  const rope = ropeOf(f);
  const attentionBias = f.bool('attention_bias', false);
  return {
    modelType: 'llama', ...heads, ...llamaRest(f, { maxPositions: 2048, eps: 1e-6, tied: false }),
    activation, ropeTheta: rope.theta, ropeScaling: rope.scaling, dynamicRope: rope.dynamic,
    qkvBias: attentionBias, oBias: attentionBias, mlpBias: f.bool('mlp_bias', false),
  };
});
