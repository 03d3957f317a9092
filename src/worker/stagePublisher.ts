// What a document's panel (its subscriber) is sent, and what it holds: the model message with its
// summary (the words and the plan only when the panel lacks them), and the stages it shows, each in
// one of the four encodings of src/protocol/stageMessages.ts: in full (in pieces), as its changed
// columns, named as another's numbers of the same version, or as kept. The runner (runner.ts)
// decides when; this decides how.
import type { StageDef } from '../core/graph';
import { shownFirst } from '../core/shownFirst';
import type { ModelSpec } from '../core/spec';
import { stagesAtT } from '../core/stageView';
import type { Stage } from '../core/stages';
import { leadingView } from '../core/rowBuffer';
import type { ModelFile } from '../model/read';
import type { AxisKind, ModelSummary, StageView, SummaryMessage } from '../protocol/stages';
import type { FromWorker, ReadCancelledAt, WorkerProblem } from '../protocol/worker';
import { planTokenDims } from './planTokens';
import { layoutSignature, stageView, summarize } from './summary';
import { DEFAULT_POOL_COLS, HEAD_PROBS, poolAcrossVocab, PREDICTION_TOP, topWords, vocabWide } from './vocabStages';

export type Post = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

/** What a run that posted no model message (a checkpoint still loading) has to forget: nothing. */
export const NO_POSTING = 0;

/** Floats per piece of a stage (128 KB): each postMessage, here and on to the webview, stays short. */
export const STAGE_PIECE = 32768;

/** Which key of a summary's part (its words, its plan) the panel holds, and the posting whose model message carried it. */
class HeldPart {
  private key = -1;
  private posting = -1;

  /** Whether the panel holds `key` already; if not, it is taken as sent now, in `posting`. */
  has(key: number, posting: number): boolean {
    if (this.key === key) return true;
    this.key = key;
    this.posting = posting;
    return false;
  }

  /** `posting`'s messages may never reach the panel (none given: nothing reached it): what they carried is not held. */
  forget(posting?: number): void {
    if (posting !== undefined && this.posting !== posting) return;
    this.key = -1;
    this.posting = -1;
  }
}

/**
 * The plan as the panel reads it (its stages without their ops, `dims`: which of their dims are T),
 * and a number that changes exactly when it does but for T (the panel sets those dims to the summary's T).
 */
interface Planned { readonly plan: readonly StageDef[] | null; readonly views: readonly StageView[]; readonly dims: readonly number[]; readonly json: string; readonly key: number }

export class StagePublisher {
  subscribed = false;
  /** The last model message was of a generation's sequence (its input and the tokens generated: generationSequence.ts), not of the input. */
  showsGenerated = false;
  /** The panel's layout: its signature, its words, and a number that changes with them (ModelSummary.layoutKey). */
  private layout: { signature: string; vocab: readonly string[]; key: number } = { signature: '', vocab: [], key: 0 };
  /** The words of the model and a number that changes with them (ModelSummary.vocabKey: a prompt typed keeps them). */
  private words: { vocab: readonly string[]; key: number } = { vocab: [], key: 0 };
  private planned: Planned = { plan: null, views: [], dims: [], json: '', key: 0 };
  /** The words and the plan the subscriber holds (the model message then leaves them out). */
  private readonly vocabHeld = new HeldPart();
  private readonly planHeld = new HeldPart();
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
  private sent = new Map<string, { data: Float32Array; version: number; posting: number; pooled?: boolean }>();
  /**
   * Each model message begins a posting (a run, a replay): what one sends is forgotten together if
   * it never reaches the panel. Not the version: a run of a version again (a checkpoint loaded, a
   * panel subscribed) that is stopped leaves what the run before it of that version delivered.
   */
  private posting = 0;
  /** The stages sent in full in the version being posted, by their numbers (to name an alias instead). */
  private sentNow: { version: number; byData: Map<Float32Array, string> } = { version: -1, byData: new Map() };

  constructor(
    private readonly doc: string,
    private readonly post: Post,
    /** What the panel is shown of a stage (while comparing: its difference from the baseline's). */
    private readonly shown: (s: Stage) => Stage,
  ) {}

  /** A panel subscribed (it holds nothing yet) or went away. */
  subscribe(on: boolean): void {
    this.subscribed = on;
    this.sent.clear();
    this.sentNow = { version: -1, byData: new Map() };
    this.vocabHeld.forget();
    this.planHeld.forget();
  }

  /** The panel shows these stages now, `cols` wide (a stage it holds pooled to another width goes again). */
  want(ids: readonly string[] | null, cols = DEFAULT_POOL_COLS): void {
    this.wanted = ids ? new Set(ids) : null;
    if (cols === this.poolCols) return;
    // a new width: the stages sent pooled go again, in full (not named as the numbers already sent)
    this.poolCols = cols;
    for (const [id, sent] of this.sent) if (sent.pooled) this.sent.delete(id);
    this.sentNow = { version: -1, byData: new Map() };
  }

