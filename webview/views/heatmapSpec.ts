// What a heatmap on screen (heatmapView.ts) is given: its numbers with their labels and words, and
// how to paint them.
import type { Backdrop, ColormapName } from '../heatmap';

export interface HeatmapSpec {
  readonly data: Float32Array;
  readonly rows: number;
  readonly cols: number;
  readonly rowLabels: readonly string[];
  /** Words for the columns (keys, vocabulary), or null for indices. */
  readonly colLabels: readonly string[] | null;
  readonly colAxis: string;
  readonly mask?: Uint8Array;
  /** Lines of the tooltip for a cell (row, col of the source matrix). */
  readonly describe: (row: number, col: number, value: number, masked: boolean) => string[];
  readonly onClick?: (row: number, col: number) => void;
  readonly ariaLabel: string;
  /**
   * The columns are blocks of a stage this many columns wide, pooled before they came (a stage
   * across the vocabulary: src/worker/vocabStages.ts): column c covers floor(c·colsOf/cols) ….
   * Ticks, the pooled note and the tooltip's block then count in the stage's columns.
   */
  readonly colsOf?: number;
}

/** The first column of the stage in column c of a matrix pooled from it (src/common/pool.ts' rule). */
export function sourceCol(s: HeatmapSpec, c: number): number {
  return s.colsOf ? Math.floor((c * s.colsOf) / s.cols) : c;
}

export interface Paint {
  readonly colormap: ColormapName;
  readonly backdrop: Backdrop;
  readonly range: readonly [number, number];
  readonly maxRows: number;
  readonly maxCols: number;
}
