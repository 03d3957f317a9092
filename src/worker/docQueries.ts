// What the editor and the panel ask of one document (hover, completion, code lenses, the cursor's
// cell, quick fixes, a stage's numbers, a lens; activation patching as a job of steps), answered
// from its session's text, read and stages (DocSession gives them: `QueryDoc`).
import type { Engine } from '../core/engine';
import type { MatmulKernel } from '../core/kernel';
import type { Stage } from '../core/stages';
import { completionItems, completionPlace } from '../model/completion';
import { fixesFor } from '../model/fixes';
import { sourceSlice } from '../model/jsonc';
import { locateStageCell } from '../model/locate';
import type { ModelFile, ReadResult } from '../model/read';
import type { TextChunks } from '../model/textChunks';
import { LensError } from '../lenses/cache';
import type { PatchProgress, Patching } from '../lenses/patching';
import type { LensRequest, LensResult } from '../protocol/lenses';
import type { FromWorker, LineCol, Query, QueryResult } from '../protocol/worker';
import { checkpointHover, checkpointCodeLenses, cellUnit } from './checkpointText';
import { saeIdHover } from './saeFeatureInfo';
import { codeLenses } from './codeLenses';
import type { DocStages } from './docStages';
import { cursorTarget } from './cursorTarget';
import { hoverMarkdown } from './hoverText';
import { lensQuery, patchJob, patchResult } from './lensQueries';
import { internalFault } from '../common/faultText';

export const NOT_READY = 'The lenses read the model as computed: they come once the file reads as a model (see its problems) and its checkpoint is in.';

/** What a query reads of a document's session. */
export interface QueryDoc {
  readonly text: TextChunks | Uint8Array;
  readonly version: number;
  /** The version of the stages `upToDate` gives. */
  readonly stagesVersion: number;
  readonly read: ReadResult | null;
  ensureRead(): ReadResult;
  computed(): DocStages | null;
  /** The current text's model with its stages computed now if they are not, or null if it cannot be. */
  upToDate(): { file: ModelFile; stages: Stage[] } | null;
  engine(): Engine;
  kernel(): MatmulKernel;
  /** What the panel is shown of a stage (while comparing: the difference from the baseline). */
  shown(s: Stage): Stage;
  lineCol(start: number, end: number): LineCol;
}

