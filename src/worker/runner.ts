// When and how a document's model is computed. A change starts a run at once (changes that come
// together run once), and a newer change stops the run in flight between two stages: the forward
// goes in slices (slicedRun.ts), the worker reading its messages between them, so the panel gets
// the newest text's stages first. Only a text whose read is slow (a large file read whole, which
// no change can stop) waits out a burst: it runs at once after a quiet spell, else `debounceMs`
// after the last change. A run begun inside a burst holds its messages until it ends (outbox.ts).
import { Engine } from '../core/engine';
import type { MatmulKernel } from '../core/kernel';
import { isOutOfMemory } from '../core/runSize';
import type { StageDef } from '../core/graph';
import type { Stage } from '../core/stages';
import { formatPath } from '../model/problems';
import type { ModelFile } from '../model/read';
import type { WorkerProblem } from '../protocol/worker';
import type { Comparison } from './comparison';
import type { DocStages } from './docStages';
import type { Outbox } from './outbox';
import { runtimeProblems } from './runtimeProblems';
import { SlicedRun } from './slicedRun';
import { NO_POSTING, type StagePublisher } from './stagePublisher';
import type { DocText } from './textSync';
import { internalFault } from '../common/faultText';

/** A run under way: its version, the stages it computed so far, and the slices that drive it. */
/** `posting`: the publisher's number for what it posts (forgotten if it is stopped). */
interface Running { readonly version: number; readonly posting: number; readonly stages: Stage[]; readonly slices: SlicedRun<Stage[]> }

/** The stages of the last run that ended, the version and model they are of. */
interface LastRun { readonly version: number; readonly stages: Stage[]; readonly file: ModelFile }

/** What the runner works with: the document's text, its outbox, what its panel is sent, compare. */
export interface RunnerParts {
  readonly doc: string;
  readonly text: DocText;
  readonly out: Outbox;
  readonly publisher: StagePublisher;
  readonly comparison: Comparison;
  readonly kernel: () => MatmulKernel;
  readonly debounceMs: () => number;
  /** A run ended: the version and model it computed (generation begins on it: generationJob.ts). */
  readonly ended?: (version: number, file: ModelFile) => void;
}

export class DocRunner {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastRun = -Infinity;
  /** The run under way (its forward in slices), if any. */
  private running: Running | null = null;
  /** The stages of the last run that ended (null: none yet; version -1: of no text any more). */
  private last: LastRun | null = null;
  /** The engine that computes the runs (made on the first). */
  private _engine: Engine | null = null;
  /** When the host sent the last change and the worker took it (the benchmark's trace). */
  private changeAt: [number, number] | null = null;
  /** When the last change came, and whether it came inside a burst (soon after another, or while a run was under way). */
  private lastChange = -Infinity;
  private burst = false;
  /** The next run sends every stage in full (a panel subscribed while it was pending). */
  private fullNext = false;
  /** Runs stopped by a newer change before their end (tests and the benchmark look). */
  stoppedRuns = 0;

  constructor(private readonly p: RunnerParts) {}

  get engine(): Engine {
    return (this._engine ??= new Engine(this.p.kernel()));
  }

  /** The version of the run under way, or null. */
  get runningVersion(): number | null {
    return this.running?.version ?? null;
  }

  /** The stages of the current text: of the run under way, or of the last that ended (null: neither is of it). */
  currentStages(): { version: number; stages: readonly Stage[] } | null {
    const v = this.p.text.version;
    if (this.running?.version === v) return this.running;
    return this.last?.version === v ? this.last : null;
  }

  /** The last run's stages are of the current text, and its read too: a new subscriber can be sent them as they are. */
  get upToDateWithText(): boolean {
    return this.p.text.readIsCurrent && this.last?.version === this.p.text.version;
  }

  /** A change came (`sentAt`: when the host sent it): the run under way is of an older text. */
  changing(sentAt?: number): void {
    const now = Date.now();
    this.burst = now - this.lastChange < this.p.debounceMs() || this.running !== null;
    this.lastChange = now;
    this.stopRun(); // (its stages would be of an older text: the run of this one begins at once)
    this.changeAt = sentAt === undefined ? null : [sentAt, Date.now()];
  }

