// phi3 (Phi-3, Phi-3.5 mini, Phi-4-mini): llama's block stored fused, qkv_proj (q rows, then k,
// then v) and gate_up_proj (gate rows, then up), cut into v1's roles at load; partial_rotary_factor
// (default 1); sliding_window on every layer when set (default null); no biases. rope_scaling of
// type longrope (Phi-3-128k, Phi-3.5, Phi-4-mini) is refused with the others RoPE does not compute.

import { ropeOf, rotaryDimsOf } from './fields';
import { everyLayer, llamaAdapter, llamaHeads, llamaRest, swiglu, windowOf } from './llamaLike';

export const phi3 = llamaAdapter('phi3', (f) => {
  const heads = llamaHeads(f, { partialRotary: true });
  const activation = swiglu(f);
  const rope = ropeOf(f);
  const rotaryDims = rotaryDimsOf(f, heads.HS, ['partial_rotary_factor', 'rope_parameters.partial_rotary_factor'], 1);
  const window = windowOf(f, 'sliding_window', null);
  const rest = llamaRest(f, { maxPositions: 4096, eps: 1e-5, tied: false, bos: 1 });
  const slidingWindow = everyLayer(rest.L, window);
  const layerRope = rotaryDims < heads.HS ? Array.from({ length: rest.L }, () => ({ theta: rope.theta, scaling: rope.scaling, rotaryDims })) : undefined;
  return {
    modelType: 'phi3', ...heads, ...rest,
    activation, ropeTheta: rope.theta, ropeScaling: rope.scaling, dynamicRope: rope.dynamic,
    qkvBias: false, oBias: false, mlpBias: false, fusedQkv: 'qkv', fusedGateUp: true,
    ...(layerRope ? { layerRope } : {}), ...(slidingWindow ? { slidingWindow } : {}),
  };
}, { fused: true });
