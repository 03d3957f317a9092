// gemma3_text (Gemma 3 270M/1B, the text model of the larger ones; Gemma Scope 2): gemma's block
// (gemma.ts) with q_norm / k_norm ((1+w) RMSNorm over each head's head_dim, before RoPE); which
// layers slide from layer_types, else sliding_window_pattern (layer i slides unless (i + 1) %
// pattern = 0; default 6); RoPE rope_local_base_freq (default 10000, unscaled) on sliding layers
// and rope_theta (default 1e6, with rope_scaling) on full ones, or transformers 5's rope_parameters
// by layer type; no soft-caps unless given. Bidirectional attention (EmbeddingGemma) is refused.

import { describeValue } from '../../common/quote';
import { layerTypesOf, ropeOf, type Fields, type Rope } from './fields';
import { gemmaBase, windows } from './gemma';
import { llamaAdapter } from './llamaLike';

export const gemma3 = llamaAdapter('gemma3_text', (f) => {
  const { arch, window } = gemmaBase(f, 'gemma3_text', { maxPositions: 131072, attnSoftcap: null, finalSoftcap: null });
  if (f.bool('use_bidirectional_attention', false)) f.fail('"use_bidirectional_attention": true is not supported (FFN Lens computes causal attention)');
  const { full, local } = gemma3Rope(f);
  const sliding = layerTypesOf(f, arch.L) ?? bySlidingPattern(f, arch.L);
  const slidingWindow = windows(sliding, window);
  // (by the layer's type, as Gemma3DecoderLayer picks its position embeddings, window or not)
  const layerRope = sliding.map((s) => {
    const r = s ? local : full;
    return { theta: r.theta, scaling: r.scaling, rotaryDims: arch.HS };
  });
  return {
    ...arch, ropeTheta: full.theta, ropeScaling: full.scaling, dynamicRope: full.dynamic || local.dynamic,
    qkNorm: 'one_plus', layerRope, ...(slidingWindow ? { slidingWindow } : {}),
  };
}, { qkNorm: true, postNorms: true });

/** Layer i slides unless (i + 1) % sliding_window_pattern = 0 (Gemma3TextConfig's default pattern 6). */
function bySlidingPattern(f: Fields, L: number): boolean[] {
  const pattern = f.int('sliding_window_pattern', 6);
  return Array.from({ length: L }, (_, i) => (i + 1) % pattern !== 0);
}

/** The full layers' RoPE and the sliding ones'. */
function gemma3Rope(f: Fields): { full: Rope; local: Rope } {
  const rp = f.c.rope_parameters;
  const byType = rp !== null && typeof rp === 'object' && !Array.isArray(rp) && ('full_attention' in rp || 'sliding_attention' in rp);
  if (!byType) {
    return { full: ropeOf(f, { theta: 1e6 }), local: { theta: f.num('rope_local_base_freq', 10000), scaling: null, dynamic: false } };
  }
  // transformers 5: {"full_attention": {...}, "sliding_attention": {...}}
  const o = rp as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'full_attention' && k !== 'sliding_attention') f.fail(`"rope_parameters" by layer type has ${describeValue(k)}; expected "full_attention" and "sliding_attention"`);
  return {
    full: ropeOf(f, { dicts: [['rope_parameters.full_attention', o.full_attention]], theta: 1e6 }),
    local: ropeOf(f, { dicts: [['rope_parameters.sliding_attention', o.sliding_attention]], thetaKeys: ['rope_local_base_freq'], theta: 10000 }),
  };
}