  schedule(now = false): void {
    this.stopRun();
    if (this.timer) clearTimeout(this.timer);
    const d = this.p.debounceMs();
    // A run a newer change stops costs little, so it begins at once (at the timer: the changes
    // that came together run once). A read of the whole text cannot be stopped: when the last
    // took long, a burst of changes runs on its leading edge and `d` after its last change.
    const quick = this.p.text.quickToRead(d / 4);
    const quiet = this.timer === null && Date.now() - this.lastRun >= d;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runSafely();
    }, now || quick || quiet ? 0 : d);
  }

  /** Everything again, every stage in full (compare turned on or off, a checkpoint read again). */
  rerunFull(): void {
    this.fullNext = true;
    // (its stages are of no version now, but a hover reads them meanwhile where the shapes fit)
    if (this.last) this.last = { ...this.last, version: -1 };
    this.schedule(true);
  }

  /** The next run sends every stage in full (a subscriber has none of the stages it would call unchanged). */
  runFullNext(): void {
    this.fullNext = true;
    this.schedule(true);
  }

  /** Stops the run under way (a newer text or a new subscriber): what it sent the panel is not built on. */
  stopRun(): void {
    this.dropHeld(); // (what it posted goes nowhere)
    const r = this.running;
    if (!r) return;
    this.running = null;
    if (!r.slices.running) return;
    r.slices.stop();
    this.stoppedRuns++;
    this.p.publisher.forget(r.posting);
  }

  /** The messages the outbox holds go nowhere; a run that ended and waited for the panel is forgotten with them. */
  private dropHeld(): void {
    const waited = this.p.out.drop();
    if (waited !== null) this.p.publisher.forget(waited);
  }

  /** Runs a pending computation now, to its end, instead of at its timer and in slices. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.runSafely();
    }
    this.running?.slices.finish();
  }

  dispose(): void {
    this.stopRun();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this._engine?.dispose();
    this._engine = null;
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
    this.dropHeld();
    this.p.text.forgetRead();
    this._engine?.dispose();
    this._engine = null;
    // (an allocation refused: the machine's memory, not a bug; the bound in runSize.ts did not foresee it)
    const message = isOutOfMemory(e)
      ? 'FFN Lens ran out of memory computing this model: give a shorter input or fewer layers, or close other model files'
      : `FFN Lens could not compute this model: ${internalFault('its forward', e)}`;
    const { doc, text, out } = this.p;
    out.post({ type: 'log', message: `run failed: ${(e as Error)?.stack ?? String(e)}` });
    out.post({ type: 'model', doc, version: text.version, summary: null, problems: [{ severity: 'error', code: 'internal', message, path: '$', start: 0, end: 0, line: 1, col: 1, endLine: 1, endCol: 1 }] });
  }

  /** Reads the text, posts the model message, and begins its forward (in slices: a newer change stops it). */
  private run(): void {
    const { doc, text, out, publisher, comparison } = this.p;
    this.stopRun();
    const inBurst = this.burst;
    out.begin(inBurst);
    this.burst = false;
    this.lastRun = Date.now();
    const trace = this.changeAt ? [...this.changeAt, this.lastRun] : undefined;
    this.changeAt = null;
    const version = text.version;
    const t0 = performance.now();
    const read = text.ensureRead();
    if (text.loading) {
      if (!text.tokenizing) out.post({ type: 'loading', doc, version, what: read.checkpoint?.folder ?? '', ...(text.loadingFolder ? { folder: text.loadingFolder } : {}) });
      // (how far its read is, now: a panel opened after the read began is told before the next percent)
      const under = text.readUnderWay();
      if (under) out.post({ type: 'checkpointRead', ...under });
      return out.release(NO_POSTING);
    }
    const t1 = performance.now();
    if (text.notModel(read)) {
      out.post({ type: 'notModel', doc, version });
      return out.release(NO_POSTING);
    }
    const file = read.file;
    const plan = file ? this.engine.planOf(file.model.spec) : null;
    const posting = publisher.postModel(version, text.problems(), file && plan && { file, plan }, trace && [...trace, Date.now()], text.readCancelledAt(read));
    if (!file) return out.release(posting);
    // compare: the baseline first (its stages are what each stage is posted against), in full
    const compare = comparison.begin(version, file, this.engine, () => this.rerunFull());
    if (compare) out.post(compare);
    const full = this.fullNext || comparison.on;
    this.fullNext = false;
    const stages: Stage[] = [];
    const walk = this.engine.walk(file.model, text.takeEdits(), (s) => {
      stages.push(s);
      publisher.postStage(s, version, full);
    });
    const ended = (all: Stage[]): void => {
      this.running = null;
      this.last = { version, stages: all, file };
      this.postDone(version, { parse: t1 - t0, forward: performance.now() - t1 });
      // (a burst's run goes out once the keys paused for the debounce, and the render before was
      // drawn; generation begins once the panel has it)
      out.release(posting, () => this.p.ended?.(version, file), inBurst ? this.lastChange + this.p.debounceMs() : 0);
    };
    const running: Running = { version, posting, stages, slices: new SlicedRun(walk, ended, (e) => this.failed(e)) };
    this.running = running;
    running.slices.start();
  }

  private postDone(version: number, ms: { parse: number; forward: number }): void {
    this.p.out.post({ type: 'done', doc: this.p.doc, version, ms, kernel: this.p.kernel().name });
    const c = this.computed();
    const problems: WorkerProblem[] = c ? runtimeProblems(c).map((p) => ({
      severity: 'warning' as const, code: p.code, message: p.message, path: formatPath(p.path), start: p.start, end: p.end,
      ...this.p.text.lineCol(p.start, p.end),
    })) : [];
    this.p.out.post({ type: 'runtime', doc: this.p.doc, version, problems });
  }

  /** Everything again for a new subscriber (a panel opened or reloaded), from the last run: it is of the current text (`upToDateWithText`). */
  replay(): void {
    const { text, publisher } = this.p;
    const file = text.read?.file ?? null;
    publisher.postModel(text.readOf, text.problems(), file && { file, plan: this.engine.planOf(file.model.spec) }, undefined, text.read ? text.readCancelledAt(text.read) : undefined);
    const last = this.last;
    if (!file || !last) return;
    for (const s of last.stages) publisher.postStage(s, last.version, true);
    this.postDone(last.version, { parse: 0, forward: 0 });
  }

  /** Another run of the current text's model in full (the input and its generated tokens: generationSequence.ts), as a render of its version. */
  show(run: { readonly file: ModelFile; readonly plan: readonly StageDef[]; readonly stages: readonly Stage[]; readonly input: number }): void {
    const { text, publisher } = this.p;
    const version = text.version;
    publisher.postModel(version, text.problems(), { file: run.file, plan: run.plan, generated: run.input });
    for (const s of run.stages) publisher.postStage(s, version, true);
    this.postDone(version, { parse: 0, forward: 0 });
  }

  /**
   * The current text's model with the latest computed stages. When the text changed since, the
   * stages are kept only if the shapes still fit (then marked stale).
   */
  computed(): DocStages | null {
    const read = this.p.text.ensureRead();
    if (!read.file) return null;
    const last = this.last;
    const stale = last?.version !== this.p.text.version;
    let stages = new Map<string, Stage>();
    if (last) {
      const fits = !stale || JSON.stringify(this.engine.planOf(read.file.model.spec).map((s) => [s.id, s.shape])) === JSON.stringify(last.stages.map((s) => [s.id, s.shape]));
      if (fits) stages = new Map(last.stages.map((s) => [s.id, s]));
    }
    const file = stale || !last ? read.file : last.file;
    return { file, root: read.json.root, plan: this.engine.planOf(file.model.spec), stages, stale };
  }

  /**
   * The model of the current text with its stages computed (a pending run is done now, one under
   * way finished now), or null while the text does not read as a model or its checkpoint is loading.
   */
  upToDate(): { file: ModelFile; stages: Stage[] } | null {
    const text = this.p.text;
    if (text.loading) return null;
    if (this.running?.version === text.version && !text.hasEdits) this.running.slices.finish();
    else if (this.last?.version !== text.version || text.hasEdits) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.runSafely();
      this.running?.slices.finish();
    }
    const last = this.last;
    if (last?.version !== text.version) return null;
    return { file: last.file, stages: last.stages };
  }

  /** The version of the stages `upToDate` gives (-1: none). */
  get stagesVersion(): number {
    return this.last?.version ?? -1;
  }
}
