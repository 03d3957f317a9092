// What the lenses read: a forward's stages by id (TransformerLens' ActivationCache), and the model
// they came from. Every lens is written against the stage ids of the block graph (src/core/plan.ts),
// so it works for every architecture the graph describes.

import type { Model } from '../core/model';
import type { Stage } from '../core/stages';

export interface Run {
  readonly model: Model;
  /** A stage's numbers by id; throws for a stage the model does not have. */
  stage(id: string): Float32Array;
  has(id: string): boolean;
}

export function runOf(model: Model, stages: Iterable<Pick<Stage, 'id' | 'data'>>): Run {
  const by = new Map<string, Float32Array>();
  for (const s of stages) by.set(s.id, s.data);
  return {
    model,
    has: (id) => by.has(id),
    stage: (id) => {
      const d = by.get(id);
      if (!d) throw new LensError(`this model has no stage ${id}`);
      return d;
    },
  };
}

/** A lens that does not apply to this model, said plainly (shown as is: no stack trace). */
export class LensError extends Error {}

/** The token ids of a model whose input is tokens, else null. */
export function tokenIds(model: Model): readonly number[] | null {
  const e = model.spec.embedding;
  return e.kind === 'tokens' ? e.ids : null;
}

/** The same model on other tokens (same params, same settings; T follows the ids). */
export function withTokens(model: Model, ids: readonly number[]): Model {
  const e = model.spec.embedding;
  if (e.kind !== 'tokens') throw new LensError('this model reads vectors, not token ids');
  return { params: model.params, spec: { ...model.spec, T: ids.length, embedding: { ...e, ids: [...ids] } } };
}

// index of the largest of row (N) and the runner-up (ties: the smaller index first)
export function top2(row: ArrayLike<number>): [number, number] {
  let a = -1;
  let b = -1;
  for (let j = 0; j < row.length; j++) {
    const v = row[j];
    if (a < 0 || v > row[a]) {
      b = a;
      a = j;
    } else if (b < 0 || v > row[b]) b = j;
  }
  return [a, b];
}
