// One open model document inside the worker: its text (kept in step with the editor by deltas),
// its last read and its last computed stages. Computing is debounced: the first change after a
// quiet spell runs at once, a burst of changes runs once, `debounceMs` after the last one.

import { Engine } from '../core/engine';
import { isOutOfMemory } from '../core/runSize';
import type { MatmulKernel } from '../core/kernel';
import { addChange, type Cols } from '../core/params';
import type { Stage } from '../core/stages';
import type { CompareSpec, FromWorker, LineCol, QueryResult, Query, TextChange, WorkerProblem } from '../protocol/worker';
import type { AxisKind, ModelSummary, SummaryMessage } from '../protocol/stages';
import { sourceSlice } from '../model/jsonc';
import { TextChunks } from '../model/textChunks';
import { LineIndex } from '../model/lines';
import { fixesFor } from '../model/fixes';
import { completionItems, completionPlace } from '../model/completion';
import { ReadPatch } from '../model/incremental';
import { locateStageCell } from '../model/locate';
import { formatPath } from '../model/problems';
import { isModelRoot, readModel, type ModelFile, type ReadResult } from '../model/read';
import { CheckpointResolver } from '../checkpoint/resolve';
import { resolveRead, type CheckpointStore } from '../checkpoint/store';
import { shownFirst } from '../core/shownFirst';
import { lenses } from './codeLenses';
import type { Computed } from './computed';
import { cursorTarget } from './cursorTarget';
import { hoverMarkdown } from './hoverText';
import { cellUnit, checkpointHover, checkpointLenses } from './checkpointText';
import { runtimeProblems } from './runtimeProblems';
import { layoutSignature, summarize } from './summary';
import { lensQuery, patchJob, patchResult } from './lensQueries';
import { Baseline, type BaselineRun } from './baseline';
import { DEFAULT_POOL_COLS, HEAD_PROBS, poolAcrossVocab, PREDICTION_TOP, topWords, vocabWide } from './vocabStages';
import { LensError } from '../lenses/cache';
import type { PatchProgress, Patching } from '../lenses/patching';
import type { LensRequest, LensResult } from '../protocol/lenses';

const NOT_READY = 'The lenses read the model as computed: they come once the file reads as a model (see its problems) and its checkpoint is in.';

export type Post = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

/** Floats per piece of a stage (128 KB): each postMessage, here and on to the webview, stays short. */
export const STAGE_PIECE = 32768;

export class DocSession {
  /** The text of an editor's document (in chunks: see TextChunks), or the bytes of a file read from disk. */
  private text: TextChunks | Uint8Array;
  private version: number;
  private subscribed = false;
  private read: ReadResult | null = null;
  private readVersion = -1;
  private stages: Stage[] | null = null;
  private stagesVersion = -1;
  private stagesModel: ModelFile | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastRun = -Infinity;
  /** When the host sent the last change and the worker took it (the benchmark's trace). */
  private changeAt: [number, number] | null = null;
  private forward: Engine | null = null;
  /** Compare: the baseline the stages are shown against, and its run for the version being posted. */
  private baseline: Baseline | null = null;
  private baselineRun: BaselineRun | null = null;
  /** The activation patching running, if any. */
  private job: { readonly id: number; stopped: string | null } | null = null;
  /** Line starts of the text, built once per version (the chunks change in place). */
  private lines: { version: number; index: LineIndex } | null = null;
  /** The next run sends every stage in full (a panel subscribed while it was pending). */
  private fullNext = false;
  /**
   * Params edited in place since the last run (rows typed over): the engine recomputes what reads
   * them. A full read makes a new model, whose params the engine tells apart by themselves.
   */
  private edits = new Map<string, Cols>();
  /** The panel's layout: its signature, its words, and a number that changes with them (ModelSummary.layoutKey). */
  private layout: { signature: string; vocab: readonly string[]; key: number } = { signature: '', vocab: [], key: 0 };
  /** The layoutKey whose words the subscriber holds (the model message then leaves them out). */
  private vocabSent = -1;
  /** Overrides of the checkpoint this document names, kept between reads (see resolve.ts). */
  private readonly resolver = new CheckpointResolver();
  /** A checkpoint or tokenizer is being loaded (or a prompt tokenized): the read waits for it. */
  private loading: Promise<void> | null = null;
  /** Only a prompt is being tokenized (a fraction of a millisecond, as a rule): the panel is not told. */
  private tokenizing = false;
  /**
   * The stages the panel shows (null: all); the others are computed but not sent. Until it says,
   * what a new panel shows of this model (`shownFirst`: a deep model's layers collapsed).
   */
  private wanted: ReadonlySet<string> | null | undefined = undefined;
  private shownFirst: ReadonlySet<string> | null = null;
  /**
   * The most columns the panel draws of a heatmap: a stage across a vocabulary wider than that goes
   * pooled to it (GPT-2's head.logits of 400 tokens: 80 MB whole, ~3 MB pooled).
   */
  private poolCols = DEFAULT_POOL_COLS;
  /** What the columns of each stage of the model being posted are (the plan's axis: 'vocab' goes pooled). */
  private axes = new Map<string, AxisKind>();
  /**
   * The numbers the subscriber holds of each stage and the version that sent them (a stage not
   * wanted is not there). A 'kept' or 'cols' names that version: a panel that holds other numbers
   * (their messages dropped as stale on the way, or its cards built anew) asks for all again.
   */
  private sent = new Map<string, { data: Float32Array; version: number; pooled?: boolean }>();
  /** The stages sent in full in the version being posted, by their numbers (to name an alias instead). */
  private sentNow: { version: number; byData: Map<Float32Array, string> } = { version: -1, byData: new Map() };
  /** Edits read incrementally so far (tests and the benchmark look). */
  incrementalEdits = 0;

