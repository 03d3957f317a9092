// The worker's answers to the panel's lens requests (src/protocol/lenses.ts), from the document's
// model and its last computed stages: the lenses themselves are in src/lenses.

import type { Engine } from '../core/engine';
import type { Model } from '../core/model';
import type { Stage } from '../core/stages';
import { LensError, runOf, tokenIds, withTokens } from '../lenses/cache';
import { directLogitAttribution } from '../lenses/dla';
import { headScores, inductionSequence } from '../lenses/headScores';
import { logitLensGrid, softmaxTop } from '../lenses/logitLens';
import { activationPatching, type PatchProgress, type Patching } from '../lenses/patching';
import type { ModelFile } from '../model/read';
import type { LensRequest, LensResult, WordP } from '../protocol/lenses';
import { STAGE, stageId, unitId } from '../core/ids';
import { saeFeatureResult, saeFitResult } from './saeFeatureInfo';
import { internalFault } from '../common/faultText';

/** Each lens as the panel names it, for a fault's message. */
const LENS_NAME: Record<Exclude<LensRequest, { kind: 'patch' }>['kind'], string> = {
  logitLens: 'the logit lens', dla: 'the attribution lens', heads: 'the head scores', saeFeature: "the SAE feature's summary", saeFit: "the SAE's fit",
};

/** Above this many tokens the heads' patterns are not sent for the hover (T² per head). */
const MAX_PATTERN_T = 64;

function wordsOf(file: ModelFile, ids: Iterable<number>): Record<number, string> {
  const out: Record<number, string> = {};
  for (const id of ids) out[id] = file.vocab[id] ?? `#${id}`;
  return out;
}

/**
 * A lens of the document's current run. `engine` ran `file.model` last (its `stages`); the logit
 * lens asks it for the lens stages (computed only now, only what is missing).
 */
export function lensQuery(req: Exclude<LensRequest, { kind: 'patch' }>, file: ModelFile, stages: readonly Stage[], engine: Engine): LensResult {
  try {
    return answer(req, file, stages, engine);
  } catch (e) {
    if (e instanceof LensError) return { kind: 'error', lens: req.kind, message: e.message };
    // (a fault of ours: said in the lens's place as that, the worker goes on)
    return { kind: 'error', lens: req.kind, message: internalFault(LENS_NAME[req.kind], e) };
  }
}

function answer(req: Exclude<LensRequest, { kind: 'patch' }>, file: ModelFile, stages: readonly Stage[], engine: Engine): LensResult {
  const model = file.model;
  const run = runOf(model, stages);
  const tokens = file.tokens;
  switch (req.kind) {
    case 'logitLens': {
      if (!model.spec.head) throw new LensError('the logit lens needs a prediction head: this model has no "head"');
      let lensRun = run;
      if (!run.has(stageId(0, STAGE.lens)) && model.spec.layers.length) {
        // the same run with the lens stages: nothing else is computed again (the same params and
        // stages), and the next edit's run drops them
        const withLens: Model = { params: model.params, spec: { ...model.spec, lens: true } };
        lensRun = runOf(withLens, engine.run(withLens));
      }
      const g = logitLensGrid(lensRun, req.k, req.target);
      const ids = new Set<number>();
      for (const row of g.cells) for (const c of row) for (const [id] of c.top) ids.add(id);
      if (req.target !== null) ids.add(req.target);
      return { kind: 'logitLens', L: g.L, tokens, target: req.target, cells: g.cells, words: wordsOf(file, ids) };
    }
    case 'dla': {
      const d = directLogitAttribution(run, { pos: req.pos ?? undefined, target: req.target ?? undefined, alt: req.alt, topNeurons: 30 });
      const V = model.spec.head!.V;
      const predictions = softmaxTop(run.stage(STAGE.logits).subarray(d.pos * V, (d.pos + 1) * V), 10, null).top as WordP[];
      const ids = new Set<number>(predictions.map(([id]) => id));
      ids.add(d.target);
      if (d.alt !== null) ids.add(d.alt);
      return {
        kind: 'dla', tokens, pos: d.pos, target: d.target, alt: d.alt, logitDiff: d.logitDiff, constant: d.constant, remainder: d.remainder, note: d.note,
        parts: d.parts, heads: d.heads, editedHeads: editedHeads(file), topNeurons: d.topNeurons, predictions, words: wordsOf(file, ids),
      };
    }
    case 'heads': {
      const s = headScores(run);
      let repeat: { ids: number[]; induction: number[][] } | null = null;
      if (req.repeat !== null && tokenIds(model) && model.spec.head) {
        const ids = inductionSequence(model.spec.head.V, req.repeat, { bos: file.checkpoint?.source.bos });
        const m = withTokens(model, ids);
        // (a run of its own: the document's engine keeps the document's run)
        const rep = headScores(runOf(m, engine.forwardOnce(m)));
        repeat = { ids, induction: rep.induction! };
      }
      const { T } = model.spec;
      const patterns = T <= MAX_PATTERN_T
        ? model.spec.layers.map((l, i) => (l.attention ? Array.from({ length: l.attention.NH }, (_, h) => Array.from(run.stage(stageId(i, STAGE.weights)).subarray(h * T * T, (h + 1) * T * T))) : []))
        : null;
      return { kind: 'heads', tokens, prev: s.prev, dup: s.dup, induction: s.induction, repeat, patterns };
    }
    case 'saeFeature': return saeFeatureResult(file, run, req.site, req.feature, req.pos, req.target ?? null);
    case 'saeFit': return saeFitResult(file, run, req.site);
  }
}

/** Activation patching of the document's input into its corrupted input, a step at a time. */
export function patchJob(file: ModelFile, engine: Engine, req: Extract<LensRequest, { kind: 'patch' }>): Generator<PatchProgress, Patching> {
  const corrupted = file.checkpoint?.corruptedIds ?? null;
  if (!corrupted) throw new LensError('patching needs a second input: add "corrupted_prompt": "…" (as many tokens as the prompt) or "corrupted_token_ids": [ … ] to the model file');
  return activationPatching(engine, file.model, withTokens(file.model, corrupted), { target: req.target ?? undefined, alt: req.alt ?? undefined, views: req.views });
}

export function patchResult(file: ModelFile, p: Patching, ms: number): LensResult {
  const corrupted = file.checkpoint!.corruptedIds!;
  const words = wordsOf(file, p.alt === null ? [p.target] : [p.target, p.alt]);
  const tokens = file.tokens;
  return {
    kind: 'patch', tokens, corruptedTokens: corrupted.map((id) => file.vocab[id] ?? `#${id}`), target: p.target, alt: p.alt, words,
    ldClean: p.ldClean, ldCorrupted: p.ldCorrupted, resid: p.resid, heads: p.heads, ms,
  };
}

/** The heads a checkpoint model file switches off or scales, by name (the attribution marks them). */
function editedHeads(file: ModelFile): Record<string, string> {
  const req = file.checkpoint?.request;
  const out: Record<string, string> = {};
  if (!req) return out;
  for (const u of req.ablate) if (u.kind === 'head') out[unitId('head', u.layer, u.index)] = 'switched off (ablate)';
  for (const u of req.scale) if (u.kind === 'head') out[unitId('head', u.layer, u.index)] = `scaled by ${u.factor} (scale)`;
  return out;
}
