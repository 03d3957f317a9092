// Which stages the panel shows, told to the worker (through the host) so that only those are sent:
// a deep model's closed layers are not. The open sections' cards, and always what a new panel
// shows (the worker's rule too: src/core/shownFirst.ts), the overview's and the open lens's.
import type { ModelSummary } from '../src/protocol/stages';
import { shownFirst } from '../src/core/shownFirst';
import type { PanelLayout } from './layout';
import type { Overview } from './overview';
import { post } from './viewState';

export class WantedStages {
  /** The last set told to the worker. */
  private key = '';
  /** Stages a lens view draws from (beyond the open sections' cards). */
  private lens: readonly string[] = [];

  constructor(
    private readonly layout: PanelLayout,
    private readonly overview: Overview,
    private readonly summary: () => ModelSummary | null,
    private readonly maxCols: () => number,
  ) {}

  /** The stages the panel shows of `s` (null: all). */
  ids(s: ModelSummary): string[] | null {
    return this.layout.wanted(s, [...(shownFirst(s.stages, s.layers.length) ?? []), ...this.overview.ids(), ...this.lens]);
  }

  setLens(ids: readonly string[]): void {
    this.lens = ids;
    this.post();
  }

  /** A new subscriber: told again. */
  forget(): void {
    this.key = '';
  }

  /** Tells the worker, when it changed. */
  post(): void {
    const s = this.summary();
    if (!s) return;
    const ids = this.ids(s);
    const cols = this.maxCols();
    const key = `${cols} ${ids ? ids.slice().sort().join(',') : '*'}`;
    if (key === this.key) return;
    this.key = key;
    post({ type: 'want', ids, cols });
  }
}
