// One open model document inside the worker: its text (kept in step with the editor by deltas),
// its last read and its last computed stages. A change starts a run at once (changes that come
// together run once), and a newer change stops the run in flight between two stages: the forward
// goes in slices (slicedRun.ts), the worker reading its messages between them, so the panel gets
// the newest text's stages first. Only a text whose read is slow (a large file read whole, which
// no change can stop) waits out a burst: it runs at once after a quiet spell, else `debounceMs`
// after the last change. What the panel is sent: stageSender.ts; what is asked of it: docQueries.ts.

import { Engine } from '../core/engine';
import { isOutOfMemory } from '../core/runSize';
import type { MatmulKernel } from '../core/kernel';
import { addChange, type Cols } from '../core/params';
import type { Stage } from '../core/stages';
import type { CompareSpec, FromWorker, LineCol, QueryResult, Query, TextChange, WorkerProblem } from '../protocol/worker';
import type { ModelSummary } from '../protocol/stages';
import { sourceSlice } from '../model/jsonc';
import { TextChunks } from '../model/textChunks';
import { LineIndex } from '../model/lines';
import { ReadPatch } from '../model/incremental';
import { formatPath } from '../model/problems';
import { isModelRoot, readModel, type ModelFile, type ReadResult } from '../model/read';
import { CheckpointResolver } from '../checkpoint/resolve';
import { resolveRead, type CheckpointStore } from '../checkpoint/store';
import type { Computed } from './computed';
import { runtimeProblems } from './runtimeProblems';
import { Baseline, type BaselineRun } from './baseline';
import { HEAD_PROBS, DEFAULT_POOL_COLS } from './vocabStages';
import type { LensRequest } from '../protocol/lenses';
import { answerQuery, runPatching, type PatchingJob, type QueryDoc } from './docQueries';
import { SlicedRun } from './slicedRun';
import { StageSender, type Post } from './stageSender';

export { STAGE_PIECE, type Post } from './stageSender';

/** A run under way: its version, the stages it computed so far, and the slices that drive it. */
interface Running { readonly version: number; readonly stages: Stage[]; readonly slices: SlicedRun<Stage[]> }

export class DocSession {
  /** The text of an editor's document (in chunks: see TextChunks), or the bytes of a file read from disk. */
  private text: TextChunks | Uint8Array;
  private version: number;
  private read: ReadResult | null = null;
  private readVersion = -1;
  /** How long the last read of the whole text took (a change read in place takes next to nothing). */
  private fullReadMs = 0;
  private stages: Stage[] | null = null;
  private stagesVersion = -1;
  private stagesModel: ModelFile | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastRun = -Infinity;
  /** The run under way (its forward in slices), if any. */
  private running: Running | null = null;
  /** When the host sent the last change and the worker took it (the benchmark's trace). */
  private changeAt: [number, number] | null = null;
  private forward: Engine | null = null;
  /** Compare: the baseline the stages are shown against, and its run for the version being posted. */
  private baseline: Baseline | null = null;
  private baselineRun: BaselineRun | null = null;
  /** The activation patching running, if any. */
  private job: PatchingJob | null = null;
  /** Line starts of the text, built once per version (the chunks change in place). */
  private lines: { version: number; index: LineIndex } | null = null;
  /** The next run sends every stage in full (a panel subscribed while it was pending). */
  private fullNext = false;
  /**
   * Params edited in place since the last run began (rows typed over): the engine recomputes what
   * reads them. A full read makes a new model, whose params the engine tells apart by themselves.
   */
  private edits = new Map<string, Cols>();
  /** Overrides of the checkpoint this document names, kept between reads (see resolve.ts). */
  private readonly resolver = new CheckpointResolver();
  /** A checkpoint or tokenizer is being loaded (or a prompt tokenized): the read waits for it. */
  private loading: Promise<void> | null = null;
  /** Only a prompt is being tokenized (a fraction of a millisecond, as a rule): the panel is not told. */
  private tokenizing = false;
  /** What the panel is sent, and what it holds. */
  private readonly sender: StageSender;
  /** What a query reads of this session. */
  private readonly asked: QueryDoc;
  /** Edits read incrementally so far (tests and the benchmark look). */
  incrementalEdits = 0;
  /** Runs stopped by a newer change before their end (tests and the benchmark look). */
  stoppedRuns = 0;
  /** When the last change came, and whether it came inside a burst (soon after another, or while a run was under way). */
  private lastChange = -Infinity;
  private burst = false;
  /**
   * The messages of a run begun inside a burst, held until it ends: a run the next change stops
   * posts nothing (the panel would build each in-between text's layout and draw its stages, and
   * fall behind the typing), and one that ends posts all at once.
   */
  private held: Array<[FromWorker, ArrayBuffer[] | undefined]> | null = null;
  /** Every message of the session goes this way (see `held`). */
  private readonly post: Post = (m, transfer) => {
    if (this.held) this.held.push([m, transfer]);
    else this.postOut(m, transfer);
  };