  constructor(
    readonly doc: string,
    private readonly fileName: string,
    text: string | Uint8Array,
    version: number,
    private readonly post: Post,
    private readonly kernel: () => MatmulKernel,
    private readonly debounceMs: () => number,
    /** Tracked for its text's look alone, until a parse shows its top level (see ToWorker 'open'). */
    private sniffed = false,
    /** Where checkpoints are loaded (null: a file that names one cannot be computed here). */
    private readonly store: CheckpointStore | null = null,
  ) {
    this.text = typeof text === 'string' ? new TextChunks(text) : text;
    this.version = version;
    this.schedule();
  }

  change(version: number, changes: readonly TextChange[], length: number, sentAt?: number): void {
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
    this.subscribed = on;
    this.sent.clear(); // (a new subscriber holds nothing)
    this.sentNow = { version: -1, byData: new Map() };
    this.vocabSent = -1;
    if (!on) return;
    if (this.read && this.readVersion === this.version && this.stagesVersion === this.version) this.publish();
    else {
      this.fullNext = true; // the subscriber has none of the stages the next run would call unchanged
      this.schedule(true);
    }
  }

  /** The panel shows these stages now: the ones it lacks of the current run are sent at once. */
  want(ids: readonly string[] | null, cols = DEFAULT_POOL_COLS): void {
    this.wanted = ids ? new Set(ids) : null;
    if (cols !== this.poolCols) {
      // a new width: the stages sent pooled go again, in full (not named as the numbers already sent)
      this.poolCols = cols;
      for (const [id, sent] of this.sent) if (sent.pooled) this.sent.delete(id);
      this.sentNow = { version: -1, byData: new Map() };
    }
    if (!this.subscribed || !this.stages || this.stagesVersion !== this.version) return; // (the next run sends them)
    for (const s of this.stages) if (this.isWanted(s.id) && this.sent.get(s.id)?.data !== s.data) this.postStage(s, this.stagesVersion, true);
  }

  private isWanted(id: string): boolean {
    const w = this.wanted === undefined ? this.shownFirst : this.wanted;
    return w === null || w.has(id);
  }

  dispose(): void {
    this.stopJob('the model file was closed');
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.forward?.dispose();
    this.forward = null;
  }

