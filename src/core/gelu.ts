// GELU(x) = x·Φ(x) = x/2 · erfc(-x/√2), exact as torch.nn.GELU(). Written with erfc rather than
// 1 + erf so that large negative inputs keep their (tiny) value instead of cancelling to 0. erfc
// from the table alone (erf.ts: erfcByTable), so that a whole stage in its vector form
// (wasm/geluModule.ts) gives the bits this gives, and a column recomputed here equals it.
import { erfcByTable } from './erf';

export function gelu(x: number): number {
  return 0.5 * x * erfcByTable(-x * Math.SQRT1_2);
}
