// Q, K and V: a projection of the stream, split into heads, and for Q and K of a model with
// rotary positions, rotated (rope.ts).
//   proj = x·W' + b     (T, H·HS)       H = NH for Q; KVH for K and V (grouped-query attention)
//   head h takes columns h·HS … (h+1)·HS-1
//   out  = rope(qkNorm(split(proj)))   (H,T,HS); qkNorm (qwen3, gemma3's q_norm/k_norm: headNorm.ts)
//          an RMSNorm of each head's HS numbers, where the model has it

import type { StageContext, StageOp } from './graph';
import { biasAdd } from './bias';
import { headNormForward } from './headNorm';
import { linearStage } from './linear';
import { ropeForward } from './rope';
import type { RopeSpec } from './spec';

// (T,H·HS) -> (H,T,HS)
export function splitHeads(out: Float32Array, inp: Float32Array, T: number, H: number, HS: number): void {
  const W = H * HS;
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const src = t * W + h * HS;
      out.set(inp.subarray(src, src + HS), (h * T + t) * HS);
    }
  }
}

// (H,T,HS) -> (T,H·HS)
export function mergeHeads(out: Float32Array, inp: Float32Array, T: number, H: number, HS: number): void {
  const W = H * HS;
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const src = (h * T + t) * HS;
      out.set(inp.subarray(src, src + HS), t * W + h * HS);
    }
  }
}

// dst[dAt + r·dStride + j] = src[sAt + r·sStride + j] for r < rows, j < width: a plain loop, since
// rows of a few dozen numbers copied by subarray and set cost a microsecond or two each
export function copyRows(dst: Float32Array, dAt: number, dStride: number, src: Float32Array, sAt: number, sStride: number, rows: number, width: number): void {
  for (let r = 0; r < rows; r++) {
    const d = dAt + r * dStride;
    const s = sAt + r * sStride;
    for (let j = 0; j < width; j++) dst[d + j] = src[s + j];
  }
}

// (H,T,W) -> (H,r1−r0,W): rows r0 … r1−1 of every head
export function headRows(inp: Float32Array, H: number, T: number, W: number, r0: number, r1: number): Float32Array {
  const n = r1 - r0;
  const out = new Float32Array(H * n * W);
  for (let h = 0; h < H; h++) copyRows(out, h * n * W, 0, inp, (h * T + r0) * W, 0, 1, n * W);
  return out;
}

export interface HeadsArgs {
  readonly x: string;
  readonly W: string;
  readonly b: string;
  readonly C: number;
  readonly H: number;
  readonly HS: number;
  readonly rope: RopeSpec | null;
  /** q_norm/k_norm before RoPE: its gain param (HS), eps, and (1 + w) or plain; absent or null: none. */
  readonly norm?: HeadNorm | null;
}

export interface HeadNorm { readonly gamma: string; readonly eps: number; readonly onePlus: boolean }

/** The norm and rotation of fresh heads (H,n,HS) at positions t0…, in place. */
function finish(ctx: StageContext, out: Float32Array, a: HeadsArgs, n: number, t0: number): void {
  if (a.norm) headNormForward(out, out, ctx.param(a.norm.gamma)?.data ?? null, a.norm.eps, a.H, n, a.HS, a.norm.onePlus);
  if (a.rope) ropeForward(out, a.H, n, a.HS, a.rope, t0);
}

/** After an edit of rows of W only those columns of the projection are multiplied again; the split (norm and rotation) is redone whole. */
export const headsOp: StageOp<HeadsArgs> = {
  name: 'heads',
  run(ctx, a) {
    const { y, changed } = linearStage(ctx, { x: a.x, W: a.W, b: a.b, C: a.C, OC: a.H * a.HS }, 'pre', false);
    const out = new Float32Array(a.H * ctx.T * a.HS);
    splitHeads(out, y, ctx.T, a.H, a.HS);
    finish(ctx, out, a, ctx.T, 0);
    // (the norm's gain edited changes every head's numbers, though the projection did not change)
    const normChanged = a.norm ? ctx.full || ctx.paramChanged(a.norm.gamma) !== null : false;
    return { data: out, changed: changed === null && !normChanged ? null : 'all' };
  },
  // rows T0… projected and rotated at their positions; each head's first T0 rows kept
  append(ctx, a, T0, previous) {
    const { T } = ctx;
    const n = T - T0;
    const OC = a.H * a.HS;
    const y = new Float32Array(n * OC);
    const W = ctx.param(a.W);
    const x = ctx.input(a.x).subarray(T0 * a.C, T * a.C);
    const b = ctx.param(a.b)?.data;
    if (W !== null) ctx.kernel.matmul(y, x, n, ctx.packed(a.W, a.C, OC), b ? { b, out: y } : undefined); // (y + b, written over the product)
    else {
      y.set(x);
      if (b) biasAdd(y, b, n, OC);
    }
    const fresh = new Float32Array(a.H * n * a.HS);
    splitHeads(fresh, y, n, a.H, a.HS);
    finish(ctx, fresh, a, n, T0);
    const out = new Float32Array(a.H * T * a.HS);
    for (let h = 0; h < a.H; h++) {
      out.set(previous.subarray(h * T0 * a.HS, (h + 1) * T0 * a.HS), h * T * a.HS);
      out.set(fresh.subarray(h * n * a.HS, (h + 1) * n * a.HS), (h * T + T0) * a.HS);
    }
    return out;
  },
};
