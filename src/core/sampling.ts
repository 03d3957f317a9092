// How generation chooses a token from a row of logits (decode.ts), defined exactly so that a
// reference in another language (scripts/fixtures/generate_cases.py) makes the same choice:
//
//   candidates  the top_k ids by logit, largest first; ties: the smaller id first (NaN: lowest)
//   greedy      temperature 0: the first candidate; no draw
//   sampled     temperature τ > 0: q_i = exp((ℓ_i − ℓ_0) / τ) / Σ_j exp((ℓ_j − ℓ_0) / τ) over the
//               candidates (float64, ℓ the float32 logits); u = the next number of mulberry32
//               (rng.ts) seeded with `seed`, one draw per step; the chosen candidate is the first i
//               with u < q_0 + … + q_i (summed in order, float64), else the last.

/** The `k` ids of the largest values of `row`, largest first (ties: the smaller id first). */
export function topIds(row: ArrayLike<number>, k: number): number[] {
  const n = Math.min(k, row.length);
  const ids: number[] = [];
  const vals: number[] = [];
  for (let j = 0; j < row.length; j++) {
    const v = row[j] === row[j] ? row[j] : -Infinity; // (NaN ranks lowest)
    if (ids.length === n && !(v > vals[n - 1])) continue; // (equal: the earlier, smaller id stays)
    let at = ids.length === n ? n - 1 : ids.length;
    while (at > 0 && v > vals[at - 1]) {
      ids[at] = ids[at - 1];
      vals[at] = vals[at - 1];
      at--;
    }
    ids[at] = j;
    vals[at] = v;
  }
  return ids;
}

/** The sampling probabilities of the candidates (see above); `logits` in the candidates' order, largest first. */
export function samplingProbs(logits: readonly number[], temperature: number): number[] {
  const top = logits[0];
  const w = logits.map((l) => (Number.isFinite(l) && Number.isFinite(top) ? Math.exp((l - top) / temperature) : l === top ? 1 : 0));
  const sum = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / sum);
}

/** The index the draw `u` ∈ [0, 1) picks from probabilities `q` (see above). */
export function pickIndex(q: readonly number[], u: number): number {
  let c = 0;
  for (let i = 0; i < q.length; i++) {
    c += q[i];
    if (u < c) return i;
  }
  return q.length - 1;
}