  constructor(
    readonly doc: string,
    private readonly fileName: string,
    text: string | Uint8Array,
    version: number,
    private readonly postOut: Post,
    private readonly kernel: () => MatmulKernel,
    private readonly debounceMs: () => number,
    /** Tracked for its text's look alone, until a parse shows its top level (see ToWorker 'open'). */
    private sniffed = false,
    /** Where checkpoints are loaded (null: a file that names one cannot be computed here). */
    private readonly store: CheckpointStore | null = null,
  ) {
    this.text = typeof text === 'string' ? new TextChunks(text) : text;
    this.version = version;
    this.sender = new StageSender(doc, (m, t) => this.post(m, t), (s) => this.comparedTo(s));
    const self = this; // (the query's view of this session: its fields as they are when asked)
    this.asked = {
      get text() { return self.text; },
      get version() { return self.version; },
      get stagesVersion() { return self.stagesVersion; },
      get read() { return self.read; },
      ensureRead: () => this.ensureRead(),
      computed: () => this.computed(),
      upToDate: () => this.upToDate(),
      engine: () => this.engine(),
      kernel: () => this.kernel(),
      shown: (s) => this.comparedTo(s),
      lineCol: (a, b) => this.lineCol(a, b),
    };
    this.schedule();
  }

  /** The version of the run under way, or null (tests look). */
  get runningVersion(): number | null {
    return this.running?.version ?? null;
  }

  change(version: number, changes: readonly TextChange[], length: number, sentAt?: number): void {
    const now = Date.now();
    this.burst = now - this.lastChange < this.debounceMs() || this.running !== null;
    this.lastChange = now;
    this.stopRun(); // (its stages would be of an older text: the run of this one begins at once)
    this.changeAt = sentAt === undefined ? null : [sentAt, Date.now()];
    if (!(this.text instanceof TextChunks)) this.text = new TextChunks(sourceSlice(this.text, 0, this.text.length)); // (edits come only for documents)
    const text = this.text;
    const read = this.read;
    // The text takes every change; the last read follows while each is a value edit inside a row.
    let patch = read?.model && this.readVersion === this.version ? new ReadPatch(read) : null;
    for (const c of changes) {
      const removed = patch ? text.slice(c.offset, c.offset + c.length) : '';
      text.edit(c.offset, c.length, c.text);
      if (patch && !patch.apply(text, c, removed)) patch = null;
    }
    this.version = version;
    this.stopJob('the model file changed while patching: run it again for the file as it is now');
    if (patch && this.markIncremental(patch)) {
      this.readVersion = version; // patched in place: the read is of this text
      this.incrementalEdits++;
    } else {
      this.readVersion = -1; // read again, all of it, and compute everything
      this.edits.clear();
    }
    if (this.text.length !== length) {
      // Out of step with the editor (should not happen): ask for the whole text again.
      this.post({ type: 'resync', doc: this.doc, reason: `text length ${this.text.length}, editor has ${length}` });
      return;
    }
    this.schedule();
  }

  /** Records which params the patched rows change; false if they cannot say (then a full read is due). */
  private markIncremental(patch: ReadPatch): boolean {
    const changes = patch.paramChanges();
    if (!changes) return false;
    for (const [id, c] of changes) addChange(this.edits, id, c);
    return true;
  }

  replace(version: number, text: string | Uint8Array): void {
    this.text = typeof text === 'string' ? new TextChunks(text) : text;
    this.version = version;
    this.stopJob('the model file changed while patching: run it again for the file as it is now');
    this.edits.clear();
    this.schedule();
  }

