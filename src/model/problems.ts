// What the reader reports: errors (no model can be built) and warnings (legal but suspicious),
// each with its JSON path and the offsets of the text it is about.

import { QUOTE_MAX, quoteBare } from '../common/quote';
import type { FixHint } from '../protocol/edits';

export type Severity = 'error' | 'warning';

export type ProblemCode =
  | 'syntax'          // not JSON (with comments)
  | 'type'            // a value of the wrong type
  | 'missing'         // a required key is absent
  | 'value'           // right type, not an allowed value
  | 'ragged'          // matrix rows of different lengths
  | 'shape'           // a matrix or vector that does not fit the model's dimensions
  | 'layout'          // a matrix that fits only in the other layout
  | 'heads'           // heads does not divide d_model
  | 'nonfinite'       // NaN, Infinity where a number belongs
  | 'overflow'        // a number too large for float32
  | 'tokens-length'   // tokens list not as long as input
  | 'unknown-key'     // a key the format does not have
  | 'ignored-weights' // an unknown key holding numbers: weights the model is computed without (a warning the panel shows loudly)
  | 'ignored-edit' // a misspelled "ablate", "scale", "lens"…: an experiment the model is computed without (shown as loudly)
  | 'duplicate-key'
  | 'unused'          // present but without effect (ln1 with norm "none", Wg without gating)
  | 'internal';       // a bug of ours, said plainly

export type PathSegment = string | number;

export interface Problem {
  readonly severity: Severity;
  readonly code: ProblemCode;
  readonly message: string;
  readonly path: readonly PathSegment[];
  readonly start: number;
  readonly end: number;
  readonly fix?: FixHint;
}

/** `layers[0].ffn.W1[3][2]`; the root is `$`. */
export function formatPath(path: readonly PathSegment[]): string {
  if (path.length === 0) return '$';
  let s = '';
  for (const seg of path) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(seg) && seg.length <= QUOTE_MAX) s += s === '' ? seg : `.${seg}`;
    else s += `[${quoteBare(seg)}]`; // (visible and short, whatever the key holds)
  }
  return s;
}
