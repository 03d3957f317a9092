// The messages of a render's stages, each defined once: the worker posts them (with the document
// they are of: `ForDoc`), the host checks their version and passes them on as they are, the
// webview takes them (src/protocol/worker.ts's FromWorker and panel.ts's ToWebview both list
// these). Types only.
import type { TopWords } from './stages';

/**
 * Numbers of a stage: floats offset … offset + their count of `total`. A large stage comes in
 * pieces of at most STAGE_PIECE floats (src/worker/stagePublisher.ts), sized for the webview, so
 * that no single postMessage holds the editor's thread for long. `pooled` (a stage across a
 * vocabulary wider than the panel draws, shape [rows, V]): the numbers are [rows][pooled] values,
 * each the one of largest |v| of its block of words (the panel's own pooling rule:
 * src/common/pool.ts), then [rows][pooled] word ids of those values.
 */
export interface WholeStage {
  readonly type: 'stage';
  readonly version: number;
  readonly id: string;
  readonly shape: readonly number[];
  readonly data: ArrayBuffer;
  readonly offset: number;
  readonly total: number;
  readonly pooled?: number;
  /**
   * Why it comes whole, where the panel may hold numbers of it (tests name it when a render they
   * expect incremental is not): 'computed' (the engine computed it anew) or 'unheld' (the worker
   * does not know the panel to hold them).
   */
  readonly why?: 'computed' | 'unheld';
}

/**
 * Only these columns (last axis) of a stage changed since the numbers the panel holds of it, those
 * sent in version `base`: `data` holds them, row by row ([rows][cols.length]). A panel that holds
 * other numbers asks for everything again ('resync').
 */
export interface StageCols {
  readonly type: 'cols';
  readonly version: number;
  readonly id: string;
  readonly shape: readonly number[];
  readonly cols: readonly number[];
  readonly data: ArrayBuffer;
  readonly base: number;
}

/**
 * The rows of a stage [rows, width] from `from` on (`data`: [rows − from][width], or pooled as a
 * WholeStage's `pooled`: [rows − from][pooled] values then their word ids); the rows before are
 * those of the numbers the panel holds of it, sent in version `base` (a prompt typed: the tokens
 * kept compute the same rows). A panel that holds other numbers asks for everything again.
 */
export interface StageRows {
  readonly type: 'rows';
  readonly version: number;
  readonly id: string;
  readonly shape: readonly number[];
  readonly from: number;
  readonly data: ArrayBuffer;
  readonly base: number;
  readonly pooled?: number;
}

/** This stage holds the very numbers of stage `of` of the same version (`layers.i.out`, `output`). */
export interface SameStage { readonly type: 'same'; readonly version: number; readonly id: string; readonly of: string }

/** This stage of `version` holds the numbers sent in version `base` (not sent again): keep them, now current. */
export interface KeptStage { readonly type: 'kept'; readonly version: number; readonly id: string; readonly base: number }

/** A stage's numbers, in one of its five encodings. */
export type StageMessage = WholeStage | StageCols | StageRows | SameStage | KeptStage;

/** The prediction of the stage head.probs just posted: its top words of every token (the panel's chart reads these). */
export interface TopMessage { readonly type: 'top'; readonly version: number; readonly top: TopWords }

/**
 * The stages of `version` that follow are differences from this baseline (label null: compare is
 * off; version −1, from the host: the choice was cancelled). `incomparable`: stages the baseline
 * has in another shape (or lacks), sent as they are. `top`: the baseline's top words per token.
 */
export interface CompareMessage {
  readonly type: 'compare';
  readonly version: number;
  readonly label: string | null;
  readonly error: string | null;
  readonly incomparable: readonly string[];
  readonly top: TopWords | null;
}

/** What the host passes on to the webview as it is: the stages, the prediction's top words, compare. */
export type RenderMessage = StageMessage | TopMessage | CompareMessage;

/** A worker's message about one document: the host routes it by `doc` (the webview ignores it). */
export type ForDoc<M> = M & { readonly doc: string };
