// An SAE's encoder: a stage [T, d_in] → its features' activations [T, d_sae] (saeSpec.ts says how).
// The product x̃ · W_enc + b_enc runs on the matmul kernel (W_enc packed once, as a linear layer's
// weight); the input's rescale and the activation are per token.

import type { StageOp } from './graph';
import { inputScale, type SaeSpec } from './saeSpec';

export interface SaeEncodeArgs {
  readonly x: string;
  readonly sae: SaeSpec;
  readonly Wenc: string;
  readonly benc: string;
  readonly bdec: string;
  readonly threshold: string;
}

/** x̃ [T, d_in]: each token rescaled (normalize_activations), b_dec taken off if the SAE says so. */
export function saeInput(sae: SaeSpec, x: Float32Array, T: number, bdec: Float32Array | null): Float32Array {
  const D = sae.dIn;
  const out = new Float32Array(T * D);
  for (let t = 0; t < T; t++) {
    const s = inputScale(sae, x, t);
    for (let j = 0; j < D; j++) {
      const v = s === 1 ? x[t * D + j] : Math.fround(x[t * D + j] * s);
      out[t * D + j] = sae.applyBDecToInput && bdec ? v - bdec[j] : v;
    }
  }
  return out;
}

/** The activation in place on pre [T, d_sae]: relu, top-k then relu, or jumprelu. */
export function saeActivate(sae: SaeSpec, pre: Float32Array, T: number, threshold: Float32Array | null): void {
  const N = sae.dSae;
  if (sae.activation === 'topk') {
    const k = Math.min(sae.k ?? N, N);
    const order = new Int32Array(N);
    for (let t = 0; t < T; t++) {
      const row = pre.subarray(t * N, (t + 1) * N);
      for (let i = 0; i < N; i++) order[i] = i;
      // (the k largest, ties to the lower index as torch.topk on the CPU keeps them in practice)
      const kept = Array.from(order).sort((a, b) => row[b] - row[a] || a - b).slice(0, k);
      const keep = new Uint8Array(N);
      for (const i of kept) keep[i] = 1;
      for (let i = 0; i < N; i++) row[i] = keep[i] && row[i] > 0 ? row[i] : 0;
    }
    return;
  }
  for (let i = 0; i < T * N; i++) {
    const v = pre[i];
    const on = sae.activation === 'jumprelu' ? v > (threshold ? threshold[i % N] : 0) : true;
    pre[i] = on && v > 0 ? v : 0;
  }
}

/** The plain forward (the reference the op is tested against): acts [T, d_sae]; W_enc [d_in, d_sae] row-major. */
export function saeEncodeNaive(sae: SaeSpec, x: Float32Array, T: number, Wenc: Float32Array, benc: Float32Array | null, bdec: Float32Array | null, threshold: Float32Array | null): Float32Array {
  const D = sae.dIn;
  const N = sae.dSae;
  const xin = saeInput(sae, x, T, bdec);
  const pre = new Float32Array(T * N);
  for (let t = 0; t < T; t++) {
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let j = 0; j < D; j++) s += xin[t * D + j] * Wenc[j * N + n];
      pre[t * N + n] = s + (benc ? benc[n] : 0);
    }
  }
  saeActivate(sae, pre, T, threshold);
  return pre;
}

export const saeEncodeOp: StageOp<SaeEncodeArgs> = {
  name: 'saeEncode',
  append: 'rows',
  run(ctx, a) {
    const { T } = ctx;
    const N = a.sae.dSae;
    const xin = saeInput(a.sae, ctx.input(a.x), T, ctx.param(a.bdec)?.data ?? null);
    const pre = new Float32Array(T * N);
    const b = ctx.param(a.benc)?.data ?? null;
    const packed = ctx.packed(a.Wenc, a.sae.dIn, N);
    const out = b ? new Float32Array(T * N) : pre;
    ctx.kernel.matmul(pre, xin, T, packed, b ? { b, out } : undefined);
    saeActivate(a.sae, out, T, ctx.param(a.threshold)?.data ?? null);
    return { data: out, changed: 'all' };
  },
};
