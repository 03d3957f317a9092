// qwen2 (checkpoints-v1): llama's block with biases on q_proj, k_proj, v_proj. Qwen2Config's
// defaults (32 key/value heads when absent, max_position_embeddings 32768). Its sliding window
// (use_sliding_window) is refused: which layers slide depends on max_window_layers and, in
// transformers, on the attention kernel.

import { ropeOf } from './fields';
import { llamaAdapter, llamaHeads, llamaRest, swiglu } from './llamaLike';

export const qwen2 = llamaAdapter('qwen2', (f) => {
  const heads = llamaHeads(f, { kvHeads: 32 });
  const activation = swiglu(f);
  const rope = ropeOf(f);
  if (f.bool('use_sliding_window', false)) f.fail('"use_sliding_window": true is not supported (FFN Lens computes full causal attention)');
  f.bool('attention_bias', false); // (read, as Qwen2Config reads it; q/k/v have biases whatever it says)
  return {
    modelType: 'qwen2', ...heads, ...llamaRest(f, { maxPositions: 32768, eps: 1e-6, tied: false }),
    activation, ropeTheta: rope.theta, ropeScaling: rope.scaling, dynamicRope: rope.dynamic,
    qkvBias: true, oBias: false, mlpBias: false,
  };
});
