// What leaves the worker of a stage across the vocabulary ([rows, V]: head.logits, head.probs, a
// logit lens): the panel draws at most its heatmap width of columns, so a wider one is pooled here,
// by the panel's own rule (src/common/pool.ts: the value of largest |v| of each block of words, sign
// kept), with the word each value is; and the prediction's chart gets the top words of each token.
// GPT-2 with 400 tokens: head.logits is 80 MB whole, 3.3 MB pooled to 1024 columns.
import { STAGE } from '../core/ids';
import type { AxisKind, TopWords } from '../protocol/stages';
import { poolMaxAbs } from '../common/pool';

/** The heatmap width the panel draws until it says (the setting ffnLens.maxHeatmapColumns' default). */
export const DEFAULT_POOL_COLS = 1024;
/** Top words of each token sent with the prediction (the chart shows 12; compare's baseline has 20). */
export const PREDICTION_TOP = 20;
export const HEAD_PROBS = STAGE.probs;

/** True when a stage whose columns are `axis` (the plan's), of this shape, is across a vocabulary wider than `cols`. */
export function vocabWide(axis: AxisKind | undefined, shape: readonly number[], cols: number): boolean {
  return axis === 'vocab' && shape.length === 2 && shape[1] > cols;
}

/**
 * data (rows, V) → [rows][cols] values then [rows][cols] word ids (exact in float32 below 2^24),
 * `cols` = min(V, cols): each value the one of largest |v| of its block of words.
 */
export function poolAcrossVocab(data: Float32Array, rows: number, V: number, cols: number): { data: Float32Array; cols: number } {
  const p = poolMaxAbs({ data, rows, cols: V }, { rows, cols });
  const n = p.rows * p.cols;
  const out = new Float32Array(2 * n);
  for (let i = 0; i < n; i++) out[i] = p.data[i];
  if (p.source) for (let i = 0; i < n; i++) out[n + i] = p.source[i] % V;
  else for (let i = 0; i < n; i++) out[n + i] = i % V; // (not pooled: each column its own word)
  return { data: out, cols: p.cols };
}

/** The k largest probabilities of each row of probs (T, V), largest first. */
export function topWords(probs: Float32Array, T: number, V: number, k: number): TopWords {
  const ids: number[] = [];
  const p: number[] = [];
  for (let t = 0; t < T; t++) {
    const row = probs.subarray(t * V, (t + 1) * V);
    for (const j of topK(row, k)) {
      ids.push(j);
      p.push(row[j]);
    }
  }
  return { k: Math.min(k, V), ids, p };
}

// indices of the k largest of row, largest first (the first of equal ones first)
function topK(row: Float32Array, k: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < row.length; j++) {
    if (out.length === k && row[j] <= row[out[k - 1]]) continue;
    let i = out.length;
    while (i > 0 && row[out[i - 1]] < row[j]) i--;
    out.splice(i, 0, j);
    if (out.length > k) out.pop();
  }
  return out;
}
