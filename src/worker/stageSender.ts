// What a document's panel (its subscriber) is sent, and what it holds: the stages it shows, each
// in full, as its changed columns, named as another's numbers or as kept; the layout its cards
// follow and the words of its vocabulary, sent once per layout. DocSession decides when; this
// decides how.
import type { StageDef } from '../core/graph';
import { shownFirst } from '../core/shownFirst';
import type { Stage } from '../core/stages';
import type { ModelFile } from '../model/read';
import type { AxisKind, ModelSummary, SummaryMessage } from '../protocol/stages';
import type { FromWorker } from '../protocol/worker';
import { layoutSignature, summarize } from './summary';
import { DEFAULT_POOL_COLS, HEAD_PROBS, poolAcrossVocab, PREDICTION_TOP, topWords, vocabWide } from './vocabStages';

export type Post = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

/** Floats per piece of a stage (128 KB): each postMessage, here and on to the webview, stays short. */
export const STAGE_PIECE = 32768;

export class StageSender {
  subscribed = false;
  /** The panel's layout: its signature, its words, and a number that changes with them (ModelSummary.layoutKey). */
  private layout: { signature: string; vocab: readonly string[]; key: number } = { signature: '', vocab: [], key: 0 };
  /** The words of the model and a number that changes with them (ModelSummary.vocabKey: a prompt typed keeps them). */
  private words: { vocab: readonly string[]; key: number } = { vocab: [], key: 0 };
  /** The vocabKey whose words the subscriber holds (the model message then leaves them out), and the version that sent them. */
  private vocabSent = { key: -1, version: -1 };
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
    this.vocabSent = { key: -1, version: -1 };
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
   * A run of `version` was stopped: what it sent may never reach the panel (the host drops what is
   * older than the document), so nothing is named as those numbers; they go again in full.
   */
  forget(version: number): void {
    for (const [id, s] of this.sent) if (s.version === version) this.sent.delete(id);
    if (this.sentNow.version === version) this.sentNow = { version: -1, byData: new Map() };
    if (this.vocabSent.version === version) this.vocabSent = { key: -1, version: -1 };
  }

  /** The stages of the model about to be posted (what their columns are). */
  plan(plan: readonly StageDef[]): void {
    this.axes = new Map(plan.map((d) => [d.id, d.cols]));
  }

  /** The summary as the subscriber is sent it in `version`'s model message: its words left out when it holds them. */
  wire(s: ModelSummary, version: number): SummaryMessage {
    if (!this.subscribed) return s;
    if (this.vocabSent.key === s.vocabKey) return { ...s, vocab: null };
    this.vocabSent = { key: s.vocabKey, version };
    return s;
  }

  /** The model's summary; a new layout key when its stages, tokens or words changed (the panel then holds nothing). */
  summary(m: ModelFile, plan: readonly StageDef[]): ModelSummary {
    const signature = layoutSignature(m, plan);
    if (signature !== this.layout.signature || !sameStrings(m.vocab, this.layout.vocab)) {
      this.layout = { signature, vocab: m.vocab, key: this.layout.key + 1 };
      this.sent.clear(); // (a panel builds its cards anew for another layout: they hold nothing)
    }
    if (!sameStrings(m.vocab, this.words.vocab)) this.words = { vocab: m.vocab, key: this.words.key + 1 };
    const summary = summarize(m, plan, this.layout.key, this.words.key);
    this.shownFirst = shownFirst(summary.stages, summary.layers.length);
    return summary;
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
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
