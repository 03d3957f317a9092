// The panel's side of the worker's stage publisher (src/worker/stageSender.ts): each kind of stage
// message turned into a card's numbers: a whole stage (a large one in pieces), a few changed
// columns, the same numbers as another stage, the numbers of the render before kept. A message
// that builds on numbers this panel does not hold asks for everything of the render again, once.
import type { ToWebview } from '../src/protocol/panel';
import type { RenderStream } from './stream';
import { post } from './viewState';
import type { StageCard } from './views/stageCard';

type Msg<K extends ToWebview['type']> = Extract<ToWebview, { type: K }>;

export class StageReceiver {
  /** Time spent handling the current render's stages (the benchmark reads how long the panel itself worked). */
  busyMs = 0;
  /** Each piece as it came: `id@offset:ms after the model message`, `id@offset~why:ms` when it says why it came whole (the benchmark and tests read them). */
  arrivals: string[] = [];
  /** The render for which everything was asked again (at most once per render). */
  private resyncedAt = -1;

  constructor(
    private readonly stream: RenderStream,
    private readonly cards: () => ReadonlyMap<string, StageCard>,
    /** A card got numbers of the render on screen (`data`: as they came, pooled words included). */
    private readonly arrived: (card: StageCard, data: Float32Array) => void,
  ) {}

  /** A render begins: its clocks from zero. */
  begin(): void {
    this.busyMs = 0;
    this.arrivals = [];
  }

  stage(msg: Msg<'stage'>): void {
    const t0 = performance.now();
    this.arrivals.push(`${msg.id}@${msg.offset}${msg.why ? `~${msg.why}` : ''}:${Date.now() - Number(document.body.dataset.modelAt ?? 0)}`);
    const data = this.stream.piece(msg.version, msg.id, msg.data, msg.offset, msg.total);
    if (data) this.store(msg.id, msg.shape, data, msg.pooled);
    this.busyMs += performance.now() - t0;
  }

  /** A few columns changed: the card's numbers of the render before, those columns written in. */
  cols(msg: Msg<'cols'>): void {
    const card = this.stream.current(msg.version) ? this.cards().get(msg.id) : undefined;
    const had = card?.data;
    if (!card) return;
    if (!had || had.pooled || card.dataVersion !== msg.base) return this.resync(msg.version);
    const t0 = performance.now();
    const data = had.data.slice();
    const width = had.shape[had.shape.length - 1];
    const got = new Float32Array(msg.data);
    const n = msg.cols.length;
    const rows = data.length / width;
    for (let r = 0; r < rows; r++) for (let k = 0; k < n; k++) data[r * width + msg.cols[k]] = got[r * n + k];
    this.store(msg.id, had.shape, data);
    this.busyMs += performance.now() - t0;
  }

  /** The rows from `from` on changed (a prompt typed): the card's rows before them, then these. */
  rows(msg: Msg<'rows'>): void {
    const card = this.stream.current(msg.version) ? this.cards().get(msg.id) : undefined;
    const had = card?.data;
    if (!card) return;
    const [rows, width] = msg.shape;
    const P = msg.pooled;
    const cols = P ?? width;
    if (!had || card.dataVersion !== msg.base || (had.pooled?.cols ?? 0) !== (P ?? 0) || had.data.length < msg.from * cols) return this.resync(msg.version);
    const t0 = performance.now();
    const got = new Float32Array(msg.data);
    const n = (rows - msg.from) * cols;
    if (got.length !== (P ? 2 * n : n)) return this.resync(msg.version);
    const keep = msg.from * cols;
    // (pooled: [rows][P] values, then [rows][P] word ids; each part's kept rows, then the new)
    const data = new Float32Array(P ? 2 * rows * cols : rows * cols);
    data.set(had.data.subarray(0, keep));
    data.set(got.subarray(0, n), keep);
    if (had.pooled) {
      data.set(had.pooled.words.subarray(0, keep), rows * cols);
      data.set(got.subarray(n), rows * cols + keep);
    }
    this.store(msg.id, msg.shape, data, P);
    this.busyMs += performance.now() - t0;
  }

  same(msg: Msg<'same'>): void {
    if (!this.stream.current(msg.version)) return;
    const of = this.cards().get(msg.of);
    if (!of?.data || of.dataVersion !== msg.version) return this.resync(msg.version);
    this.store(msg.id, of.data.shape, of.data.data);
  }

  kept(msg: Msg<'kept'>): void {
    const card = this.stream.current(msg.version) ? this.cards().get(msg.id) : undefined;
    if (!card) return;
    if (!card.hasData || card.dataVersion !== msg.base) return this.resync(msg.version);
    card.setCurrent();
    this.stream.render!.received++;
  }

  /** `pooled`: data is [rows][pooled] values then their [rows][pooled] word ids (src/protocol/worker.ts). */
  private store(id: string, shape: readonly number[], data: Float32Array, pooled?: number): void {
    const r = this.stream.render!;
    const card = this.cards().get(id);
    if (!card) return;
    const n = pooled ? shape[0] * pooled : 0;
    card.setData(pooled ? { shape, data: data.subarray(0, n), pooled: { cols: pooled, words: data.subarray(n) } } : { shape, data }, r.version);
    r.received++;
    this.arrived(card, data);
  }

  /**
   * The worker built a stage on numbers this panel does not hold (their messages were dropped as
   * stale on the way, or the cards were built anew): everything of the current render again, once.
   */
  private resync(version: number): void {
    if (this.resyncedAt === version) return;
    this.resyncedAt = version;
    // (counted where tests read it: a render after a resync comes whole, by design)
    document.body.dataset.resyncs = String(Number(document.body.dataset.resyncs ?? 0) + 1);
    post({ type: 'resync' });
  }
}
