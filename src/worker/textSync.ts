// A document's text inside the worker, kept in step with the editor by deltas, and its last read:
// a change inside a row of numbers patches the read in place (the params it changes are recorded
// for the engine), anything else reads the whole text again. A file that names a checkpoint reads
// once the checkpoint (and tokenizer) are loaded: `loading` meanwhile.
import { addChange, type Cols } from '../core/params';
import { sourceSlice } from '../model/jsonc';
import { TextChunks } from '../model/textChunks';
import { LineIndex } from '../model/lines';
import { ReadPatch } from '../model/incremental';
import { formatPath } from '../model/problems';
import { isModelRoot, readModel, type ReadResult } from '../model/read';
import { CheckpointResolver } from '../checkpoint/resolve';
import { resolveRead, type CheckpointStore, type ReadReport } from '../checkpoint/store';
import type { LineCol, ReadCancelledAt, TextChange, WorkerProblem } from '../protocol/worker';

export class DocText {
  /** The text of an editor's document (in chunks: see TextChunks), or the bytes of a file read from disk. */
  text: TextChunks | Uint8Array;
  version: number;
  read: ReadResult | null = null;
  private readVersion = -1;
  /** How long the last read of the whole text took (a change read in place takes next to nothing). */
  private fullReadMs = 0;
  /** Line starts of the text, built once per version (the chunks change in place). */
  private lines: { version: number; index: LineIndex } | null = null;
  /**
   * Params edited in place since the last run began (rows typed over): the engine recomputes what
   * reads them. A full read makes a new model, whose params the engine tells apart by themselves.
   */
  private edits = new Map<string, Cols>();
  /** Overrides of the checkpoint this document names, kept between reads (see resolve.ts). */
  private readonly resolver = new CheckpointResolver();
  /** A checkpoint or tokenizer is being loaded (or a prompt tokenized): the read waits for it. */
  loading: Promise<void> | null = null;
  /** Only a prompt is being tokenized (a fraction of a millisecond, as a rule): the panel is not told. */
  tokenizing = false;
  /** The checkpoint folder being loaded, as the store's read reports name it. */
  loadingFolder: string | undefined = undefined;
  /** The read of the checkpoint this text names was cancelled: its last report (the panel says it). */
  cancelledRead: ReadReport | null = null;
  /** Edits read incrementally so far (tests and the benchmark look). */
  incrementalEdits = 0;

  constructor(
    private readonly fileName: string,
    text: string | Uint8Array,
    version: number,
    /** Where checkpoints are loaded (null: a file that names one cannot be computed here). */
    private readonly store: CheckpointStore | null,
    /** The checkpoint a read waited for is in: run again. */
    private readonly loaded: () => void,
    /** Tracked for its text's look alone, until a parse shows its top level (see ToWorker 'open'). */
    private sniffed: boolean,
  ) {
    this.text = typeof text === 'string' ? new TextChunks(text) : text;
    this.version = version;
  }

  /**
   * The editor's changes, in order. The read follows them in place while each is a value edit
   * inside a row; returns why the text is out of step with the editor's (`length`), or null.
   */
  change(version: number, changes: readonly TextChange[], length: number): string | null {
    if (!(this.text instanceof TextChunks)) this.text = new TextChunks(sourceSlice(this.text, 0, this.text.length)); // (edits come only for documents)
    const text = this.text;
    let patch = this.read?.file && this.readVersion === this.version ? new ReadPatch(this.read) : null;
    for (const c of changes) {
      const removed = patch ? text.slice(c.offset, c.offset + c.length) : '';
      text.edit(c.offset, c.length, c.text);
      if (patch && !patch.apply(text, c, removed)) patch = null;
    }
    this.version = version;
    if (patch && this.markIncremental(patch)) {
      this.readVersion = version; // patched in place: the read is of this text
      this.incrementalEdits++;
    } else this.forgetRead(); // read again, all of it, and compute everything
    return text.length === length ? null : `text length ${text.length}, editor has ${length}`;
  }

