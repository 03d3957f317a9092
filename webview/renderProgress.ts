// How far a render is, in the header: after 400 ms without the render complete, how many of the
// stages the panel shows are in (a long input, a deep model); a fast render never flickers it.
/** Where it is said (the panel's header: header.ts). */
export interface ProgressLine { progress(text: string | null): void }

/** Runs `fn` after `ms`; returns what stops it (a test runs it at once, by hand). */
export type Later = (fn: () => void, ms: number) => () => void;

const later: Later = (fn, ms) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

/** How long a render may take before the header says how far it is. */
export const PROGRESS_AFTER_MS = 400;

export class RenderProgress {
  /** Stops the wait before the count is shown (null: not waiting). */
  private timer: (() => void) | null = null;
  private expected = 0;

  constructor(
    private readonly header: ProgressLine,
    private readonly received: () => number | null,
    private readonly after: Later = later,
  ) {}

  /** A render begins; `count`: how many stages it will bring (asked when the count is first shown). */
  start(count: () => number): void {
    this.timer?.();
    this.header.progress(null);
    this.expected = 0;
    this.timer = this.after(() => {
      this.timer = null;
      this.expected = count();
      this.show();
    }, PROGRESS_AFTER_MS);
  }

  /** A stage came: the count follows, once it is shown. */
  tick(): void {
    if (this.timer === null && this.expected) this.show();
  }

  /** The render is complete, or is not coming. */
  end(): void {
    this.timer?.();
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