export function answerQuery(d: QueryDoc, q: Query): QueryResult | null {
  const version = d.version;
  switch (q.kind) {
    case 'complete': {
      // (scanned back from the cursor in the text as it is: completion comes while it does not parse)
      const place = completionPlace(sourceSlice(d.text, 0, q.offset), q.offset);
      const checkpoint = /"checkpoint"\s*:/.test(sourceSlice(d.text, 0, Math.min(d.text.length, 1 << 16))) || !!d.read?.checkpoint;
      return { kind: 'complete', version, items: place ? completionItems(place, checkpoint) : [] };
    }
    case 'speed':
      return null; // (the worker's, not a document's: workerMain.ts answers it)
    case 'stage': {
      const cur = d.upToDate();
      const st = cur?.stages.find((x) => x.id === q.stageId);
      if (!cur || !st) return { kind: 'stage', version, error: cur ? `no stage ${q.stageId} in this model` : 'the model is not computed yet: export again once the panel shows it' };
      const shown = d.shown(st);
      const data = (shown === st ? st.data.slice() : shown.data).buffer as ArrayBuffer;
      return { kind: 'stage', version: d.stagesVersion, shape: st.shape, data, tokens: cur.file.tokens };
    }
    case 'lens': {
      const req = q.request;
      if (req.kind === 'patch') return null; // (a job: runPatching())
      const cur = d.upToDate();
      const result: LensResult = cur ? lensQuery(req, cur.file, cur.stages, d.engine()) : { kind: 'error', lens: req.kind, message: NOT_READY };
      return { kind: 'lens', version, result };
    }
    case 'unit': {
      const m = d.ensureRead().file;
      if (!m?.checkpoint) return { kind: 'unit', version, unit: null };
      const def = d.engine().planOf(m.model.spec).find((s) => s.id === q.stageId);
      return { kind: 'unit', version, unit: def ? cellUnit(m.model, def, q.index) : null };
    }
    case 'text-length':
      return { kind: 'text-length', version, length: d.text.length };
    case 'hover': {
      const read = d.ensureRead();
      if (!read.file) {
        const n = read.problems.filter((p) => p.severity === 'error').length;
        const onNumber = /[-\d.eE+]/.test(sourceSlice(d.text, Math.max(0, q.offset - 1), q.offset + 1));
        return {
          kind: 'hover', version,
          hover: onNumber ? { markdown: `FFN Lens: this file does not read as a model (${n} problem${n === 1 ? '' : 's'}, see the Problems panel), so there are no values to show.`, start: q.offset, end: q.offset } : null,
        };
      }
      const c = d.computed();
      if (c?.file.checkpoint) return { kind: 'hover', version, hover: checkpointHover(c, q.offset, d.kernel()) };
      // (a written-out model's SAE feature ids: their card, as in a checkpoint file)
      return { kind: 'hover', version, hover: c ? (c.file.saeKeys ? saeIdHover(c, q.offset) : null) ?? hoverMarkdown(d.text, c, q.offset) : null };
    }
    case 'codeLenses': {
      const c = d.computed();
      return { kind: 'codeLenses', version, codeLenses: !c ? [] : c.file.checkpoint ? checkpointCodeLenses(c) : codeLenses(c), stale: c?.stale ?? false };
    }
    case 'cursor': {
      const c = d.computed();
      return { kind: 'cursor', version, cursor: c ? cursorTarget(d.text, c, q.offset) : null };
    }
    case 'fixes': {
      const r = d.ensureRead();
      return { kind: 'fixes', version, fixes: fixesFor(d.text, r.json.root, r.problems, r.file, q.start, q.end) };
    }
    case 'locate': {
      const r = d.ensureRead();
      if (!r.file) return { kind: 'locate', version, located: null };
      const stage = d.engine().planOf(r.file.model.spec).find((s) => s.id === q.stageId);
      const loc = stage ? locateStageCell(d.text, r, r.file.model, r.file.vocab, r.file.tokens, stage, q.index) : null;
      return { kind: 'locate', version, located: loc && { start: loc.start, end: loc.end, ...d.lineCol(loc.start, loc.end), what: `${loc.path}: ${loc.what}` } };
    }
  }
}

/** An activation patching under way: `stopped` says why it was stopped, once it is. */
export interface PatchingJob { readonly id: number; stopped: string | null }

/**
 * Activation patching of the document's input into its corrupted input, a slice of steps at a
 * time between the worker's other messages (an edit, a hover, a cancel); progress is posted as it
 * goes. Returns the job (null if it could not begin: `reply` has the error), which its owner stops.
 */
export function runPatching(d: QueryDoc, id: number, req: Extract<LensRequest, { kind: 'patch' }>, post: (m: FromWorker) => void, reply: (r: QueryResult) => void, ended: () => void): PatchingJob | null {
  const version = d.version;
  const fail = (message: string): void => reply({ kind: 'lens', version, result: { kind: 'error', lens: 'patch', message } });
  const cur = d.upToDate();
  if (!cur) return fail(NOT_READY), null;
  let steps: ReturnType<typeof patchJob>;
  try {
    steps = patchJob(cur.file, d.engine(), req);
  } catch (e) {
    if (e instanceof LensError) return fail(e.message), null;
    throw e;
  }
  const job: PatchingJob = { id, stopped: null };
  const t0 = performance.now();
  const step = (): void => {
    if (job.stopped !== null) return fail(job.stopped);
    const until = performance.now() + 40; // (then the worker reads its messages)
    let r: IteratorResult<PatchProgress, Patching>;
    try {
      do r = steps.next();
      while (!r.done && performance.now() < until);
    } catch (e) {
      ended();
      return fail(e instanceof LensError ? e.message : internalFault('activation patching', e));
    }
    if (r.done) {
      ended();
      const runs = 2 + (r.value.resid ? r.value.resid.flat().length : 0) + (r.value.heads ? r.value.heads.flat().length : 0);
      post({ type: 'progress', id, done: runs, total: runs }); // (the bar reaches its end)
      return reply({ kind: 'lens', version, result: patchResult(cur.file, r.value, performance.now() - t0) });
    }
    post({ type: 'progress', id, done: r.value.done, total: r.value.total });
    setTimeout(step, 0);
  };
  setTimeout(step, 0);
  return job;
}
