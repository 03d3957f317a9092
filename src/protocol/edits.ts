// What the worker offers the editor to change a model file's text: quick fixes (as edits of
// offsets), the fix a problem hints at, completion items. Types only: src/model/ computes them,
// src/editor/ turns them into VS Code's.

export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export interface Fix {
  readonly title: string;
  readonly edits: readonly TextEdit[];
  /** The problem it fixes (its code and start), if it fixes one. */
  readonly fixes?: { readonly code: string; readonly start: number };
  readonly preferred?: boolean;
}

/** Data a quick fix needs; only where the fix is unambiguous. */
export type FixHint =
  | { kind: 'rename-key'; to: string }
  | { kind: 'set-layout'; to: 'out_in' | 'in_out' }
  | { kind: 'tokens-length'; expected: number }
  /** A vector of the wrong length: pad with `fill` (0 for biases, 1 for a LayerNorm gamma), or trim. */
  | { kind: 'vector-length'; expected: number; fill: number };

export interface CompletionItemData {
  readonly label: string;
  /** What to insert: `"key": ` with a value placeholder, or `"value"`. */
  readonly insert: string;
  readonly detail: string;
  readonly documentation: string;
}
