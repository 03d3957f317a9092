// GELU, tanh approximation, as torch.nn.GELU(approximate="tanh"):
// x/2 · (1 + tanh(√(2/π) · (x + 0.044715·x³)))
import { expf } from './expfScalar';

const SQRT_2_OVER_PI = 0.7978845608028654;
/** g(x) = K·(x + CUBIC·x³) below: the constants the vector form (wasm/expModule.ts) uses too. */
export const GELU_TANH_K = -2 * SQRT_2_OVER_PI;
export const GELU_TANH_CUBIC = 0.044715;

// written as x·σ(2u) = x / (1 + e^(−2u)), the same function (1 + tanh u = 2σ(2u)), with e^x as
// expf (./expf.ts: a whole stage in its vector form gives the same bits). For x ≪ 0, e^(−2u)
// overflows to ∞ and the result is −0, as GELU's.
export function geluTanh(x: number): number {
  return x / (1 + expf(geluTanhExpArg(x)));
}

/** The argument of e^· in geluTanh(x). */
export function geluTanhExpArg(x: number): number {
  return GELU_TANH_K * (x + GELU_TANH_CUBIC * x * x * x);
}
