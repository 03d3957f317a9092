// SiLU(x) = x·σ(x) = x / (1 + e^(-x)), as torch.nn.SiLU (the "Swish" of SwiGLU); e^x as expf
// (./expf.ts), so a whole stage computed with its vector form gives the same bits.
import { expf } from './expfScalar';

export function silu(x: number): number {
  return x / (1 + expf(-x));
}

/** The argument of e^· in silu(x). */
export function siluExpArg(x: number): number {
  return -x;
}
