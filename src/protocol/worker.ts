// Messages between the extension host and the compute worker (a worker thread, so parsing and
// the forward pass never block the editor). Documents are named by their URI string; every
// result carries the document version it was computed from.

import type { CompletionItemData, Fix, FixHint } from './edits';
import type { HighlightTarget, ProblemInfo, SummaryMessage } from './panel';
import type { CompareMessage, ForDoc, StageMessage, TopMessage } from './stageMessages';
import type { LensRequest, LensResult } from './lenses';
import type { GenerationMessage } from './generation';

/** Where a file is, as src/checkpoint/files.ts's Located says. */
export type FsLocated =
  | { readonly kind: 'found'; readonly root: string; readonly real: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'link'; readonly at: string };

/** A VS Code code lens (the line above a part of the model file): its range in the text and its title. */
export interface CodeLens {
  readonly start: number;
  readonly end: number;
  readonly title: string;
  /** Open the panel at this stage (the lens above "ffn": its up-projection). */
  readonly visualize?: string;
}

/** Where the cursor is, as the panel highlights it. */
export interface CursorTarget {
  readonly target: HighlightTarget;
  /** For a neuron: what it writes into each token's output, act[:, j] · W2[:, j]ᵀ, (T,C). */
  readonly writes?: { readonly data: Float32Array; readonly shape: readonly number[] };
}

export interface TextChange {
  readonly offset: number;
  readonly length: number;
  readonly text: string;
}

/** What the panel compares the document with (see src/worker/baseline.ts). */
export type CompareSpec =
  | { readonly kind: 'plain' }
  /** The same file without its `steer`: the steered and unsteered predictions side by side. */
  | { readonly kind: 'unsteered' }
  | { readonly kind: 'text'; readonly label: string; readonly text: string; readonly fileName: string };

/** Host → worker */
export type ToWorker =
  /**
   * `sniffed`: tracked only because its text mentions "version": 1 and "ffn"/"attention"/"layers";
   * the worker confirms from the parsed top level, or answers `notModel`.
   */
  | { readonly type: 'open'; readonly doc: string; readonly fileName: string; readonly version: number; readonly text: string; readonly sniffed?: boolean }
  /** Deltas in order, each relative to the text after the previous one; `length` is the text length after all. */
  /** (`at`: the host's Date.now() when it sent the change: the benchmark's split of keystroke → pixels) */
  | { readonly type: 'change'; readonly doc: string; readonly version: number; readonly changes: readonly TextChange[]; readonly length: number; readonly at?: number }
  /**
   * The worker reads the file from disk: a file VS Code does not hand to extensions (over 50 MB,
   * kept as bytes), or a large saved document (`asDocument`: then decoded as VS Code shows it and
   * edited by deltas afterwards), which spares the editor's thread copying its whole text over.
   */
  | { readonly type: 'openFile'; readonly doc: string; readonly path: string; readonly version: number; readonly asDocument?: boolean; readonly sniffed?: boolean }
  /** The file changed on disk (saved): read it again. */
  | { readonly type: 'reloadFile'; readonly doc: string; readonly version: number }
  | { readonly type: 'close'; readonly doc: string }
  /** Stream stages of this document (a panel shows it), or stop. */
  | { readonly type: 'subscribe'; readonly doc: string; readonly on: boolean }
  /**
   * The stages the panel shows (null: all): only these are sent, and one becoming wanted is sent at
   * once. `cols`: the most columns the panel draws of a heatmap (a stage across the vocabulary wider
   * than that is sent pooled to it).
   */
  | { readonly type: 'want'; readonly doc: string; readonly ids: readonly string[] | null; readonly cols: number }
  /** The panel drew the render of `version`, or never will (the host dropped it as stale): the next may go out (src/worker/outbox.ts). */
  | { readonly type: 'drawn'; readonly doc: string; readonly version: number }
  /**
   * Settings, and Workspace Trust: `restrictedTo` the workspace's folders in Restricted Mode
   * (checkpoints and tokenizers outside them are refused), absent or null when trusted.
   */
  | { readonly type: 'config'; readonly debounceMs: number; readonly restrictedTo?: readonly string[] | null; /** ffnLens.threads: 0 every core */ readonly threads?: number }
  | { readonly type: 'query'; readonly id: number; readonly doc: string; readonly query: Query }
  /** Show the document's stages as differences from a baseline (null: as they are). */
  | { readonly type: 'compare'; readonly doc: string; readonly baseline: CompareSpec | null }
  /**
   * The host's answer to a worker's `fs` request: a size (null: no such file), bytes, where a name
   * is (src/checkpoint/files.ts's Located), or an error. A read sent in parts (`fsData`) ends with
   * an fsReply that has its size and no bytes.
   */
  | { readonly type: 'fsReply'; readonly id: number; readonly size?: number | null; readonly bytes?: ArrayBuffer; readonly located?: FsLocated; readonly error?: string }
  /** A part of a large file being read (bytes [at, at + bytes.byteLength) of `total`), in order, transferred. */
  | { readonly type: 'fsData'; readonly id: number; readonly at: number; readonly total: number; readonly bytes: ArrayBuffer }
  /** Stop a long query (patching) early: its reply comes at once. */
  | { readonly type: 'cancel'; readonly id: number }
  /** Stop reading the checkpoint at `folder` (as `checkpointRead` names it): what was read is let go, and the files that name it say so. */
  | { readonly type: 'cancelRead'; readonly folder: string }
  /** Read the checkpoints whose reading was cancelled again, when next asked for (the command; an edit of the file does it too). */
  | { readonly type: 'retryReads' }
  /**
   * Generate after the document's input as its "generate" says (on), now and again after each
   * edit, once the edited text's run ends; or stop (off: Cancel). Reported as `generation` messages.
   */
  | { readonly type: 'generate'; readonly doc: string; readonly on: boolean }
  /**
   * The panel shows the run of the input followed by the tokens its generation of `version` chose
   * (on: each generated token's stages, a row each), or the input's run again (off). Sent as a
   * render of `version` (model, stages, done) whose summary says `generated`; nothing while that
   * generation has not ended or the text changed since.
   */
  | { readonly type: 'showGenerated'; readonly doc: string; readonly version: number; readonly on: boolean };

