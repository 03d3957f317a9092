// Activation patching (Meng et al. 2022; Wang et al. 2022; TransformerLens' patching module): run
// the model on a corrupted prompt, put back one activation from the clean run, and measure how
// much of the clean answer returns, as the share of the logit difference recovered:
//   LD(run)  = logit[T−1, target] − logit[T−1, alt]        (alt: none → logit[T−1, target])
//   share    = (LD(patched) − LD(corrupted)) / (LD(clean) − LD(corrupted))   1 = all of it back
// Two views: the residual stream entering each layer at each position (resid_pre: `input` for
// layer 0, `layers.{l−1}.out` after: the stream the layer's first stages read, whether its two
// sublayers then read it in turn or in parallel, gpt_neox's), and each head's output at every
// position (its columns of `attn.context`, whatever follows: a post-norm, a parallel residual).
// Each patch recomputes only what reads the patched stage, from the patched row on
// (Engine.patched); a step at a time, so the caller can report progress and cancel.

import type { Engine } from '../core/engine';
import type { Model } from '../core/model';
import { PARAM, STAGE, stageId } from '../core/ids';
import { softcap } from '../core/softcap';
import { LensError, top2, tokenIds } from './cache';
import { weightAt } from './weights';

export interface PatchOptions {
  /** Default: the clean run's top word at the last position. */
  readonly target?: number;
  /** Default: the corrupted run's top word, when it differs from the target; null: none. */
  readonly alt?: number | null;
  /** Which views: the residual stream by layer × position, each head's output, or both (default). */
  readonly views?: 'resid' | 'heads' | 'both';
}

export interface Patching {
  readonly target: number;
  readonly alt: number | null;
  readonly ldClean: number;
  readonly ldCorrupted: number;
  /** [layer][position]: share recovered patching resid_pre of the layer at the position (null: not asked). */
  readonly resid: number[][] | null;
  /** [layer][head]: share recovered patching the head's output at every position (null: not asked). */
  readonly heads: number[][] | null;
}

export interface PatchProgress {
  readonly done: number;
  readonly total: number;
}

/** The patching of `clean` into `corrupted`: a step per patch; the result when the generator returns. */
export function* activationPatching(engine: Engine, clean: Model, corrupted: Model, opts: PatchOptions = {}): Generator<PatchProgress, Patching> {
  const { spec } = clean;
  const a = tokenIds(clean);
  const b = tokenIds(corrupted);
  if (!spec.head) throw new LensError('patching measures the logits: this model has no "head"');
  if (!a || !b) throw new LensError('patching compares two prompts: this model reads vectors, not tokens');
  if (a.length !== b.length) throw new LensError(`the corrupted prompt has ${b.length} tokens, the clean one ${a.length}: patching needs the same length (position by position)`);
  const { T } = spec;
  const V = spec.head.V;
  const L = spec.layers.length;
  const last = (logits: Float32Array): Float32Array => logits.subarray((T - 1) * V, T * V);

  const withResid = (opts.views ?? 'both') !== 'heads';
  const withHeads = (opts.views ?? 'both') !== 'resid';
  const headCount = spec.layers.reduce((n, l) => n + (l.attention ? l.attention.NH : 0), 0);
  const total = 2 + (withResid ? L * T : 0) + (withHeads ? headCount : 0);
  let done = 0;
  // (a step after each full run too: the worker answers its other messages between steps)
  const cleanStages = new Map(engine.run(clean).map((s) => [s.id, s.data]));
  yield { done: ++done, total };
  const corruptStages = new Map(engine.run(corrupted).map((s) => [s.id, s.data]));
  yield { done: ++done, total };
  const cleanLast = last(cleanStages.get(STAGE.logits)!);
  const corruptLast = last(corruptStages.get(STAGE.logits)!);
  const target = opts.target ?? top2(cleanLast)[0];
  let alt = opts.alt === undefined ? top2(corruptLast)[0] : opts.alt;
  if (alt === target) alt = null;
  for (const w of alt === null ? [target] : [target, alt]) {
    if (!Number.isInteger(w) || w < 0 || w >= V) throw new LensError(`word ${w} is outside the vocabulary 0…${V - 1}`);
  }
  // The metric from the last row of `output` (the final norm's), read along the head's two words
  // (each soft-capped as head.logits is, where the model caps its logits):
  // the head's matmul over the whole vocabulary for one row would cost more than the rest of a
  // late patch. Clean, corrupted and patched runs are all measured this way, so an unchanged row
  // reads exactly 0 and the clean stream exactly 1.
  const ld = logitDiffAtLast(clean, target, alt);
  const ldClean = ld(cleanStages.get(STAGE.output)!);
  const ldCorrupted = ld(corruptStages.get(STAGE.output)!);
  // (+ 0: an unchanged run reads 0, not −0)
  const share = (x: number): number => (ldClean === ldCorrupted ? 0 : (x - ldCorrupted) / (ldClean - ldCorrupted) + 0);

  const C = spec.C;
  // (the engine may have run something else between two steps: a lens asked for meanwhile)
  const patched = (id: string, data: Float32Array, firstRow: number): Float32Array => {
    if (engine.current !== corrupted) engine.run(corrupted);
    return engine.patched(corrupted, { id, data, firstRow }, STAGE.output);
  };

  const run: PatchRun = { clean: cleanStages, corrupt: corruptStages, T, C, measure: (id, data, firstRow) => share(ld(patched(id, data, firstRow))), step: () => ({ done: ++done, total }) };
  const resid = withResid ? yield* patchResid(run, L) : null;
  const heads = withHeads ? yield* patchHeads(run, spec.layers) : null;
  return { target, alt, ldClean, ldCorrupted, resid, heads };
}

