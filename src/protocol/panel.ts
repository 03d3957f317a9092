// Messages between the extension host and the panel's webview, as discriminated unions.
// Both sides import this file with `import type` only: it holds no code, so the webview bundle
// never pulls in host modules (the markdown preview and the hex editor do the same).

export type ColormapSetting = 'coolwarm' | 'purple-orange' | 'viridis' | 'grayscale';
export type RangeSetting = 'perHeatmap' | 'perStageKind' | 'percentile';

export interface PanelSettings {
  readonly colormap: ColormapSetting;
  readonly range: RangeSetting;
  /** For range "percentile": clip at this percentile of |v| (e.g. 99). */
  readonly percentile: number;
  /** Larger stages are pooled (max |v|) down to this many rows and columns. */
  readonly maxRows: number;
  readonly maxCols: number;
}

export type { HighlightTarget, LayerSummary, ModelSummary, ProblemInfo, SummaryMessage } from './stages';
import type { HighlightTarget, ProblemInfo, SummaryMessage } from './stages';
import type { RenderMessage } from './stageMessages';
import type { LensKind, LensRequest, LensResult } from './lenses';
import type { GenerationMessage } from './generation';

/** Host → webview */
export type ToWebview =
  /**
   * (Re)start: forget any render; `uri` is the document shown (kept in the webview state for restore);
   * `gitHead`: the file as committed can be a baseline (VS Code's Git extension is there: not on vscode.dev).
   */
  | { readonly type: 'init'; readonly settings: PanelSettings; readonly uri: string; readonly gitHead: boolean }
  | { readonly type: 'settings'; readonly settings: PanelSettings }
  /** A new render begins: lay out these stages; keep showing the old numbers until new ones come. */
  /** (`trace`: the worker's, and when the host forwarded it) */
  | { readonly type: 'model'; readonly version: number; readonly summary: SummaryMessage; readonly warnings: readonly ProblemInfo[]; readonly trace?: readonly number[] }
  /** A stage's numbers (four encodings), the top words of render `version`, compare: the worker's messages as they are (src/protocol/stageMessages.ts). */
  | RenderMessage
  /** `kernel`: the matmul kernel the worker ran (wasm-simd, or ts where WebAssembly SIMD is missing). */
  | { readonly type: 'done'; readonly version: number; readonly ms: number; readonly kernel?: string }
  /** The text does not read as a model: keep the last good render, dimmed, and say why. */
  | { readonly type: 'problems'; readonly version: number; readonly problems: readonly ProblemInfo[] }
  /** The file is too large for VS Code to hand to extensions: the panel follows the file on disk. */
  | { readonly type: 'notice'; readonly text: string }
  /** Highlight a neuron (column of d_ff stages) or a token (row), from the editor's cursor. */
  | { readonly type: 'highlight'; readonly target: HighlightTarget | null; readonly writes?: { readonly shape: readonly number[]; readonly data: ArrayBuffer } }
  /** Scroll to this stage's card (opening its sections), now or as soon as it is drawn. */
  | { readonly type: 'focusStage'; readonly id: string }
  /** A lens the panel asked for (or patching, when its command ends), computed from `version`. */
  | { readonly type: 'lens'; readonly version: number; readonly result: LensResult }
  /** Open the lenses section at this tab. */
  | { readonly type: 'focusLens'; readonly kind: LensKind }
  /** Export: a stage's heatmap as PNG, its numbers as CSV or .npy, or the panel as an HTML report; answered by 'exported'. */
  | { readonly type: 'export'; readonly id: number; readonly kind: 'png' | 'csv' | 'npy' | 'report'; readonly stageId: string | null }
  /** How far the patching has got. */
  | { readonly type: 'lensProgress'; readonly done: number; readonly total: number }
  /**
   * Generation (src/protocol/generation.ts) as the worker posted it, of the document's `version`
   * (never older than the text shown; -1: it could not begin); `{event: 'off'}`: the file asks for
   * none (its "generate" key went), the view goes.
   */
  | GenerationMessage
  | { readonly type: 'generation'; readonly event: 'off' }
  /** Messages the host passed on at once (a worker's batch): each taken in turn. */
  | { readonly type: 'batch'; readonly messages: readonly ToWebview[] };

/** Webview → host */
export type FromWebview =
  | { readonly type: 'ready' }
  /** The panel lacks what a message took as held (the words of a layout whose summary it never got): everything again. */
  | { readonly type: 'resync' }
  /** Reveal in the editor the number(s) this cell comes from. */
  | { readonly type: 'reveal'; readonly stageId: string; readonly index: readonly number[] }
  | { readonly type: 'gotoProblem'; readonly line: number; readonly col: number }
  /** Sent after each drawn render: which version is on screen (tests read it). */
  | { readonly type: 'rendered'; readonly version: number; readonly stages: number; readonly ms: number }
  /** The panel's colormap / range controls write the user settings. */
  | { readonly type: 'setSetting'; readonly key: 'colormap' | 'colorRange'; readonly value: string }
  /** The stages the panel shows now (open sections, the overview, the prediction); null: all. Only these are sent. */
  | { readonly type: 'want'; readonly ids: readonly string[] | null; readonly cols: number }
  /** Compute a lens of the current run (src/protocol/lenses.ts). */
  | { readonly type: 'lens'; readonly request: LensRequest }
  /** A head or neuron clicked in a lens (`layers.3.attn.head.5`): offer to ablate or scale it. */
  | { readonly type: 'unit'; readonly text: string }
  /** A card's export button (the SAE card's "Export all activations"): the export command for that stage. */
  | { readonly type: 'exportStage'; readonly stageId: string; readonly kind: 'npy' | 'csv' }
  /** The patching tab's button: run "FFN Lens: Activation Patching" for this panel's document. */
  | { readonly type: 'runPatching'; readonly views: 'resid' | 'heads' }
  /** The header's "Compare with" control. */
  | { readonly type: 'compare'; readonly kind: 'none' | 'plain' | 'head' | 'file' | 'unsteered' }
  /** The generation's Cancel (on: false), or Generate again (on: true). */
  | { readonly type: 'generate'; readonly on: boolean }
  /**
   * An alternative clicked: continue the input of `version` with these tokens (those generated
   * before the step, then the alternative), `ids` into "token_ids" or their `texts` into "prompt".
   */
  | { readonly type: 'branch'; readonly version: number; readonly ids: readonly number[]; readonly texts: readonly string[] }
  /** A generated token picked (on: the heatmaps show the input and the tokens generated in `version`'s run), or unpicked (off: the input's run). */
  | { readonly type: 'showGenerated'; readonly version: number; readonly on: boolean }
  /** The bytes of an export (null: it failed, `error` says why; `pooled`: this panel holds the stage pooled, the worker has its numbers). */
  | { readonly type: 'exported'; readonly id: number; readonly bytes: ArrayBuffer | null; readonly error?: string; readonly pooled?: true };
