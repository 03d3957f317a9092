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
    const heap = new Int32Array(k);
    for (let t = 0; t < T; t++) topkRelu(pre.subarray(t * N, (t + 1) * N), k, heap);
    return;
  }
  if (sae.activation === 'jumprelu' && threshold) {
    for (let t = 0, i = 0; t < T; t++) {
      for (let f = 0; f < N; f++, i++) {
        const v = pre[i];
        if (!(v > threshold[f] && v > 0)) pre[i] = 0;
      }
    }
    return;
  }
  for (let i = 0; i < T * N; i++) if (!(pre[i] > 0)) pre[i] = 0;
}

/**
 * relu(topk(row, k)) in place: the k largest kept (ties to the lower index, as torch.topk on the
 * CPU keeps them in practice), then whatever is not above 0 set to 0. A value ≤ 0 ends 0 whether
 * kept or not, so only the positive ones are selected among: one pass with a heap of the k best
 * so far (its root the worst of them), not a sort of every feature.
 */
export function topkRelu(row: Float32Array, k: number, heap: Int32Array = new Int32Array(k)): void {
  if (k <= 0) {
    row.fill(0);
    return;
  }
  let n = 0;
  let floor = Infinity; // the root's value once the heap holds k
  // worse(a, b): a is ranked after b (smaller, or equal with the higher index)
  const worse = (a: number, b: number): boolean => row[a] < row[b] || (row[a] === row[b] && a > b);
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const c = l + 1 < n && worse(heap[l + 1], heap[l]) ? l + 1 : l;
      if (!worse(heap[c], heap[i])) return;
      const x = heap[i];
      heap[i] = heap[c];
      heap[c] = x;
      i = c;
    }
  };
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (!(v > 0)) continue;
    if (n < k) {
      // (sift up)
      let j = n++;
      heap[j] = i;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (!worse(heap[j], heap[p])) break;
        const x = heap[j];
        heap[j] = heap[p];
        heap[p] = x;
        j = p;
      }
      if (n === k) floor = row[heap[0]];
    } else if (v > floor) {
      // (a later index equal to the root's value ranks after it: not taken)
      heap[0] = i;
      down(0);
      floor = row[heap[0]];
    }
  }
  const kept = new Float32Array(n);
  for (let j = 0; j < n; j++) kept[j] = row[heap[j]];
  row.fill(0);
  for (let j = 0; j < n; j++) row[heap[j]] = kept[j];
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
