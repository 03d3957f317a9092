// Generation: tokens decoded one at a time after a model's input, each chosen from the head's
// logits at the last position (sampling.ts says exactly how) and fed back as the next input token.
// The model runs on the engine's append path (engine.ts, StageOp.append): a token appended to a
// causal input computes only its own row of every row-wise stage (its keys and values join the
// ones kept: the KV cache), with the same bits as the whole sequence computed afresh.
//
// Everything the model file edits (ablate, scale, weights) is part of the model's params, so it
// applies at every step. The seam for what later edits a run beyond its params (SAE splices,
// steering at positions): `grow` makes each step's model from the input's ids, the default keeping
// the spec as it is but for the tokens.

import type { Engine } from './engine';
import { STAGE } from './ids';
import type { Model } from './model';
import { rng } from './rng';
import { runTooLarge } from './runSize';
import { pickIndex, samplingProbs, topIds } from './sampling';
import type { ModelSpec } from './spec';
import type { Stage } from './stages';

export interface DecodeSettings {
  /** Tokens to generate. */
  readonly tokens: number;
  /** 0: greedy; above 0: a seeded draw among the top_k (sampling.ts). */
  readonly temperature: number;
  readonly topK: number;
  readonly seed: number;
}

/** One of a step's top_k candidates: `p` the head's probability (head.probs), `q` the draw's (sampled only). */
export interface Alternative {
  readonly id: number;
  readonly p: number;
  readonly q?: number;
}

export interface DecodedToken {
  /** 0 for the first token generated. */
  readonly index: number;
  readonly id: number;
  /** The candidates, largest logit first; the chosen one among them. */
  readonly top: readonly Alternative[];
  /** The step's run: every stage of the input so far (the chosen token not yet in it). */
  readonly stages: readonly Stage[];
}

export interface Decoding {
  readonly prompt: readonly number[];
  /** Without their stages (each step's run is held only by the token yielded). */
  readonly tokens: ReadonlyArray<Omit<DecodedToken, 'stages'>>;
  /** Fewer tokens than asked for: why (the model's positions ran out). */
  readonly note: string | null;
}

/** A step's model from the input's ids so far. */
export type Grow = (model: Model, ids: readonly number[]) => Model;

export class DecodeError extends Error {}

/** The model on other ids: the same params, the spec but for the tokens (no logit lens: generation reads the head alone). */
export const growIds: Grow = (model, ids) => {
  const e = model.spec.embedding;
  if (e.kind !== 'tokens') throw new DecodeError('generation needs a model that reads token ids (a checkpoint): this one reads vectors');
  const spec: ModelSpec = { ...model.spec, T: ids.length, embedding: { ...e, ids: [...ids] }, lens: false };
  return { params: model.params, spec };
};

export interface DecodeOptions {
  readonly grow?: Grow;
  /** Compute the whole sequence afresh at every step (what the cache is measured and tested against). */
  readonly recompute?: boolean;
  /** The positions the model has (null: no bound): generation stops where they end. */
  readonly maxPositions?: number | null;
}

/**
 * Generation a stage at a time: yields null after each stage computed (so a caller can read its
 * messages between two), and each token as it is chosen; returns the whole decoding.
 * `engine` should be one of generation's own: its last run becomes the decoded sequence's.
 */
export function* decode(engine: Engine, model: Model, settings: DecodeSettings, opts: DecodeOptions = {}): Generator<DecodedToken | null, Decoding, void> {
  const grow = opts.grow ?? growIds;
  const e = model.spec.embedding;
  if (e.kind !== 'tokens') throw new DecodeError('generation needs a model that reads token ids (a checkpoint): this one reads vectors');
  if (!model.spec.head) throw new DecodeError('generation needs a prediction head: this model has none');
  const prompt = [...e.ids];
  const ids = [...prompt];
  const { count, note } = howMany(model, prompt.length, settings.tokens, opts.maxPositions ?? null, grow);
  const draw = settings.temperature > 0 ? rng(settings.seed) : null;
  const tokens: Array<Omit<DecodedToken, 'stages'>> = [];
  for (let n = 0; n < count; n++) {
    const m = grow(model, ids);
    let stages: Stage[];
    if (opts.recompute) stages = engine.forwardOnce(m);
    else {
      const walk = engine.walk(m);
      for (;;) {
        const r = walk.next();
        if (r.done) {
          stages = r.value;
          break;
        }
        yield null;
      }
    }
    const token = choose(stages, m.spec, settings, draw, n);
    tokens.push({ index: token.index, id: token.id, top: token.top });
    ids.push(token.id);
    yield token;
  }
  return { prompt, tokens, note };
}

/** How many tokens fit: the positions bound them (input + tokens − 1 are read), and so does memory. */
function howMany(model: Model, T: number, asked: number, maxPositions: number | null, grow: Grow): { count: number; note: string | null } {
  let count = asked;
  let note: string | null = null;
  if (maxPositions !== null && T + count - 1 > maxPositions) {
    count = Math.max(0, maxPositions - T + 1);
    note = `the model has positions for ${maxPositions} tokens: generation stopped after ${count} of the ${asked} asked for`;
  }
  if (count > 0) {
    const longest = grow(model, new Array<number>(T + count - 1).fill(0));
    const tooLarge = runTooLarge(longest.spec);
    if (tooLarge) throw new DecodeError(`generating ${asked} tokens after ${T}: a run over ${T + count - 1} tokens ${tooLarge}; ask for fewer tokens`);
  }
  return { count, note };
}

/** The token chosen from the last row of a step's logits (sampling.ts), with its top_k. */
function choose(stages: readonly Stage[], spec: ModelSpec, s: DecodeSettings, draw: (() => number) | null, index: number): DecodedToken {
  const V = spec.head!.V;
  const row = (id: string): Float32Array => {
    const st = stages.find((x) => x.id === id);
    if (!st) throw new DecodeError(`the model computed no ${id}`);
    return st.data.subarray((spec.T - 1) * V, spec.T * V);
  };
  const logits = row(STAGE.logits);
  const probs = row(STAGE.probs);
  const cand = topIds(logits, s.topK);
  if (!draw) return { index, id: cand[0], top: cand.map((id) => ({ id, p: probs[id] })), stages };
  const q = samplingProbs(cand.map((id) => logits[id]), s.temperature);
  const pick = pickIndex(q, draw());
  return { index, id: cand[pick], top: cand.map((id, i) => ({ id, p: probs[id], q: q[i] })), stages };
}