  /** What the file names may read differently now (Workspace Trust was granted): read it again. */
  reread(): void {
    if (!this.read?.checkpoint) return; // (a hand-written model reads no file)
    this.readVersion = -1;
    this.edits.clear();
    this.rerunFull();
  }

  subscribe(on: boolean): void {
    this.sender.subscribe(on);
    if (!on) return;
    if (this.read && this.readVersion === this.version && this.stagesVersion === this.version) this.publish();
    else {
      this.fullNext = true; // the subscriber has none of the stages the next run would call unchanged
      this.schedule(true);
    }
  }

  /** The panel shows these stages now: the ones it lacks of the current run (or of the one under way) are sent at once. */
  want(ids: readonly string[] | null, cols = DEFAULT_POOL_COLS): void {
    this.sender.want(ids, cols);
    if (!this.sender.subscribed) return;
    const run = this.running?.version === this.version ? this.running : this.stagesVersion === this.version && this.stages ? { version: this.stagesVersion, stages: this.stages } : null;
    if (!run) return; // (the next run sends them)
    for (const s of run.stages) if (this.sender.lacks(s)) this.sender.postStage(s, run.version, true);
  }

  dispose(): void {
    this.stopJob('the model file was closed');
    this.stopRun();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.forward?.dispose();
    this.forward = null;
  }

