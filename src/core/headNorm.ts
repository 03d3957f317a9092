// Q and K norms (qwen3's and gemma3's q_norm / k_norm): an RMSNorm of each head's HS numbers at
// each position, before RoPE, with one gain (HS) shared by every head. Plain (qwen3: w · x̂) or
// one-plus (gemma3: x̂ · (1 + w)), as the model's other RMSNorms.
//   out[h,t,:] = x[h,t,:] / sqrt(mean(x[h,t,:]²) + eps) · gamma      (H,T,HS)

import { rmsnormForward } from './rmsnorm';

// out (H,T,HS) = rmsnorm of x (H,T,HS) over HS; gamma (HS), null: ones. Every (h, t) is one row
// of rmsnormForward's (its vector form where HS is a multiple of 4). out may be x.
export function headNormForward(out: Float32Array, x: Float32Array, gamma: Float32Array | null, eps: number, H: number, T: number, HS: number, onePlus = false): void {
  rmsnormForward(out, x, gamma, eps, H * T, HS, onePlus);
}
