// gemma2 (Gemma 2 2B/9B/27B; Gemma Scope's SAEs): gemma's block (gemma.ts) with attention and
// final soft-caps (attn_logit_softcapping 50, final_logit_softcapping 30 by default; null: none),
// a sliding window (sliding_window, default 4096) on the even layers (or as layer_types lists
// them), RoPE rope_theta on every layer.

import { layerTypesOf, ropeOf } from './fields';
import { gemmaBase, windows } from './gemma';
import { llamaAdapter } from './llamaLike';

export const gemma2 = llamaAdapter('gemma2', (f) => {
  const { arch, window } = gemmaBase(f, 'gemma2', { maxPositions: 8192, attnSoftcap: 50, finalSoftcap: 30 });
  const rope = ropeOf(f);
  // (Gemma2Config: layer i slides when i is even, unless layer_types says otherwise)
  const sliding = layerTypesOf(f, arch.L) ?? Array.from({ length: arch.L }, (_, i) => i % 2 === 0);
  const slidingWindow = windows(sliding, window);
  return { ...arch, ropeTheta: rope.theta, ropeScaling: rope.scaling, dynamicRope: rope.dynamic, ...(slidingWindow ? { slidingWindow } : {}) };
}, { postNorms: true });
