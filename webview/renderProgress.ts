// How far a render is, in the header: after 400 ms without the render complete, how many of the
// stages the panel shows are in (a long input, a deep model); a fast render never flickers it.
import type { PanelHeader } from './header';

export class RenderProgress {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private expected = 0;

  constructor(private readonly header: PanelHeader, private readonly received: () => number | null) {}

  /** A render begins; `count`: how many stages it will bring (asked when the count is first shown). */
  start(count: () => number): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.header.progress(null);
    this.expected = 0;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.expected = count();
      this.show();
    }, 400);
  }

  /** A stage came: the count follows, once it is shown. */
  tick(): void {
    if (this.timer === null && this.expected) this.show();
  }

  /** The render is complete, or is not coming. */
  end(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.expected = 0;
    this.header.progress(null);
  }

  private show(): void {
    const n = this.received();
    if (n === null) return;
    this.header.progress(n === 0 ? 'computing…' : `${Math.min(n, this.expected)} of ${this.expected} stages…`);
  }
}