/** What the two views' loops share: both runs' stages, and the share one patched stage recovers. */
interface PatchRun {
  readonly clean: ReadonlyMap<string, Float32Array>;
  readonly corrupt: ReadonlyMap<string, Float32Array>;
  readonly T: number;
  readonly C: number;
  /** The share recovered with stage `id` replaced by `data` from row `firstRow` on. */
  readonly measure: (id: string, data: Float32Array, firstRow: number) => number;
  readonly step: () => PatchProgress;
}

/** [layer][position]: resid_pre of each layer patched at each position. */
function* patchResid(r: PatchRun, L: number): Generator<PatchProgress, number[][]> {
  const { T, C } = r;
  const resid: number[][] = [];
  for (let l = 0; l < L; l++) {
    const id = l === 0 ? STAGE.input : stageId(l - 1, STAGE.out);
    const from = r.clean.get(id)!;
    const base = r.corrupt.get(id)!;
    const row: number[] = [];
    for (let p = 0; p < T; p++) {
      // the same row in both runs (a position before the first corrupted token): the patched run
      // is the corrupted run, bit for bit, so it recovers exactly nothing
      if (sameRow(from, base, p * C, C)) row.push(0);
      else {
        const data = base.slice();
        data.set(from.subarray(p * C, (p + 1) * C), p * C);
        row.push(r.measure(id, data, p));
      }
      yield r.step();
    }
    resid.push(row);
  }
  return resid;
}

/** [layer][head]: each head's columns of `attn.context` patched at every position. */
function* patchHeads(r: PatchRun, layers: Model['spec']['layers']): Generator<PatchProgress, number[][]> {
  const { T } = r;
  const heads: number[][] = [];
  for (let l = 0; l < layers.length; l++) {
    const att = layers[l].attention;
    const row: number[] = [];
    if (att) {
      const id = stageId(l, STAGE.context);
      const W = att.NH * att.HS;
      const from = r.clean.get(id)!;
      const base = r.corrupt.get(id)!;
      for (let h = 0; h < att.NH; h++) {
        const data = base.slice();
        for (let t = 0; t < T; t++) for (let j = h * att.HS; j < (h + 1) * att.HS; j++) data[t * W + j] = from[t * W + j];
        row.push(r.measure(id, data, 0));
        yield r.step();
      }
    }
    heads.push(row);
  }
  return heads;
}

/** Runs the patching to its end (the command line; tests). */
export function runPatching(engine: Engine, clean: Model, corrupted: Model, opts: PatchOptions = {}): Patching {
  const g = activationPatching(engine, clean, corrupted, opts);
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

function sameRow(a: Float32Array, b: Float32Array, at: number, n: number): boolean {
  for (let i = at; i < at + n; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

// LD of a run's `output` (its final norm's) at the last position, along the head's two words: each
// word's logit soft-capped as head.logits is where the model caps its logits (gemma2: the cap bends
// each logit, not their difference)
function logitDiffAtLast(model: Model, target: number, alt: number | null): (output: Float32Array) => number {
  const { T, C } = model.spec;
  const { V } = model.spec.head!;
  const cap = model.spec.head!.softcap ?? null;
  const W = model.params.get(PARAM.headW) ?? null;
  const bU = model.params.get(PARAM.headB)?.data;
  const column = (w: number): Float64Array => Float64Array.from({ length: C }, (_, c) => (W ? weightAt(W, c, w, C, V) : c === w ? 1 : 0));
  const along = (output: Float32Array, dir: Float64Array, b: number): number => {
    let s = b;
    for (let c = 0, o = (T - 1) * C; c < C; c++) s += output[o + c] * dir[c];
    return s;
  };
  if (cap === null) {
    const dir = column(target);
    if (alt !== null) {
      const b = column(alt);
      for (let c = 0; c < C; c++) dir[c] -= b[c];
    }
    const bias = bU ? bU[target] - (alt === null ? 0 : bU[alt]) : 0;
    return (output) => along(output, dir, bias);
  }
  const wa = column(target);
  const wb = alt === null ? null : column(alt);
  return (output) => softcap(along(output, wa, bU ? bU[target] : 0), cap) - (wb === null || alt === null ? 0 : softcap(along(output, wb, bU ? bU[alt] : 0), cap));
}
