// What each attention head does on this prompt, as the three scores of the induction-head
// literature (Olsson et al. 2022; TransformerLens' head detectors), read off `attn.weights`:
//   previous-token  mean over t ≥ 1 of A[t, t−1]
//   duplicate-token over the t whose token appeared before (at s < t): Σ_s A[t, s], averaged
//   induction       over the t whose token appeared before at s with s+1 < t: Σ_s A[t, s+1]
//                   (attending to the token that followed the earlier copy), averaged
// A score's positions: none qualifying gives 0. On a random sequence repeated twice
// (inductionSequence) every t of the second half qualifies, once.

import { STAGE, stageId } from '../core/ids';
import { LensError, tokenIds, type Run } from './cache';
import { rng } from '../core/rng';

export interface HeadScores {
  /** [layer][head]; a layer without attention has an empty row. */
  readonly prev: number[][];
  /** null when the input is vectors (no token identity to compare). */
  readonly dup: number[][] | null;
  readonly induction: number[][] | null;
}

// scores of one head: A (T,T) row-major, ids (T) or null
export function headScore(A: Float32Array, T: number, ids: readonly number[] | null): { prev: number; dup: number; induction: number } {
  let prev = 0;
  for (let t = 1; t < T; t++) prev += A[t * T + t - 1];
  prev = T > 1 ? prev / (T - 1) : 0;
  if (!ids) return { prev, dup: NaN, induction: NaN };
  let dup = 0;
  let nDup = 0;
  let ind = 0;
  let nInd = 0;
  for (let t = 1; t < T; t++) {
    let sd = 0;
    let si = 0;
    let hasDup = false;
    let hasInd = false;
    for (let s = 0; s < t; s++) {
      if (ids[s] !== ids[t]) continue;
      hasDup = true;
      sd += A[t * T + s];
      if (s + 1 < t) {
        hasInd = true;
        si += A[t * T + s + 1];
      }
    }
    if (hasDup) { dup += sd; nDup++; }
    if (hasInd) { ind += si; nInd++; }
  }
  return { prev, dup: nDup ? dup / nDup : 0, induction: nInd ? ind / nInd : 0 };
}

export function headScores(run: Run): HeadScores {
  const { spec } = run.model;
  const { T } = spec;
  const ids = tokenIds(run.model);
  if (!spec.layers.some((l) => l.attention)) throw new LensError('this model has no attention heads');
  const prev: number[][] = [];
  const dup: number[][] = [];
  const induction: number[][] = [];
  spec.layers.forEach((layer, l) => {
    const row = { prev: [] as number[], dup: [] as number[], induction: [] as number[] };
    if (layer.attention) {
      const W = run.stage(stageId(l, STAGE.weights));
      for (let h = 0; h < layer.attention.NH; h++) {
        const s = headScore(W.subarray(h * T * T, (h + 1) * T * T), T, ids);
        row.prev.push(s.prev);
        row.dup.push(s.dup);
        row.induction.push(s.induction);
      }
    }
    prev.push(row.prev);
    dup.push(row.dup);
    induction.push(row.induction);
  });
  return { prev, dup: ids ? dup : null, induction: ids ? induction : null };
}

/**
 * The standard induction test (TransformerLens' generate_repeated_tokens): the model's BOS token
 * where it has one (the first position, where many heads rest their attention), then n random
 * token ids (distinct, seeded), then the same n again. A head that copies what followed the
 * earlier occurrence attends from t to t − n + 1 in the second half. The ids avoid the first
 * `skip` of the vocabulary (special tokens, where models keep them) and the BOS itself.
 */
export function inductionSequence(V: number, n: number, opts: { readonly bos?: number | null; readonly seed?: number } = {}): number[] {
  const bos = opts.bos !== undefined && opts.bos !== null && opts.bos >= 0 && opts.bos < V ? opts.bos : null;
  let skip = Math.min(V >> 3, 256);
  const room = V - (bos === null ? 0 : 1);
  if (V - skip - (bos !== null && bos >= skip ? 1 : 0) < n) {
    skip = 0;
    if (room < n) n = room;
  }
  const next = rng(opts.seed ?? 1);
  const seen = new Set<number>(bos === null ? [] : [bos]);
  const r: number[] = [];
  while (r.length < n) {
    const id = skip + Math.floor(next() * (V - skip));
    if (seen.has(id)) continue;
    seen.add(id);
    r.push(id);
  }
  return [...(bos === null ? [] : [bos]), ...r, ...r];
}
