// qwen3: llama's block with q_norm / k_norm (plain RMSNorm over each head's head_dim, before
// RoPE); head_dim given (Qwen3Config's default 128, not hidden/heads); biases on q/k/v/o only with
// attention_bias. Qwen3Config's defaults (32 key/value heads when absent). use_sliding_window is
// refused, as qwen2's (which layers slide depends on max_window_layers).

import { ropeOf } from './fields';
import { llamaAdapter, llamaHeads, llamaRest, swiglu } from './llamaLike';

export const qwen3 = llamaAdapter('qwen3', (f) => {
  const heads = llamaHeads(f, { kvHeads: 32, headDim: 128 });
  const activation = swiglu(f);
  const rope = ropeOf(f);
  if (f.bool('use_sliding_window', false)) f.fail('"use_sliding_window": true is not supported (FFN Lens computes full causal attention)');
  const attentionBias = f.bool('attention_bias', false);
  return {
    modelType: 'qwen3', ...heads, ...llamaRest(f, { maxPositions: 32768, eps: 1e-6, tied: false }),
    activation, ropeTheta: rope.theta, ropeScaling: rope.scaling, dynamicRope: rope.dynamic,
    qkvBias: attentionBias, oBias: attentionBias, mlpBias: false, qkNorm: 'plain',
  };
}, { qkNorm: true });
