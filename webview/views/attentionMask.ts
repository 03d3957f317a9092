// Which cells of an attention map no query sees, drawn as masked: the causal mask (a later key)
// and, on a sliding layer (the plan's `show.window`), the keys that fell out of the window: query
// i sees key j iff i − window < j ≤ i. The scores carry every entry (masked ones too); the weights
// are exactly 0 there.
import type { StageView } from '../../src/protocol/stages';

/** (T, T): 1 where query i (row) does not see key j (column). */
export function attentionMask(T: number, window?: number | null): Uint8Array {
  const m = new Uint8Array(T * T);
  const w = window !== undefined && window !== null && window > 0 ? window : Infinity;
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) if (j > i || j <= i - w) m[i * T + j] = 1;
  }
  return m;
}

/** A (T, T) mask once for each of n heads: (n, T, T). */
export function repeatMask(mask: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(mask.length * n);
  for (let k = 0; k < n; k++) out.set(mask, k * mask.length);
  return out;
}

type Masking = Pick<StageView, 'masked' | 'show'>;

/** The (T, T) mask of one head of a stage, or undefined for a stage drawn whole. */
export function stageMask(info: Masking, T: number): Uint8Array | undefined {
  const window = info.show.window;
  return info.masked || window !== undefined ? attentionMask(T, window) : undefined;
}

/** What a masked cell's tooltip says: why query `row` does not see key `col`. */
export function maskReason(info: Masking, row: number, col: number): string {
  const w = info.show.window;
  if (col > row || w === undefined) return 'masked: a causal query cannot see a later token';
  return `masked: outside the sliding window (a query sees its last ${w} tokens, itself included)`;
}