  /** Records which params the patched rows change; false if they cannot say (then a full read is due). */
  private markIncremental(patch: ReadPatch): boolean {
    const changes = patch.paramChanges();
    if (!changes) return false;
    for (const [id, c] of changes) addChange(this.edits, id, c);
    return true;
  }

  /** The whole text anew (a file read from disk again). */
  replace(version: number, text: string | Uint8Array): void {
    this.text = typeof text === 'string' ? new TextChunks(text) : text;
    this.version = version;
    this.edits.clear();
  }

  /** The next read is of the whole text, and the next run computes everything. */
  forgetRead(): void {
    this.readVersion = -1;
    this.edits.clear();
  }

  /** The last read is of the current text. */
  get readIsCurrent(): boolean {
    return this.read !== null && this.readVersion === this.version;
  }

  /** The version the last read is of (-1: none). */
  get readOf(): number {
    return this.readVersion;
  }

  /** Whether reading the current text costs next to nothing (read in place, or the last whole read was quick for `budgetMs`). */
  quickToRead(budgetMs: number): boolean {
    return this.readVersion === this.version || this.fullReadMs < budgetMs;
  }

  /** Params edited in place that no run has taken yet. */
  get hasEdits(): boolean {
    return this.edits.size > 0;
  }

  /** The params edited in place since the last call (a run takes them). */
  takeEdits(): Map<string, Cols> {
    const edits = this.edits;
    this.edits = new Map();
    return edits;
  }

  /** The read of the current text (parsing only: a hover never runs the forward pass). */
  ensureRead(): ReadResult {
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
    this.cancelledRead = 'cancelled' in r ? r.cancelled ?? null : null;
    if ('read' in r) return r.read;
    const version = this.version;
    const loading = r.loading.then(() => {
      if (this.loading !== loading) return;
      this.loading = null;
      if (this.version === version) this.readVersion = -1;
      this.loaded();
    });
    this.loading = loading;
    this.tokenizing = r.tokenizing === true;
    this.loadingFolder = 'folder' in r ? r.folder : undefined;
    return read;
  }

  /** The read of the checkpoint this text waits for, as last told, while it is under way. */
  readUnderWay(): ReadReport | undefined {
    const r = this.loadingFolder === undefined ? undefined : this.store?.readReport(this.loadingFolder);
    return r?.state === 'reading' ? r : undefined;
  }

  /** Where the read of the checkpoint `read` names was cancelled, for its model message; undefined: it was not. */
  readCancelledAt(read: ReadResult): ReadCancelledAt | undefined {
    const r = this.cancelledRead;
    return r ? { what: read.checkpoint?.folder ?? '', folder: r.folder, done: r.done, total: r.total } : undefined;
  }

  /**
   * A sniffed document (tracked for its look) whose text parses to a top level that is not a
   * model's. While the text does not parse at all it may be a model half typed: it stays.
   */
  notModel(read: ReadResult): boolean {
    if (!this.sniffed || !read.json.root) return false;
    if (!isModelRoot(read.json.root)) return true;
    this.sniffed = false;
    return false;
  }

  /** Line and column of an offset range in the current text (the line index is built once per text). */
  lineCol(start: number, end: number): LineCol {
    if (this.lines?.version !== this.version) this.lines = { version: this.version, index: new LineIndex(this.text) };
    const a = this.lines.index.position(start);
    const b = this.lines.index.position(Math.max(end, start));
    return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }

  /** The last read's problems as the editor and the panel are sent them. */
  problems(): WorkerProblem[] {
    return (this.read?.problems ?? []).map((p) => ({
      severity: p.severity, code: p.code, message: p.message, path: formatPath(p.path), start: p.start, end: p.end,
      ...this.lineCol(p.start, p.end),
      ...(p.fix ? { fix: p.fix } : {}),
    }));
  }
}
