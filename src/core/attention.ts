// Multi-head self-attention, as torch.nn.MultiheadAttention computes it:
//   Q = x·Wqᵀ + bq, K = x·Wkᵀ + bk, V = x·Wvᵀ + bv        (T,C), missing W = identity
//   head h takes columns h·HS … (h+1)·HS-1 of Q, K, V
//   scores_h  = Q_h·K_hᵀ / √HS                             (T,T), before the mask
//   weights_h = softmax(scores_h), with -∞ above the diagonal when causal
//   context   = [weights_0·V_0, …, weights_NH-1·V_NH-1]   (T,C)
//   out       = context·Woᵀ + bo                          (T,C)

import { matmulOnce, type MatmulKernel } from './kernel';
import { linearForward, type Layout } from './linear';
import { softmaxForward } from './softmax';

export interface AttentionWeights {
  readonly heads: number;
  readonly causal: boolean;
  readonly Wq: Float32Array | null; readonly bq: Float32Array | null;
  readonly Wk: Float32Array | null; readonly bk: Float32Array | null;
  readonly Wv: Float32Array | null; readonly bv: Float32Array | null;
  readonly Wo: Float32Array | null; readonly bo: Float32Array | null;
}

export interface AttentionStages {
  q: Float32Array;        // (NH,T,HS)
  k: Float32Array;        // (NH,T,HS)
  v: Float32Array;        // (NH,T,HS)
  scores: Float32Array;   // (NH,T,T)
  weights: Float32Array;  // (NH,T,T)
  context: Float32Array;  // (T,C)
  out: Float32Array;      // (T,C)
}

// (T,C) -> (NH,T,HS)
export function splitHeads(out: Float32Array, inp: Float32Array, T: number, C: number, NH: number): void {
  const HS = C / NH;
  for (let h = 0; h < NH; h++) {
    for (let t = 0; t < T; t++) {
      const src = t * C + h * HS;
      out.set(inp.subarray(src, src + HS), (h * T + t) * HS);
    }
  }
}

// (NH,T,HS) -> (T,C)
export function mergeHeads(out: Float32Array, inp: Float32Array, T: number, C: number, NH: number): void {
  const HS = C / NH;
  for (let h = 0; h < NH; h++) {
    for (let t = 0; t < T; t++) {
      const src = (h * T + t) * HS;
      out.set(inp.subarray(src, src + HS), t * C + h * HS);
    }
  }
}

/** True where query i may not see key j. */
export function isMasked(causal: boolean, i: number, j: number): boolean {
  return causal && j > i;
}

// q, k, v projections (T,C) -> q, k, v per head, scores, weights and the context (T,C)
export function attentionCore(
  qp: Float32Array, kp: Float32Array, vp: Float32Array, heads: number, causal: boolean, T: number, C: number, kernel: MatmulKernel,
): Omit<AttentionStages, 'out'> {
  const NH = heads;
  const HS = C / NH;
  const split = (p: Float32Array): Float32Array => {
    const out = new Float32Array(T * C);
    splitHeads(out, p, T, C, NH);
    return out;
  };
  const q = split(qp);
  const k = split(kp);
  const v = split(vp);
  const scores = new Float32Array(NH * T * T);
  const weights = new Float32Array(NH * T * T);
  const masked = new Float32Array(T * T);
  const ctxHeads = new Float32Array(T * C);
  const scale = 1 / Math.sqrt(HS);
  for (let h = 0; h < NH; h++) {
    const qh = q.subarray(h * T * HS, (h + 1) * T * HS);
    const kh = k.subarray(h * T * HS, (h + 1) * T * HS);
    const vh = v.subarray(h * T * HS, (h + 1) * T * HS);
    const sh = scores.subarray(h * T * T, (h + 1) * T * T);
    matmulOnce(kernel, sh, qh, kh, T, HS, T, 'nk');           // Q_h·K_hᵀ
    for (let i = 0; i < T * T; i++) sh[i] *= scale;
    for (let i = 0; i < T; i++) {
      for (let j = 0; j < T; j++) masked[i * T + j] = isMasked(causal, i, j) ? -Infinity : sh[i * T + j];
    }
    const wh = weights.subarray(h * T * T, (h + 1) * T * T);
    softmaxForward(wh, masked, T, T);
    matmulOnce(kernel, ctxHeads.subarray(h * T * HS, (h + 1) * T * HS), wh, vh, T, T, HS, 'kn'); // P_h·V_h
  }
  const context = new Float32Array(T * C);
  mergeHeads(context, ctxHeads, T, C, NH);
  return { q, k, v, scores, weights, context };
}

// inp (T,C) -> every stage of the sublayer
export function attentionForward(
  inp: Float32Array, w: AttentionWeights, T: number, C: number, layout: Layout, kernel: MatmulKernel,
): AttentionStages {
  const project = (W: Float32Array | null, b: Float32Array | null): Float32Array => {
    const out = new Float32Array(T * C);
    linearForward(out, inp, W, b, T, C, C, layout, kernel);
    return out;
  };
  const core = attentionCore(project(w.Wq, w.bq), project(w.Wk, w.bk), project(w.Wv, w.bv), w.heads, w.causal, T, C, kernel);
  const out = new Float32Array(T * C);
  linearForward(out, core.context, w.Wo, w.bo, T, C, C, layout, kernel);
  return { ...core, out };
}