  /** Runs a pending computation now, to its end, instead of at its timer and in slices (tests drive the session this way). */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.runSafely();
    }
    this.running?.slices.finish();
  }

  private schedule(now = false): void {
    this.stopRun();
    if (this.timer) clearTimeout(this.timer);
    const d = this.debounceMs();
    // A run a newer change stops costs little, so it begins at once (at the timer: the changes
    // that came together run once). A read of the whole text cannot be stopped: when the last
    // took long, a burst of changes runs on its leading edge and `d` after its last change.
    const quick = this.readVersion === this.version || this.fullReadMs < d / 4;
    const quiet = this.timer === null && Date.now() - this.lastRun >= d;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runSafely();
    }, now || quick || quiet ? 0 : d);
  }

  /** Stops the run under way (a newer text or a new subscriber): what it sent the panel is not built on. */
  private stopRun(): void {
    this.held = null; // (what it posted goes nowhere)
    const r = this.running;
    if (!r) return;
    this.running = null;
    if (!r.slices.running) return;
    r.slices.stop();
    this.stoppedRuns++;
    this.sender.forget(r.version);
  }

  private runSafely(): void {
    try {
      this.run();
    } catch (e) {
      this.failed(e);
    }
  }

  /** A bug of ours: said plainly, once, as a problem of the file; the worker lives on. */
  private failed(e: unknown): void {
    this.running = null;
    this.held = null;
    this.edits.clear();
    this.readVersion = -1;
    this.forward?.dispose();
    this.forward = null;
    // (an allocation refused: the machine's memory, not a bug; the bound in runSize.ts did not foresee it)
    const message = isOutOfMemory(e)
      ? `FFN Lens ran out of memory computing this model (${(e as Error).message}): give a shorter input or fewer layers, or close other model files`
      : `FFN Lens could not compute this model (an internal error: ${(e as Error)?.message ?? String(e)}); please report it`;
    this.post({ type: 'log', message: `run failed: ${(e as Error)?.stack ?? String(e)}` });
    this.post({ type: 'model', doc: this.doc, version: this.version, summary: null, problems: [{ severity: 'error', code: 'internal', message, path: '$', start: 0, end: 0, line: 1, col: 1, endLine: 1, endCol: 1 }] });
  }

  /** The read of the current text (parsing only: a hover never runs the forward pass). */
  private ensureRead(): ReadResult {
    if (!this.read || this.readVersion !== this.version) {
      const t0 = performance.now();
      this.read = this.withCheckpoint(readModel(this.text, this.fileName));
      this.readVersion = this.version;
      this.fullReadMs = performance.now() - t0;
    }
    return this.read;
  }

  /**
   * A file that names a checkpoint: its model, once the checkpoint (and tokenizer) are loaded.
   * While they load the read has no model and no new problems; the run waits (`loading`) and
   * reads again when they are in.
   */
  private withCheckpoint(read: ReadResult): ReadResult {
    this.loading = null;
    const r = resolveRead(read, this.fileName, this.store, this.resolver);
    if ('read' in r) return r.read;
    const version = this.version;
    const loading = r.loading.then(() => {
      if (this.loading !== loading) return;
      this.loading = null;
      if (this.version === version) this.readVersion = -1;
      this.schedule(true);
    });
    this.loading = loading;
    this.tokenizing = r.tokenizing === true;
    return read;
  }

  private engine(): Engine {
    return (this.forward ??= new Engine(this.kernel()));
  }

  /** Reads the text, posts the model message, and begins its forward (in slices: a newer change stops it). */
  private run(): void {
    this.stopRun();
    this.held = this.burst ? [] : null;
    this.burst = false;
    this.lastRun = Date.now();
    const trace = this.changeAt ? [...this.changeAt, this.lastRun] : undefined;
    this.changeAt = null;
    const version = this.version;
    const t0 = performance.now();
    const read = this.ensureRead();
    if (this.loading) {
      if (!this.tokenizing) this.post({ type: 'loading', doc: this.doc, version, what: read.checkpoint?.folder ?? '' });
      return this.release();
    }
    const model = read.model;
    const t1 = performance.now();
    if (this.sniffed && read.json.root) {
      // (while the text does not parse at all it may be a model half typed: it stays, errors shown)
      if (!isModelRoot(read.json.root)) {
        this.post({ type: 'notModel', doc: this.doc, version });
        return this.release();
      }
      this.sniffed = false;
    }
    const summary = model ? this.sender.wire(this.summary(model), version) : null;
    this.post({ type: 'model', doc: this.doc, version, problems: this.problems(), summary, ...(trace ? { trace: [...trace, Date.now()] } : {}) });
    if (!model) return this.release();
    // compare: the baseline first (its stages are what each stage is posted against), in full
    this.baselineRun = this.baseline ? this.baseline.for(model, this.engine(), () => this.rerunFull()) : null;
    if (this.baseline) this.postCompare(version, model);
    const full = this.fullNext || this.baseline !== null;
    this.fullNext = false;
    const edits = this.edits;
    this.edits = new Map();
    this.sender.plan(this.engine().planOf(model.model.spec));
    const stages: Stage[] = [];
    const walk = this.engine().walk(model.model, edits, (s) => {
      stages.push(s);
      this.sender.postStage(s, version, full);
    });
    const ended = (all: Stage[]): void => {
      this.running = null;
      this.stages = all;
      this.stagesVersion = version;
      this.stagesModel = model;
      this.post({ type: 'done', doc: this.doc, version, ms: { parse: t1 - t0, forward: performance.now() - t1 }, kernel: this.kernel().name });
      this.postRuntime(version);
      this.release();
    };
    const running: Running = { version, stages, slices: new SlicedRun(walk, ended, (e) => this.failed(e)) };
    this.running = running;
    running.slices.start();
  }

  /** The messages held for the run that ended go out (the model message's "posted" stamped now: the bench's split). */
  private release(): void {
    const held = this.held;
    this.held = null;
    for (const [m, transfer] of held ?? []) this.postOut(m.type === 'model' && m.trace ? { ...m, trace: [...m.trace.slice(0, -1), Date.now()] } : m, transfer);
  }

  private summary(m: ModelFile): ModelSummary {
    return this.sender.summary(m, this.engine().planOf(m.model.spec));
  }

  private postRuntime(version: number): void {
    const c = this.computed();
    const problems: WorkerProblem[] = c ? runtimeProblems(c).map((p) => ({
      severity: 'warning' as const, code: p.code, message: p.message, path: formatPath(p.path), start: p.start, end: p.end,
      ...this.lineCol(p.start, p.end),
    })) : [];
    this.post({ type: 'runtime', doc: this.doc, version, problems });
  }

  /**
   * The current text's model with the latest computed stages. When the text changed since, the
   * stages are kept only if the shapes still fit (then marked stale).
   */
  private computed(): Computed | null {
    const read = this.ensureRead();
    if (!read.model) return null;
    const stale = this.stagesVersion !== this.version;
    let stages = new Map<string, Stage>();
    if (this.stages) {
      const fits = !stale || JSON.stringify(this.engine().planOf(read.model.model.spec).map((s) => [s.id, s.shape])) === JSON.stringify(this.stages.map((s) => [s.id, s.shape]));
      if (fits) stages = new Map(this.stages.map((s) => [s.id, s]));
    }
    const model = stale ? read.model : this.stagesModel ?? read.model;
    return { model, root: read.json.root, plan: this.engine().planOf(model.model.spec), stages, stale };
  }

  /** Everything again for a new subscriber (a panel opened or reloaded). */
  private publish(): void {
    const read = this.read!;
    const model = read.model;
    this.post({ type: 'model', doc: this.doc, version: this.readVersion, problems: this.problems(), summary: model ? this.sender.wire(this.summary(model), this.readVersion) : null });
    if (!model || !this.stages) return;
    this.sender.plan(this.engine().planOf(model.model.spec));
    for (const s of this.stages) this.sender.postStage(s, this.stagesVersion, true);
    this.post({ type: 'done', doc: this.doc, version: this.stagesVersion, ms: { parse: 0, forward: 0 }, kernel: this.kernel().name });
    this.postRuntime(this.stagesVersion);
  }

  /** Compare on (a baseline) or off (null): everything is posted again. */
  setCompare(spec: CompareSpec | null): void {
    this.stopRun(); // (before the message below: a run's held messages are dropped with it)
    this.baseline = spec ? new Baseline(spec, this.store) : null;
    this.baselineRun = null;
    if (!spec) this.post({ type: 'compare', doc: this.doc, version: this.version, label: null, error: null, incomparable: [], top: null });
    this.rerunFull();
  }

  private rerunFull(): void {
    this.fullNext = true;
    this.stagesVersion = -1;
    this.schedule(true);
  }

  private postCompare(version: number, model: ModelFile): void {
    const b = this.baselineRun!;
    const plan = this.engine().planOf(model.model.spec);
    const incomparable = b.stages ? plan.filter((d) => b.stages!.get(d.id)?.length !== d.shape.reduce((x, y) => x * y, 1)).map((d) => d.id) : [];
    this.post({ type: 'compare', doc: this.doc, version, label: b.stages || b.error ? b.label : `${b.label} (reading its checkpoint…)`, error: b.error, incomparable, top: b.top });
  }

  // Compare: the difference from the baseline's stage of the same shape (the probabilities stay
  // as they are: the panel shows the two predictions side by side); else the stage itself.
  private comparedTo(s: Stage): Stage {
    const base = this.baselineRun?.stages?.get(s.id);
    if (!base || base.length !== s.data.length || s.id === HEAD_PROBS) return s;
    const diff = new Float32Array(s.data.length);
    for (let i = 0; i < diff.length; i++) diff[i] = s.data[i] - base[i];
    return { id: s.id, shape: s.shape, data: diff };
  }

  /** Line and column of an offset range in the current text (the line index is built once per text). */
  private lineCol(start: number, end: number): LineCol {
    if (this.lines?.version !== this.version) this.lines = { version: this.version, index: new LineIndex(this.text) };
    const a = this.lines.index.position(start);
    const b = this.lines.index.position(Math.max(end, start));
    return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }

  private problems(): WorkerProblem[] {
    return (this.read?.problems ?? []).map((p) => ({
      severity: p.severity, code: p.code, message: p.message, path: formatPath(p.path), start: p.start, end: p.end,
      ...this.lineCol(p.start, p.end),
      ...(p.fix ? { fix: p.fix } : {}),
    }));
  }

  /**
   * The model of the current text with its stages computed (a pending run is done now, one under
   * way finished now), or null while the text does not read as a model or its checkpoint is loading.
   */
  private upToDate(): { file: ModelFile; stages: Stage[] } | null {
    if (this.loading) return null;
    if (this.running?.version === this.version && !this.edits.size) this.running.slices.finish();
    else if (this.stagesVersion !== this.version || this.edits.size) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.runSafely();
      this.running?.slices.finish();
    }
    if (this.stagesVersion !== this.version || !this.stages || !this.stagesModel) return null;
    return { file: this.stagesModel, stages: this.stages };
  }

  /** Activation patching (docQueries.ts's runPatching); an edit of the document stops it: its result would describe the old model. */
  patch(id: number, req: Extract<LensRequest, { kind: 'patch' }>, reply: (r: QueryResult) => void): void {
    this.stopJob('another patching started');
    const job = runPatching(this.asked, id, req, this.postOut, reply, () => {
      if (this.job === job) this.job = null;
    });
    this.job = job;
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
