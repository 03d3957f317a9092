// The numbers of a model, by parameter id: `input`, `embed`, `pos`, `layers.2.attn.Wq`,
// `layers.2.ffn.b1`, `layers.2.ln1.gamma`, `ln_f.beta`, `head.W`, and the unit scales that
// `ablate`/`scale` set (`layers.2.ffn.units`, one per neuron; `layers.2.attn.units`, one per head).
// These are the ids the `weights` overrides of a checkpoint file name (without their [row]), the
// ids the reader binds each row of numbers in the text to, and the ids the block graph says each
// stage reads. A missing matrix is the identity (attention without matrices); a missing vector
// is zeros for a bias, ones for a gamma or a unit scale.

import type { Layout } from './spec';

export interface Param {
  readonly data: Float32Array;
  /** [rows, cols] of a matrix as stored, [n] of a vector. */
  readonly shape: readonly number[];
  /** How a matrix is stored: [out][in] (out_in, as torch.nn.Linear) or [in][out] (in_out, as GPT-2's Conv1D). */
  readonly layout?: Layout;
}

export type Params = ReadonlyMap<string, Param>;

/**
 * What changed in a stage or a param since the last run: nothing (null), everything ('all'), or
 * these columns of a stage / rows of a matrix param / elements of a vector param.
 */
export type Cols = ReadonlySet<number> | 'all' | null;

/** The params an edit changed, and how; the engine recomputes what reads them. */
export type ParamChanges = ReadonlyMap<string, Cols>;

export function unionCols(a: Cols, b: Cols): Cols {
  if (a === 'all' || b === 'all') return 'all';
  if (a === null) return b;
  if (b === null) return a;
  const out = new Set(a);
  for (const x of b) out.add(x);
  return out;
}

/** Adds `c` to the change already recorded for `id`. */
export function addChange(changes: Map<string, Cols>, id: string, c: Cols): void {
  changes.set(id, unionCols(changes.get(id) ?? null, c));
}