export type Query =
  | { readonly kind: 'locate'; readonly stageId: string; readonly index: readonly number[] }
  | { readonly kind: 'hover'; readonly offset: number }
  | { readonly kind: 'codeLenses' }
  | { readonly kind: 'cursor'; readonly offset: number }
  | { readonly kind: 'fixes'; readonly start: number; readonly end: number }
  | { readonly kind: 'text-length' }
  | { readonly kind: 'complete'; readonly offset: number }
  /** The unit (a neuron, a head) a cell of a checkpoint file's stage belongs to: what the panel can switch off. */
  | { readonly kind: 'unit'; readonly stageId: string; readonly index: readonly number[] }
  /** The compute worker's matmul speed (32×768×3072, its own kernel): "FFN Lens: Measure Compute Speed". Any document. */
  | { readonly kind: 'speed' }
  /** Every number of a stage of the current run (an export of a stage the panel holds pooled). */
  | { readonly kind: 'stage'; readonly stageId: string }
  /**
   * A research lens of the current run (src/protocol/lenses.ts: the logit lens, attribution, head
   * scores, patching); patching reports progress and can be cancelled. ("lens" is only ever these;
   * VS Code's are code lenses.)
   */
  | { readonly kind: 'lens'; readonly request: LensRequest };

/** 1-based line and column of the start and end of a range (UTF-16 code units, as VS Code counts). */
export interface LineCol { readonly line: number; readonly col: number; readonly endLine: number; readonly endCol: number }

/** A text range to reveal, as offsets and lines; `what` says in words what it is. */
export interface Located extends LineCol { readonly start: number; readonly end: number; readonly what: string }

export type QueryResult =
  | { readonly kind: 'locate'; readonly version: number; readonly located: Located | null }
  | { readonly kind: 'hover'; readonly version: number; readonly hover: { readonly markdown: string; readonly start: number; readonly end: number } | null }
  // (`stale`: the counts are of an earlier run than `version`'s, which is under way: the host waits for it)
  | { readonly kind: 'codeLenses'; readonly version: number; readonly codeLenses: readonly CodeLens[]; readonly stale?: boolean }
  | { readonly kind: 'cursor'; readonly version: number; readonly cursor: CursorTarget | null }
  | { readonly kind: 'fixes'; readonly version: number; readonly fixes: readonly Fix[] }
  | { readonly kind: 'text-length'; readonly version: number; readonly length: number }
  | { readonly kind: 'complete'; readonly version: number; readonly items: readonly CompletionItemData[] }
  | { readonly kind: 'unit'; readonly version: number; readonly unit: CellUnit | null }
  | { readonly kind: 'lens'; readonly version: number; readonly result: LensResult }
  | { readonly kind: 'stage'; readonly version: number; readonly shape: readonly number[]; readonly data: ArrayBuffer; readonly tokens: readonly string[] } | { readonly kind: 'stage'; readonly version: number; readonly error: string }
  | { readonly kind: 'speed'; readonly version: number; readonly kernel: string; readonly fused: boolean; readonly threads: number; readonly gflops: number; readonly shape: readonly [number, number, number]; /** why one thread, where that is the platform's limit */ readonly note?: string };

