// The research lenses as the panel asks for them and the worker answers (src/lenses computes
// them): requests and results, plain data, imported with `import type` by the webview.

export type LensRequest =
  /** The logit lens grid: top k words per layer and token; a target word's probability and rank. */
  | { readonly kind: 'logitLens'; readonly k: number; readonly target: number | null }
  /** Direct logit attribution at a position for a target word, minus an alternative. */
  | { readonly kind: 'dla'; readonly pos: number | null; readonly target: number | null; readonly alt: number | 'second' | null }
  /** Head scores on the input; `repeat`: also on a random sequence of that many ids, repeated. */
  | { readonly kind: 'heads'; readonly repeat: number | null }
  /** Activation patching of the input's run into the corrupted input's (a long job: progress, cancel). */
  | { readonly kind: 'patch'; readonly target: number | null; readonly alt: number | null; readonly views: 'resid' | 'heads' }
  /** One SAE feature: its activation per token, the words it promotes and suppresses, its attribution at pos (null: the last) to target (null: the top prediction there). */
  | { readonly kind: 'saeFeature'; readonly site: string; readonly feature: number; readonly pos: number | null; readonly target?: number | null }
  /** How well the SAE at site reconstructs this run: the error's norm and the fraction of variance explained. */
  | { readonly kind: 'saeFit'; readonly site: string };

export type LensKind = LensRequest['kind'];

/** [id, probability] */
export type WordP = readonly [number, number];

export interface DlaPartView {
  readonly name: string;
  readonly kind: 'embed' | 'head' | 'bias' | 'mlp' | 'neuron';
  readonly layer: number;
  readonly unit: number;
  readonly value: number;
}

export type LensResult =
  | {
    readonly kind: 'logitLens';
    readonly L: number;
    readonly tokens: readonly string[];
    readonly target: number | null;
    /** [layer][token] */
    readonly cells: ReadonlyArray<ReadonlyArray<{ readonly top: readonly WordP[]; readonly target?: { readonly p: number; readonly rank: number } }>>;
    readonly words: Readonly<Record<number, string>>;
  }
  | {
    readonly kind: 'dla';
    readonly tokens: readonly string[];
    readonly pos: number;
    readonly target: number;
    readonly alt: number | null;
    readonly logitDiff: number;
    readonly constant: number;
    /** logitDiff − (Σ parts + constant): a final soft-cap's change (float rounding without one). */
    readonly remainder: number;
    /** Which parts are exact, and why. */
    readonly note: string;
    readonly parts: readonly DlaPartView[];
    /** [layer][head] */
    readonly heads: ReadonlyArray<readonly number[]>;
    /** The heads the model file switches off or scales (`ablate`, `scale`): `layers.2.attn.head.1` → what it does. */
    readonly editedHeads: Readonly<Record<string, string>>;
    readonly topNeurons: readonly DlaPartView[];
    /** The top predictions at pos, to pick a target from. */
    readonly predictions: readonly WordP[];
    readonly words: Readonly<Record<number, string>>;
  }
  | {
    readonly kind: 'heads';
    readonly tokens: readonly string[];
    /** [layer][head] */
    readonly prev: ReadonlyArray<readonly number[]>;
    readonly dup: ReadonlyArray<readonly number[]> | null;
    readonly induction: ReadonlyArray<readonly number[]> | null;
    readonly repeat: { readonly ids: readonly number[]; readonly induction: ReadonlyArray<readonly number[]> } | null;
    /** The attention weights of every head, [layer][head] → (T,T) row-major, for the hover's pattern. */
    readonly patterns: ReadonlyArray<ReadonlyArray<readonly number[]>> | null;
  }
  | {
    readonly kind: 'patch';
    readonly tokens: readonly string[];
    readonly corruptedTokens: readonly string[];
    readonly target: number;
    readonly alt: number | null;
    readonly words: Readonly<Record<number, string>>;
    readonly ldClean: number;
    readonly ldCorrupted: number;
    /** [layer][position] (null: this run patched the heads) */
    readonly resid: ReadonlyArray<readonly number[]> | null;
    /** [layer][head] */
    readonly heads: ReadonlyArray<readonly number[]> | null;
    readonly ms: number;
  }
  | SaeFeatureResult
  | {
    readonly kind: 'saeFit';
    readonly site: string;
    /** ‖x − recon‖ over every token and dimension. */
    readonly errorNorm: number;
    readonly tokenErrorNorms: readonly number[];
    /** 1 − Σ‖x − recon‖² / Σ‖x − mean_t x‖²; null for one token. */
    readonly varianceExplained: number | null;
    /** The model file's edits of this SAE's features: [feature, what] (`switched off (sae_ablate)` …). */
    readonly edits: ReadonlyArray<readonly [number, string]>;
  }
  /** The lens does not apply to this model (said plainly), or the model changed meanwhile. */
  | { readonly kind: 'error'; readonly lens: LensKind; readonly message: string };

/** One SAE feature as the panel and the hover show it (src/lenses/saeFeature.ts). */
export interface SaeFeatureResult {
  readonly kind: 'saeFeature';
  readonly site: string;
  readonly feature: number;
  /** `layers.12.sae.1234` */
  readonly id: string;
  readonly tokens: readonly string[];
  /** Its activation at each token. */
  readonly acts: readonly number[];
  readonly max: { readonly value: number; readonly pos: number };
  /** W_dec[f] · W_U: the top and bottom words, [id, logit weight]. */
  readonly promoted: ReadonlyArray<readonly [number, number]>;
  readonly suppressed: ReadonlyArray<readonly [number, number]>;
  /** How the words are read (the final norm's scale taken as 1), said plainly. */
  readonly wordsNote: string;
  /**
   * Its direct logit attribution at pos to target (the top prediction there unless one was asked
   * for), with the top predictions there to pick another from; or why there is none.
   */
  readonly dla: { readonly pos: number; readonly target: number; readonly value: number; readonly logitDiff: number; readonly rank: number; readonly active: number; readonly predictions: readonly number[] } | { readonly error: string };
  /** Its Neuronpedia page when the SAE names its release (cfg.json's neuronpedia_id), else null. */
  readonly neuronpedia: string | null;
  /** What the model file does to it (`held at 8 (sae_clamp)`), or null. */
  readonly edit: string | null;
  readonly words: Readonly<Record<number, string>>;
}
