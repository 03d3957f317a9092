// One open model document inside the worker, made of four parts: its text, kept in step with the
// editor by deltas, and its last read (textSync.ts); the runner, which decides when a run begins
// and stops one a newer change overtakes (runner.ts); the stage publisher, what its panel is sent
// and holds (stagePublisher.ts); and the query handler, what the editor and the panel ask of it
// (docQueries.ts). Compare (comparison.ts) and the messages a run holds (outbox.ts) sit between.
import type { MatmulKernel } from '../core/kernel';
import type { LensRequest } from '../protocol/lenses';
import type { CompareSpec, Query, QueryResult, TextChange } from '../protocol/worker';
import type { CheckpointStore } from '../checkpoint/store';
import type { Stage } from '../core/stages';
import { Comparison } from './comparison';
import { answerQuery, runPatching, type PatchingJob, type QueryDoc } from './docQueries';
import { Outbox } from './outbox';
import { DocGeneration } from './generationJob';
import { DocRunner } from './runner';
import { StagePublisher, type Post } from './stagePublisher';
import { DocText } from './textSync';
import { DEFAULT_POOL_COLS } from './vocabStages';

export { STAGE_PIECE, type Post } from './stagePublisher';

export class DocSession {
  private readonly text: DocText;
  private readonly out: Outbox;
  private readonly publisher: StagePublisher;
  private readonly comparison: Comparison;
  private readonly runner: DocRunner;
  /** What a query reads of this session. */
  private readonly asked: QueryDoc;
  /** The activation patching running, if any. */
  private job: PatchingJob | null = null;
  /** Generation (ToWorker `generate`), on or off. */
  private readonly generation: DocGeneration;
  /** The run of the input and its generated tokens the panel was last sent (ToWorker `showGenerated`), or null. */
  private sequence: { readonly version: number; readonly stages: readonly Stage[] } | null = null;

  constructor(
    readonly doc: string,
    fileName: string,
    text: string | Uint8Array,
    version: number,
    private readonly postOut: Post,
    private readonly kernel: () => MatmulKernel,
    debounceMs: () => number,
    /** Tracked for its text's look alone, until a parse shows its top level (see ToWorker 'open'). */
    sniffed = false,
    /** Where checkpoints are loaded (null: a file that names one cannot be computed here). */
    private readonly store: CheckpointStore | null = null,
  ) {
    this.text = new DocText(fileName, text, version, store, () => this.runner.schedule(true), sniffed);
    this.out = new Outbox(postOut, () => this.publisher.subscribed);
    this.comparison = new Comparison(doc, store);
    this.publisher = new StagePublisher(doc, this.out.post, (s) => this.comparison.shown(s));
    this.generation = new DocGeneration(doc, postOut, kernel);
    this.runner = new DocRunner({ doc, text: this.text, out: this.out, publisher: this.publisher, comparison: this.comparison, kernel, debounceMs, ended: (v, f) => this.generation.runEnded(v, f) });
    this.asked = this.queryDoc();
    this.runner.schedule();
  }

  /** The query's view of this session: its fields as they are when asked. */
  private queryDoc(): QueryDoc {
    const { text, runner } = this;
    return {
      get text() { return text.text; },
      get version() { return text.version; },
      get stagesVersion() { return runner.stagesVersion; },
      get read() { return text.read; },
      ensureRead: () => text.ensureRead(),
      computed: () => runner.computed(),
      upToDate: () => runner.upToDate(),
      engine: () => runner.engine,
      kernel: () => this.kernel(),
      shown: (s) => this.comparison.shown(s),
      lineCol: (a, b) => text.lineCol(a, b),
    };
  }

  /** The version of the last run that ended (-1: none; tests look). */
  get endedVersion(): number {
    return this.runner.stagesVersion;
  }

  /** The version of the run under way, or null (tests look). */
  get runningVersion(): number | null {
    return this.runner.runningVersion;
  }

  /** Edits read incrementally so far (tests and the benchmark look). */
  get incrementalEdits(): number {
    return this.text.incrementalEdits;
  }

  /** Runs stopped by a newer change before their end (tests and the benchmark look). */
  get stoppedRuns(): number {
    return this.runner.stoppedRuns;
  }

  change(version: number, changes: readonly TextChange[], length: number, sentAt?: number): void {
    this.store?.retryCancelled(); // (an edit is how a cancelled checkpoint read is asked for again)
    this.runner.changing(sentAt);
    const outOfStep = this.text.change(version, changes, length);
    this.stopJob('the model file changed while patching: run it again for the file as it is now');
    this.generation.stop('changed');
    // Out of step with the editor (should not happen): ask for the whole text again.
    if (outOfStep) this.out.post({ type: 'resync', doc: this.doc, reason: outOfStep });
    else this.runner.schedule();
  }