/** A neuron or head of a checkpoint's model; `w1`: a neuron's input weights (out_in row of W1), to copy and edit. */
export interface CellUnit {
  readonly text: string;
  readonly kind: 'neuron' | 'head';
  readonly layer: number;
  readonly index: number;
  readonly w1: readonly number[] | null;
}

export interface WorkerProblem extends ProblemInfo, LineCol {
  readonly start: number;
  readonly end: number;
  readonly fix?: FixHint;
}

/**
 * A large checkpoint's weights being read (src/checkpoint/readProgress.ts): `reading` as each
 * percent passes, then one end state. `done`/`total`: bytes of the tensors read / to read.
 */
export interface CheckpointRead {
  readonly type: 'checkpointRead';
  /** The folder, absolute, as the worker names files (the store's key). */
  readonly folder: string;
  readonly done: number;
  readonly total: number;
  readonly state: 'reading' | 'read' | 'cancelled' | 'failed';
}

/** Where a checkpoint's read was cancelled (a model message's `readCancelled`). */
export interface ReadCancelledAt {
  readonly what: string;
  readonly folder: string;
  readonly done: number;
  readonly total: number;
}

/** Worker → host */
export type FromWorker =
  /**
   * `trace` (the benchmark's split of keystroke → pixels; Date.now() of each step, one clock on one
   * machine): the host sent the change, the worker took it, its run began, this message was posted.
   */
  /** `readCancelled`: the read of the checkpoint the file names (`what`, as it names it) was cancelled there: the panel says so, whenever it opened. */
  | { readonly type: 'model'; readonly doc: string; readonly version: number; readonly problems: readonly WorkerProblem[]; readonly summary: SummaryMessage | null; readonly trace?: readonly number[]; readonly readCancelled?: ReadCancelledAt }
  /** A stage's numbers in one of their four encodings, the prediction's top words (src/protocol/stageMessages.ts). */
  | ForDoc<StageMessage>
  | ForDoc<TopMessage>
  | { readonly type: 'done'; readonly doc: string; readonly version: number; readonly ms: { readonly parse: number; readonly forward: number }; readonly kernel?: string }
  /**
   * A checkpoint (or tokenizer) the file names is being read: the numbers come when it is in.
   * `folder`: the checkpoint's folder as `checkpointRead` names it (absolute), when known.
   */
  | { readonly type: 'loading'; readonly doc: string; readonly version: number; readonly what: string; readonly folder?: string }
  /** How far the read of a large checkpoint's weights has got (bytes of its tensors), for every file that names it. */
  | CheckpointRead
  /** A file could not be read from disk. */
  | { readonly type: 'fileError'; readonly doc: string; readonly message: string }
  /** Warnings only the computed stages can give (dead neurons, NaN, empty attention rows). */
  | { readonly type: 'runtime'; readonly doc: string; readonly version: number; readonly problems: readonly WorkerProblem[] }
  | { readonly type: 'resync'; readonly doc: string; readonly reason: string }
  /** A sniffed document's top level is not a model's after all: the host stops tracking it. */
  | { readonly type: 'notModel'; readonly doc: string; readonly version: number }
  | { readonly type: 'reply'; readonly id: number; readonly result: QueryResult | null }
  | ForDoc<CompareMessage>
  /**
   * In the web worker host the worker has no file system: it asks the host (vscode.workspace.fs)
   * for a file's size or its bytes, by path (the document's fileName style).
   */
  /**
   * `limit` (a read): the most bytes the worker can hold; a larger file is not sent, its reply is
   * the error 'TooLarge' with its size (the file comes whole: its memory is the worker's).
   */
  | { readonly type: 'fs'; readonly id: number; readonly op: 'size' | 'read'; readonly path: string; readonly limit?: number }
  /** Where `name` under the folder `path` is: the host checks each part of the way for a symbolic link. */
  | { readonly type: 'fs'; readonly id: number; readonly op: 'locate'; readonly path: string; readonly name: string }
  /** How far a long query (patching) has got. */
  | { readonly type: 'progress'; readonly id: number; readonly done: number; readonly total: number }
  /** Generation (ToWorker `generate`): its start, each token with its top_k, its end (src/protocol/generation.ts). */
  | GenerationMessage
  | { readonly type: 'log'; readonly message: string }
  /**
   * A run's messages that went out at once (held in a burst, or waiting for the panel: outbox.ts),
   * as one message: the host passes its panel's part on as one too (each message through VS Code's
   * channel to the webview is a task or three on the window's thread).
   */
  | { readonly type: 'batch'; readonly messages: readonly FromWorker[] };
