// A linear layer: y = x·Wᵀ + b (layout out_in, as torch.nn.Linear) or y = x·W + b (in_out).
// A missing weight is the identity (the bare attention of the blog posts has no matrices).

import { biasAdd } from './bias';
import { matmulOnce, type MatmulKernel } from './kernel';

export type Layout = 'out_in' | 'in_out';

// out (T,OC) = inp (T,C) · W' + bias (OC); weight (OC,C) in out_in, (C,OC) in in_out, or null (OC = C)
export function linearForward(
  out: Float32Array, inp: Float32Array, weight: Float32Array | null, bias: Float32Array | null,
  T: number, C: number, OC: number, layout: Layout, kernel: MatmulKernel,
): void {
  if (weight === null) out.set(inp.subarray(0, T * C));
  else matmulOnce(kernel, out, inp, weight, T, C, OC, layout === 'out_in' ? 'nk' : 'kn');
  if (bias !== null) biasAdd(out, bias, T, OC);
}