  /** Whether the panel shows stage `id` and lacks these numbers of it. */
  lacks(s: Stage): boolean {
    return this.isWanted(s.id) && this.sent.get(s.id)?.data !== s.data;
  }

  /**
   * The run that posted `posting` (postModel's number) was stopped: what it sent may never reach
   * the panel (the host drops what is older than the document), so nothing is named as those
   * numbers; they go again in full. What earlier postings sent stays held (a stage this one only
   * named as kept is still the panel's).
   */
  forget(posting: number): void {
    for (const [id, s] of this.sent) if (s.posting === posting) this.sent.delete(id);
    if (posting === this.posting) this.sentNow = { version: -1, byData: new Map() };
    this.vocabHeld.forget(posting);
    this.planHeld.forget(posting);
  }

  /**
   * The model message of `version`: the file's problems and, when it reads as a model (`model`
   * and its `plan`), its summary as the subscriber is sent it. The plan's stages are those posted next.
   */
  /** Begins a posting with the model message of `version`: returns its number (what `forget` takes). */
  postModel(version: number, problems: readonly WorkerProblem[], model: { file: ModelFile; plan: readonly StageDef[]; generated?: number } | null, trace?: readonly number[], readCancelled?: ReadCancelledAt): number {
    this.posting++;
    // (a run's stages follow its model message: a stage is named as the numbers of another sent
    // in this run only; a run again of the same version, compare turned on or off, is another run)
    this.sentNow = { version: -1, byData: new Map() };
    this.showsGenerated = model?.generated !== undefined;
    const made = model && this.summary(model.file, model.plan);
    const summary = made ? this.wire(model?.generated === undefined ? made : { ...made, generated: { input: model.generated } }) : null;
    if (model) this.axes = new Map(model.plan.map((d) => [d.id, d.cols]));
    this.post({ type: 'model', doc: this.doc, version, problems, summary, ...(trace ? { trace } : {}), ...(readCancelled ? { readCancelled } : {}) });
    return this.posting;
  }

  /** The summary as the subscriber is sent it in this posting's model message: its words and plan left out when it holds them. */
  private wire(s: ModelSummary): SummaryMessage {
    if (!this.subscribed) return s;
    const vocab = this.vocabHeld.has(s.vocabKey, this.posting) ? null : s.vocab;
    const stages = this.planHeld.has(s.planKey, this.posting) ? null : s.stages;
    return vocab === s.vocab && stages === s.stages ? s : { ...s, vocab, stages, tokenDims: stages && s.tokenDims };
  }

  /** The model's summary; a new layout key when its stages, tokens or words changed (the panel then holds nothing). */
  private summary(m: ModelFile, plan: readonly StageDef[]): ModelSummary {
    const planned = this.plannedOf(plan, m.model.spec);
    const signature = layoutSignature(m, stagesAtT(planned.views, planned.dims, 0));
    if (signature !== this.layout.signature || !sameStrings(m.vocab, this.layout.vocab)) {
      this.layout = { signature, vocab: m.vocab, key: this.layout.key + 1 };
      this.sent.clear(); // (a panel builds its cards anew for another layout: they hold nothing)
    }
    if (!sameStrings(m.vocab, this.words.vocab)) this.words = { vocab: m.vocab, key: this.words.key + 1 };
    const summary = summarize(m, planned.views, { layoutKey: this.layout.key, vocabKey: this.words.key, planKey: planned.key }, planned.dims);
    this.shownFirst = shownFirst(summary.stages, summary.layers.length);
    return summary;
  }

  /**
   * The plan's stages as the panel reads them, under a key that changes exactly when they do but
   * for their dims that are T (the engine keeps one plan per spec): another T keeps the key.
   */
  private plannedOf(plan: readonly StageDef[], spec: ModelSpec): Planned {
    if (plan === this.planned.plan) return this.planned;
    const views = plan.map(stageView);
    const was = this.planned;
    // (a token more or less, most often: the dims that were T are T again and the rest is as it
    // was, so the model need not be planned once more at T + 1 to find them)
    if (was.plan && was.views.length === views.length && spec.T > 0 && atT(views, was.dims, spec.T)) {
      const json = JSON.stringify([stagesAtT(views, was.dims, 0), was.dims]);
      if (json === was.json) return (this.planned = { ...was, plan, views });
    }
    const dims = planTokenDims(views, spec) ?? views.map(() => 0);
    const json = JSON.stringify([stagesAtT(views, dims, 0), dims]);
    this.planned = { plan, views, dims, json, key: json === was.json ? was.key : was.key + 1 };
    return this.planned;
  }

  private isWanted(id: string): boolean {
    const w = this.wanted === undefined ? this.shownFirst : this.wanted;
    return w === null || w.has(id);
  }

