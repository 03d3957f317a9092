// GELU(x) = x·Φ(x) = x/2 · erfc(-x/√2), exact as torch.nn.GELU(). Written with erfc rather than
// 1 + erf so that large negative inputs keep their (tiny) value instead of cancelling to 0.
import { erfc } from './erf';

export function gelu(x: number): number {
  return 0.5 * x * erfc(-x * Math.SQRT1_2);
}
