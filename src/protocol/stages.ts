// The stage and model descriptions that travel between the compute worker, the extension host and
// the panel's webview. Types only: every side imports them with `import type`. A stage's view and
// the parameter counts are core's (the plan describes each stage); they travel as they are.
// Dimensions on the wire are named as in src/core/spec.ts (its dimension key): T tokens, C d_model,
// F d_ff, NH heads, KVH key/value heads, V vocabulary; what a person reads (d_model, d_ff) is the
// panel's wording, not the wire's.

import type { ParamCounts } from '../core/paramCounts';
import type { StageView } from '../core/stageView';

export type { AxisKind, StageGroup, StageView } from '../core/stageView';
export type { ParamCounts } from '../core/paramCounts';
export type { StageQuote, StageShow } from '../core/stageShow';

export interface LayerSummary {
  readonly attention: {
    readonly NH: number;
    readonly KVH: number;
    readonly causal: boolean;
    readonly rope: boolean;
    /** Projections the file leaves out (the identity). */
    readonly identity: readonly string[];
  } | null;
  readonly ffn: { readonly activation: string; readonly F: number; readonly gated: boolean } | null;
}

/** What the panel needs to lay itself out before any number arrives. */
export interface ModelSummary {
  readonly name: string;
  readonly tokens: readonly string[];
  readonly vocab: readonly string[];
  readonly T: number;
  readonly C: number;
  readonly layout: 'out_in' | 'in_out';
  readonly norm: 'none' | 'pre' | 'post';
  readonly normKind: 'layernorm' | 'rmsnorm';
  readonly residual: boolean;
  readonly positional: 'none' | 'sinusoidal' | 'learned';
  readonly finalNorm: boolean;
  readonly layers: readonly LayerSummary[];
  readonly head: { readonly temperature: number; readonly V: number } | null;
  readonly params: ParamCounts;
  /** Every stage, in computation order. */
  readonly stages: readonly StageView[];
  /**
   * Which dims of each of `stages`' shapes are T, a bitmask per stage (bit d: shape[d] is T), so
   * that the plan at another T is these dims set to it (src/core/stageView.ts's stagesAtT).
   */
  readonly tokenDims: readonly number[];
  /**
   * Changes exactly when the panel's layout does (another set of stages or shapes, other tokens
   * or words): the panel keeps its cards while it stays the same.
   */
  readonly layoutKey: number;
  /** Changes exactly when the words (`vocab`) do: a summary sent without them has those of the last one with this key. */
  readonly vocabKey: number;
  /**
   * Changes exactly when `stages` (the plan as the panel reads it) does but for their dims that are
   * T (`tokenDims`): a summary sent without them has those of the last one with this key, those
   * dims set to its own T. A prompt typed keeps it.
   */
  readonly planKey: number;
  /**
   * A run of the input followed by the tokens generated from it (ToWorker `showGenerated`): its
   * first `input` rows are the input's, the rest the generated tokens', in the order chosen.
   */
  readonly generated?: { readonly input: number };
}

/** A problem as the panel lists it. */
export interface ProblemInfo {
  readonly severity: 'error' | 'warning';
  readonly code: string;
  readonly message: string;
  readonly path: string;
  /** 1-based, for display. */
  readonly line: number;
  readonly col: number;
}

/** Highlight a neuron (column of d_ff stages), a token (row) or a dimension, from the editor's cursor. */
export type HighlightTarget =
  | { readonly kind: 'neuron'; readonly layer: number; readonly index: number }
  | { readonly kind: 'token'; readonly index: number }
  | { readonly kind: 'dim'; readonly layer: number; readonly index: number };

/**
 * A ModelSummary on its way from the worker to the panel, its two large parts sent only when the
 * panel lacks them: `vocab` is null when it is the one of the last summary sent to that panel with
 * the same `vocabKey` (GPT-2's 50,257 words go once, not with every edit of its prompt: ~0.5 MB of
 * strings cloned and serialized on the extension host's thread), `stages` null when they are those
 * of the last summary with the same `planKey` at this T (GPT-2-small's plan: ~63 KB of JSON, the
 * same after an edit of a weight, an override, a token or a prompt typed). A panel that lacks them asks for everything again.
 */
export type SummaryMessage = Omit<ModelSummary, 'vocab' | 'stages' | 'tokenDims'> & {
  readonly vocab: readonly string[] | null;
  /** (at this summary's T; null: the last summary's of this planKey, its dims that are T set to this T) */
  readonly stages: readonly StageView[] | null;
  /** With `stages`; null when they are null. */
  readonly tokenDims: readonly number[] | null;
};


/** The k most probable next words of every token, most probable first: ids and p are [T][k] flattened. */
export interface TopWords {
  readonly k: number;
  readonly ids: readonly number[];
  readonly p: readonly number[];
}