  /** `full`: a new subscriber, who has nothing yet; otherwise an unchanged stage is only named. */
  postStage(s: Stage, version: number, full: boolean): void {
    if (!this.subscribed || !this.isWanted(s.id)) return;
    const shown = this.shown(s);
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
      this.sent.set(s.id, { data: s.data, version, posting: this.posting });
      this.post({ type: 'same', doc: this.doc, version, id: s.id, of });
      return;
    }
    if (!wide) this.sentNow.byData.set(s.data, s.id);
    // a few columns changed from the numbers the panel holds: those columns alone
    if (had && !had.pooled && !wide && s.cols && s.base && had.data === s.base && had.data.length === s.data.length && s.shape.length === 2 && s.cols.size * 4 < s.shape[1]) {
      this.sent.set(s.id, { data: s.data, version, posting: this.posting });
      const [rows, width] = s.shape;
      const cols = [...s.cols].sort((a, b) => a - b);
      const out = new Float32Array(rows * cols.length);
      for (let r = 0; r < rows; r++) for (let k = 0; k < cols.length; k++) out[r * cols.length + k] = s.data[r * width + cols[k]];
      this.post({ type: 'cols', doc: this.doc, version, id: s.id, shape: s.shape, cols, data: out.buffer, base: had.version }, [out.buffer]);
      return;
    }
    // the rows before `from` are those the panel holds (a prompt typed: the tokens kept): the rest alone
    const from = had && !!had.pooled === !!wide && s.shape.length === 2 ? keptRows(had.data, s.data, s.shape[1]) : 0;
    if (had && from > 0) {
      this.sent.set(s.id, { data: s.data, version, posting: this.posting, ...(wide ? { pooled: true } : {}) });
      const [rows, width] = s.shape;
      const rest = s.data.subarray(from * width);
      const p = wide ? poolAcrossVocab(rest, rows - from, width, this.poolCols) : null;
      const data = (p ? p.data : rest.slice()).buffer as ArrayBuffer;
      this.post({ type: 'rows', doc: this.doc, version, id: s.id, shape: s.shape, from, data, base: had.version, ...(p ? { pooled: p.cols } : {}) }, [data]);
      if (s.id === HEAD_PROBS) this.post({ type: 'top', doc: this.doc, version, top: topWords(s.data, rows, width, PREDICTION_TOP) });
      return;
    }
    const why = full ? undefined : s.kept ? 'unheld' : 'computed';
    // across a vocabulary wider than the panel draws: pooled as the panel would, with the word of each value
    const pooled = wide ? poolAcrossVocab(s.data, s.shape[0], s.shape[1], this.poolCols) : null;
    this.sent.set(s.id, { data: s.data, version, posting: this.posting, ...(pooled ? { pooled: true } : {}) });
    // Pieces of their own, transferred (never a view into memory we keep using), sized for the
    // webview: the only copy of the numbers on their way to the panel.
    const numbers = pooled?.data ?? s.data;
    const total = numbers.length;
    for (let offset = 0; offset < total || offset === 0; offset += STAGE_PIECE) {
      const data = numbers.slice(offset, Math.min(total, offset + STAGE_PIECE)).buffer as ArrayBuffer;
      this.post({ type: 'stage', doc: this.doc, version, id: s.id, shape: s.shape, data, offset, total, ...(pooled ? { pooled: pooled.cols } : {}), ...(why ? { why } : {}) }, [data]);
      if (total === 0) break;
    }
    // the chart of the prediction reads the top words, not the 50,257 probabilities of each token
    if (s.id === HEAD_PROBS && s.shape.length === 2) this.post({ type: 'top', doc: this.doc, version, top: topWords(s.data, s.shape[0], s.shape[1], PREDICTION_TOP) });
  }
}

/**
 * How many leading rows (`width` numbers each) of `now` are bit for bit those of `held`: the rows a
 * 'rows' message leaves out. 0 unless fewer than all rows of `now` (else the stage is kept or whole).
 */
export function keptRows(held: Float32Array, now: Float32Array, width: number): number {
  if (width === 0 || held === now) return 0;
  // (a token appended in place: the held rows are the new stage's first, unread; rowBuffer.ts)
  if (leadingView(held, now)) return held.length < now.length ? held.length / width : 0;
  const rows = Math.min(held.length, now.length) / width;
  const a = new Uint32Array(held.buffer, held.byteOffset, held.length);
  const b = new Uint32Array(now.buffer, now.byteOffset, now.length);
  let r = 0;
  for (; r < rows; r++) {
    const o = r * width;
    let same = true;
    for (let c = 0; c < width; c++) if (a[o + c] !== b[o + c]) { same = false; break; }
    if (!same) break;
  }
  return r * width < now.length ? r : 0;
}

/** Every dim `dims` marks as T (a bit per dim of each stage's shape, as core/stageView.ts's tokenDims) is `T`. */
function atT(views: readonly StageView[], dims: readonly number[], T: number): boolean {
  return views.every((v, i) => v.shape.every((d, k) => !(dims[i] & (1 << k)) || d === T));
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
