// Generation as the worker reports it (src/worker/generationJob.ts) and a panel shows it: the
// input's tokens, then each token as it is chosen with its top_k alternatives, then the end. Types
// only; the exact choice is src/core/sampling.ts's.

/** A token with its text (its bytes decoded; a piece of a character as U+FFFD; `#id` without a tokenizer). */
export interface TokenText {
  readonly id: number;
  readonly text: string;
}

/** One of a step's top_k: `p` the head's probability (head.probs), `q` the draw's (sampled only). */
export interface GeneratedAlternative extends TokenText {
  readonly p: number;
  readonly q?: number;
}

export interface GeneratedToken extends TokenText {
  /** 0 for the first token generated. */
  readonly index: number;
  /** Largest logit first; the chosen token is among them. */
  readonly top: readonly GeneratedAlternative[];
}

export interface GenerationSettings {
  readonly tokens: number;
  /** 0: greedy. */
  readonly temperature: number;
  readonly topK: number;
  readonly seed: number;
}

/** Why a generation ended. `changed`: the file was edited (the next is on its way, as its run ends). */
export type GenerationEnd = 'done' | 'cancelled' | 'changed' | 'error';

/** Worker → host, for document `doc` at `version` (the model file's text it generates from). */
export type GenerationMessage =
  | { readonly type: 'generation'; readonly event: 'start'; readonly doc: string; readonly version: number; readonly settings: GenerationSettings; readonly prompt: readonly TokenText[]; readonly total: number }
  /** A token chosen: `done` of `total` so far (the progress). */
  | { readonly type: 'generation'; readonly event: 'token'; readonly doc: string; readonly version: number; readonly token: GeneratedToken; readonly done: number; readonly total: number }
  /** `message`: why it failed (error); `note`: fewer tokens than asked for (the positions ran out); `text`: all generated tokens decoded together. */
  | { readonly type: 'generation'; readonly event: 'end'; readonly doc: string; readonly version: number; readonly reason: GenerationEnd; readonly message: string | null; readonly note: string | null; readonly text: string; readonly ms: number };
