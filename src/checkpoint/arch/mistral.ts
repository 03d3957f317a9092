// mistral: llama's block, with sliding_window on every layer when set (MistralConfig's default
// 4096 when absent; null: none). No biases. MistralConfig's defaults (8 key/value heads when
// absent, max_position_embeddings 131072, bos 1).

import { ropeOf } from './fields';
import { everyLayer, llamaAdapter, llamaHeads, llamaRest, swiglu, windowOf } from './llamaLike';

export const mistral = llamaAdapter('mistral', (f) => {
  const heads = llamaHeads(f, { kvHeads: 8 });
  const activation = swiglu(f);
  const rope = ropeOf(f);
  const window = windowOf(f, 'sliding_window', 4096);
  const rest = llamaRest(f, { maxPositions: 131072, eps: 1e-6, tied: false, bos: 1 });
  const slidingWindow = everyLayer(rest.L, window);
  return {
    modelType: 'mistral', ...heads, ...rest,
    activation, ropeTheta: rope.theta, ropeScaling: rope.scaling, dynamicRope: rope.dynamic,
    qkvBias: false, oBias: false, mlpBias: false, ...(slidingWindow ? { slidingWindow } : {}),
  };
});