  /** Runs a pending computation now instead of at its timer (tests drive the session this way). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.runSafely();
  }

  private schedule(now = false): void {
    if (this.timer) clearTimeout(this.timer);
    const wait = Date.now() - this.lastRun;
    const d = this.debounceMs();
    // Leading edge after a quiet spell, trailing edge inside a burst.
    const delay = now || (this.timer === null && wait >= d) ? 0 : d;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runSafely();
    }, delay);
  }

  private runSafely(): void {
    try {
      this.run();
    } catch (e) {
      // A bug of ours: said plainly, once, as a problem of the file; the worker lives on.
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
  }

  /** The read of the current text (parsing only: a hover never runs the forward pass). */
  private ensureRead(): ReadResult {
    if (!this.read || this.readVersion !== this.version) {
      this.read = this.withCheckpoint(readModel(this.text, this.fileName));
      this.readVersion = this.version;
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

  private run(): void {
    this.lastRun = Date.now();
    const trace = this.changeAt ? [...this.changeAt, this.lastRun] : undefined;
    this.changeAt = null;
    const version = this.version;
    const t0 = performance.now();
    const read = this.ensureRead();
    if (this.loading) {
      if (!this.tokenizing) this.post({ type: 'loading', doc: this.doc, version, what: read.checkpoint?.folder ?? '' });
      return;
    }
    const model = read.model;
    const t1 = performance.now();
    if (this.sniffed && read.json.root) {
      // (while the text does not parse at all it may be a model half typed: it stays, errors shown)
      if (!isModelRoot(read.json.root)) {
        this.post({ type: 'notModel', doc: this.doc, version });
        return;
      }
      this.sniffed = false;
    }
    const summary = model ? this.wire(this.summary(model)) : null;
    this.post({ type: 'model', doc: this.doc, version, problems: this.problems(), summary, ...(trace ? { trace: [...trace, Date.now()] } : {}) });
    if (!model) return;
    // compare: the baseline first (its stages are what each stage is posted against), in full
    this.baselineRun = this.baseline ? this.baseline.for(model, this.engine(), () => this.rerunFull()) : null;
    if (this.baseline) this.postCompare(version, model);
    const full = this.fullNext || this.baseline !== null;
    this.fullNext = false;
    const emit = this.subscribed ? (s: Stage): void => this.postStage(s, version, full) : undefined;
    const edits = this.edits;
    this.edits = new Map();
    this.axes = new Map(this.engine().planOf(model.model.spec).map((d) => [d.id, d.cols]));
    this.stages = this.engine().run(model.model, edits, emit);
    this.stagesVersion = version;
    this.stagesModel = model;
    this.post({ type: 'done', doc: this.doc, version, ms: { parse: t1 - t0, forward: performance.now() - t1 }, kernel: this.kernel().name });
    this.postRuntime(version);
  }

  /** The summary as the subscriber is sent it: its words left out when it holds this layout's. */
  private wire(s: ModelSummary): SummaryMessage {
    if (!this.subscribed) return s;
    if (this.vocabSent === s.layoutKey) return { ...s, vocab: null };
    this.vocabSent = s.layoutKey;
    return s;
  }

  private summary(m: ModelFile): ModelSummary {
    const plan = this.engine().planOf(m.model.spec);
    const signature = layoutSignature(m, plan);
    if (signature !== this.layout.signature || !sameStrings(m.vocab, this.layout.vocab)) {
      this.layout = { signature, vocab: m.vocab, key: this.layout.key + 1 };
      this.sent.clear(); // (a panel builds its cards anew for another layout: they hold nothing)
    }
    const summary = summarize(m, plan, this.layout.key);
    this.shownFirst = shownFirst(summary.stages, summary.layers.length);
    return summary;
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
    this.post({ type: 'model', doc: this.doc, version: this.readVersion, problems: this.problems(), summary: model ? this.wire(this.summary(model)) : null });
    if (!model || !this.stages) return;
    for (const s of this.stages) this.postStage(s, this.stagesVersion, true);
    this.post({ type: 'done', doc: this.doc, version: this.stagesVersion, ms: { parse: 0, forward: 0 }, kernel: this.kernel().name });
    this.postRuntime(this.stagesVersion);
  }

  /** `full`: a new subscriber, who has nothing yet; otherwise an unchanged stage is only named. */
  /** Compare on (a baseline) or off (null): everything is posted again. */
  setCompare(spec: CompareSpec | null): void {
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

  private postStage(s: Stage, version: number, full: boolean): void {
    if (!this.isWanted(s.id)) return;
    const shown = this.comparedTo(s);
    if (shown !== s) {
      s = shown;
      full = true;
    }
    const had = full ? undefined : this.sent.get(s.id);
    if (s.kept && had?.data === s.data) {
      this.post({ type: 'kept', doc: this.doc, version, id: s.id, base: had.version });
      return;
    }
    // the very numbers of a stage already sent in this version (an alias: `out`, `output`)
    const wide = vocabWide(this.axes.get(s.id), s.shape, this.poolCols);
    // (a stage sent pooled is never named as another's numbers: the panel would take them whole)
    const of = this.sentNow.version === version && !wide ? this.sentNow.byData.get(s.data) : undefined;
    if (this.sentNow.version !== version) this.sentNow = { version, byData: new Map() };
    if (of !== undefined) {
      this.sent.set(s.id, { data: s.data, version });
      this.post({ type: 'same', doc: this.doc, version, id: s.id, of });
      return;
    }
    if (!wide) this.sentNow.byData.set(s.data, s.id);
    // a few columns changed from the numbers the panel holds: those columns alone
    if (had && !had.pooled && !wide && s.cols && s.base && had.data === s.base && s.shape.length === 2 && s.cols.size * 4 < s.shape[1]) {
      this.sent.set(s.id, { data: s.data, version });
      const [rows, width] = s.shape;
      const cols = [...s.cols].sort((a, b) => a - b);
      const out = new Float32Array(rows * cols.length);
      for (let r = 0; r < rows; r++) for (let k = 0; k < cols.length; k++) out[r * cols.length + k] = s.data[r * width + cols[k]];
      this.post({ type: 'cols', doc: this.doc, version, id: s.id, shape: s.shape, cols, data: out.buffer, base: had.version }, [out.buffer]);
      return;
    }
    // across a vocabulary wider than the panel draws: pooled as the panel would, with the word of each value
    const pooled = wide ? poolAcrossVocab(s.data, s.shape[0], s.shape[1], this.poolCols) : null;
    this.sent.set(s.id, { data: s.data, version, ...(pooled ? { pooled: true } : {}) });
    // Pieces of their own, transferred (never a view into memory we keep using), sized for the
    // webview: the only copy of the numbers on their way to the panel.
    const numbers = pooled?.data ?? s.data;
    const total = numbers.length;
    for (let offset = 0; offset < total || offset === 0; offset += STAGE_PIECE) {
      const data = numbers.slice(offset, Math.min(total, offset + STAGE_PIECE)).buffer as ArrayBuffer;
      this.post({ type: 'stage', doc: this.doc, version, id: s.id, shape: s.shape, data, offset, total, ...(pooled ? { pooled: pooled.cols } : {}) }, [data]);
      if (total === 0) break;
    }
    // the chart of the prediction reads the top words, not the 50,257 probabilities of each token
    if (s.id === HEAD_PROBS && s.shape.length === 2) this.post({ type: 'top', doc: this.doc, version, top: topWords(s.data, s.shape[0], s.shape[1], PREDICTION_TOP) });
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
   * The model of the current text with its stages computed (a pending run is done now), or null
   * while the text does not read as a model or its checkpoint is loading.
   */
  private upToDate(): { file: ModelFile; stages: Stage[] } | null {
    if (this.loading) return null;
    if (this.stagesVersion !== this.version || this.edits.size) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.runSafely();
    }
    if (this.stagesVersion !== this.version || !this.stages || !this.stagesModel) return null;
    return { file: this.stagesModel, stages: this.stages };
  }

  /**
   * Activation patching of the document's input into its corrupted input, a slice of steps at a
   * time between the worker's other messages (an edit, a hover, a cancel); progress is posted as
   * it goes. An edit of the document stops it: its result would describe the old model.
   */
  patch(id: number, req: Extract<LensRequest, { kind: 'patch' }>, reply: (r: QueryResult) => void): void {
    this.stopJob('another patching started');
    const version = this.version;
    const fail = (message: string): void => reply({ kind: 'lens', version, result: { kind: 'error', lens: 'patch', message } });
    const cur = this.upToDate();
    if (!cur) return fail(NOT_READY);
    let steps: ReturnType<typeof patchJob>;
    try {
      steps = patchJob(cur.file, this.engine(), req);
    } catch (e) {
      if (e instanceof LensError) return fail(e.message);
      throw e;
    }
    const job = { id, stopped: null as string | null };
    this.job = job;
    const t0 = performance.now();
    const step = (): void => {
      if (job.stopped !== null) return fail(job.stopped);
      const until = performance.now() + 40; // (then the worker reads its messages)
      let r: IteratorResult<PatchProgress, Patching>;
      try {
        do r = steps.next();
        while (!r.done && performance.now() < until);
      } catch (e) {
        this.job = null;
        return fail(e instanceof LensError ? e.message : `patching failed: ${(e as Error).message}`);
      }
      if (r.done) {
        this.job = null;
        const runs = 2 + (r.value.resid ? r.value.resid.flat().length : 0) + (r.value.heads ? r.value.heads.flat().length : 0);
        this.post({ type: 'progress', id, done: runs, total: runs }); // (the bar reaches its end)
        return reply({ kind: 'lens', version, result: patchResult(cur.file, r.value, performance.now() - t0) });
      }
      this.post({ type: 'progress', id, done: r.value.done, total: r.value.total });
      setTimeout(step, 0);
    };
    setTimeout(step, 0);
  }

  /** Stops the running patching (if it is `id`'s, when given), saying why. */
  stopJob(why: string, id?: number): void {
    if (this.job && (id === undefined || this.job.id === id)) this.job.stopped = why;
    this.job = null;
  }

  query(q: Query): QueryResult | null {
    switch (q.kind) {
      case 'complete': {
        // (scanned back from the cursor in the text as it is: completion comes while it does not parse)
        const place = completionPlace(sourceSlice(this.text, 0, q.offset), q.offset);
        const checkpoint = /"checkpoint"\s*:/.test(sourceSlice(this.text, 0, Math.min(this.text.length, 1 << 16))) || !!this.read?.checkpoint;
        return { kind: 'complete', version: this.version, items: place ? completionItems(place, checkpoint) : [] };
      }
      case 'speed':
        return null; // (the worker's, not a document's: workerMain.ts answers it)
      case 'stage': {
        const cur = this.upToDate();
        const st = cur?.stages.find((x) => x.id === q.stageId);
        if (!cur || !st) return { kind: 'stage', version: this.version, error: cur ? `no stage ${q.stageId} in this model` : 'the model is not computed yet: export again once the panel shows it' };
        // (what the panel shows: while comparing, the difference from the baseline)
        const shown = this.comparedTo(st);
        const data = (shown === st ? st.data.slice() : shown.data).buffer as ArrayBuffer;
        return { kind: 'stage', version: this.stagesVersion, shape: st.shape, data, tokens: this.summary(cur.file).tokens };
      }
      case 'lens': {
        const req = q.request;
        if (req.kind === 'patch') return null; // (a job: patch())
        const cur = this.upToDate();
        const result: LensResult = cur ? lensQuery(req, cur.file, cur.stages, this.engine()) : { kind: 'error', lens: req.kind, message: NOT_READY };
        return { kind: 'lens', version: this.version, result };
      }
      case 'unit': {
        const r = this.ensureRead();
        const m = r.model;
        if (!m?.checkpoint) return { kind: 'unit', version: this.version, unit: null };
        const def = this.engine().planOf(m.model.spec).find((s) => s.id === q.stageId);
        return { kind: 'unit', version: this.version, unit: def ? cellUnit(m.model, def, q.index) : null };
      }
      case 'text-length':
        return { kind: 'text-length', version: this.version, length: this.text.length };
      case 'hover': {
        const read = this.ensureRead();
        if (!read.model) {
          const n = read.problems.filter((p) => p.severity === 'error').length;
          const around = sourceSlice(this.text, Math.max(0, q.offset - 1), q.offset + 1);
          const onNumber = /[-\d.eE+]/.test(around);
          return {
            kind: 'hover', version: this.version,
            hover: onNumber ? { markdown: `FFN Lens: this file does not read as a model (${n} problem${n === 1 ? '' : 's'}, see the Problems panel), so there are no values to show.`, start: q.offset, end: q.offset } : null,
          };
        }
        const c = this.computed();
        if (c?.model.checkpoint) return { kind: 'hover', version: this.version, hover: checkpointHover(c, q.offset, this.kernel()) };
        return { kind: 'hover', version: this.version, hover: c ? hoverMarkdown(this.text, c, q.offset) : null };
      }
      case 'lenses': {
        const c = this.computed();
        return { kind: 'lenses', version: this.version, lenses: !c ? [] : c.model.checkpoint ? checkpointLenses(c) : lenses(c) };
      }
      case 'cursor': {
        const c = this.computed();
        return { kind: 'cursor', version: this.version, cursor: c ? cursorTarget(this.text, c, q.offset) : null };
      }
      case 'fixes': {
        const r = this.ensureRead();
        return { kind: 'fixes', version: this.version, fixes: fixesFor(this.text, r.json.root, r.problems, r.model, q.start, q.end) };
      }
      case 'locate': {
        const r = this.ensureRead();
        if (!r.model) return { kind: 'locate', version: this.version, located: null };
        const stage = this.engine().planOf(r.model.model.spec).find((s) => s.id === q.stageId);
        const loc = stage ? locateStageCell(this.text, r, r.model.model, r.model.vocab, r.model.tokens, stage, q.index) : null;
        return { kind: 'locate', version: this.version, located: loc && { start: loc.start, end: loc.end, ...this.lineCol(loc.start, loc.end), what: `${loc.path}: ${loc.what}` } };
      }
    }
  }
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