  replace(version: number, text: string | Uint8Array): void {
    this.store?.retryCancelled();
    this.text.replace(version, text);
    this.stopJob('the model file changed while patching: run it again for the file as it is now');
    this.generation.stop('changed');
    this.runner.schedule();
  }

  /** What the file names may read differently now (Workspace Trust was granted): read it again. */
  reread(): void {
    if (!this.text.read?.checkpoint) return; // (a hand-written model reads no file)
    this.text.forgetRead();
    this.runner.rerunFull();
  }

  subscribe(on: boolean): void {
    this.out.reset(); // (a run waiting for the render before it goes out now: the panel starts again)
    this.publisher.subscribe(on);
    if (!on) return;
    if (this.runner.upToDateWithText) this.runner.replay();
    else this.runner.runFullNext(); // (the subscriber has none of the stages the next run would call unchanged)
  }

  /** The panel drew the render of `version` (or never will): a run that waited for it goes out. */
  drawn(version: number): void {
    this.out.drawn(version);
  }

  /** The panel shows these stages now: the ones it lacks of the current run (or of the one under way) are sent at once. */
  want(ids: readonly string[] | null, cols = DEFAULT_POOL_COLS): void {
    this.publisher.want(ids, cols);
    if (!this.publisher.subscribed) return;
    // (while the panel shows a generation's sequence, its stages; an edit's run posts the input's again)
    const seq = this.publisher.showsGenerated && this.sequence?.version === this.text.version ? this.sequence : null;
    const run = seq ?? this.runner.currentStages();
    if (!run) return; // (the next run sends them)
    for (const s of run.stages) if (this.publisher.lacks(s)) this.publisher.postStage(s, run.version, true);
  }

  /** Compare on (a baseline) or off (null): everything is posted again. */
  setCompare(spec: CompareSpec | null): void {
    this.runner.stopRun(); // (before the message below: a run's held messages are dropped with it)
    this.comparison.set(spec);
    if (!spec) this.out.post({ type: 'compare', doc: this.doc, version: this.text.version, label: null, error: null, incomparable: [], top: null });
    this.runner.rerunFull();
  }

  dispose(): void {
    this.stopJob('the model file was closed');
    this.generation.dispose();
    this.runner.dispose();
    this.out.dispose();
  }

  /** Runs a pending computation now, to its end, instead of at its timer and in slices (tests drive the session this way). */
  flush(): void {
    this.runner.flush();
  }

  /** Activation patching (docQueries.ts's runPatching); an edit of the document stops it: its result would describe the old model. */
  patch(id: number, req: Extract<LensRequest, { kind: 'patch' }>, reply: (r: QueryResult) => void): void {
    this.stopJob('another patching started');
    const job = runPatching(this.asked, id, req, this.postOut, reply, () => {
      if (this.job === job) this.job = null;
    });
    this.job = job;
  }

  /** Generation on (now if the current text's model is computed, else when its run ends) or off (Cancel). */
  generate(on: boolean): void {
    const cur = on ? this.runner.upToDate() : null;
    const why = cur || !on || this.text.loading ? null : 'generation needs the model computed: the file does not read as a model (see its problems)';
    this.generation.set(on, cur && { version: this.runner.stagesVersion, file: cur.file }, why);
  }

  /**
   * The panel shows the run of the input followed by the tokens generated from the text of
   * `version` (on), or the input's run again (off). Only of the current text, its run ended, and
   * of a generation that ended: else nothing (the panel's next render is the input's anyway).
   */
  showGenerated(version: number, on: boolean): void {
    if (!this.publisher.subscribed || version !== this.text.version || this.runner.runningVersion !== null || !this.runner.upToDateWithText) return;
    if (!on) {
      this.sequence = null;
      if (this.publisher.showsGenerated) this.runner.replay();
      return;
    }
    const seq = this.generation.sequence(version);
    if (!seq) return;
    this.sequence = { version, stages: seq.stages };
    this.runner.show(seq);
  }

  /** Stops the running patching (if it is `id`'s, when given), saying why. */
  stopJob(why: string, id?: number): void {
    if (this.job && (id === undefined || this.job.id === id)) this.job.stopped = why;
    this.job = null;
  }

  query(q: Query): QueryResult | null {
    return answerQuery(this.asked, q);
  }
}
