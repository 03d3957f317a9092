// Every message of a document's session goes out this way. A run begun inside a burst of changes
// holds its messages until it ends: a run the next change stops posts nothing (the panel would
// build each in-between text's layout and draw its stages, and fall behind the typing), and one
// that ends posts all at once.
//
// A burst's run that ends goes out once the keys have paused (`notBefore`: the debounce after the
// last change) and the panel has drawn the render before ('drawn': one render in flight); a newer
// change drops it meanwhile. VS Code's channel to the webview is a queue, and every render in it
// goes ahead of the one the user waits for: typing " basketball" at 120 ms a key, each in-between
// render drawn after the last key held the final one back by 100–700 ms.
import type { FromWorker } from '../protocol/worker';
import type { Post } from './stagePublisher';

/** How long a render waits for the one before it to be drawn (a panel that is hidden, or a webview that went away, never says); tests set it. */
export const drawWait = { ms: 1000 };

type Held = Array<[FromWorker, ArrayBuffer[] | undefined]>;

/** A run that ended and waits: its messages, its posting (the publisher's number), when it may go, what follows once they are out. */
interface Waiting { readonly posting: number; readonly held: Held; readonly notBefore: number; readonly then: () => void }

export class Outbox {
  private held: Held | null = null;
  private waiting: Waiting | null = null;
  /** The version of the render on its way to the panel (its 'done' posted, not yet drawn), or null. */
  private inFlight: number | null = null;
  /** The bound on the wait for the render in flight, and the wait for the keys to pause. */
  private drawTimer: ReturnType<typeof setTimeout> | null = null;
  private quietTimer: ReturnType<typeof setTimeout> | null = null;

  /** Posts a message now, or holds it with the run's others (or after the run that waits). */
  readonly post: Post = (m, transfer) => {
    if (this.held) this.held.push([m, transfer]);
    else if (this.waiting) this.waiting.held.push([m, transfer]);
    else this.out(m, transfer);
  };

  constructor(
    private readonly postOut: Post,
    /** Whether a panel draws what is posted (and says so: `drawn`). */
    private readonly drawing: () => boolean = () => false,
  ) {}

  /** A run begins: its messages are held (`hold`) or go out as they come. */
  begin(hold: boolean): void {
    this.held = hold ? [] : null;
  }

  /** The run was stopped (or failed), or a newer one begins: what it held goes nowhere. Returns the posting of a run that waited and is dropped with it. */
  drop(): number | null {
    this.held = null;
    const w = this.waiting;
    this.waiting = null;
    this.clearQuiet();
    return w ? w.posting : null;
  }

  /**
   * The run that posted `posting` ended: the messages it held go out, or wait until `notBefore`
   * (Date.now() time) and while the render before it is on its way to the panel. `then` follows
   * once they are out (never, if a newer change drops them).
   */
  release(posting: number, then: () => void = () => undefined, notBefore = 0): void {
    const held = this.held;
    this.held = null;
    if (held && this.drawing()) {
      this.waiting = { posting, held, notBefore, then };
      return this.tryWaiting();
    }
    this.flush(held ?? []);
    then();
  }

  /** The panel drew the render of `version` (or never will: the host dropped it as stale). */
  drawn(version: number): void {
    if (this.inFlight === null || version < this.inFlight) return;
    this.landed();
  }

  /** The panel went away or starts again: nothing waits for it. */
  reset(): void {
    const w = this.waiting;
    this.landed();
    if (w && this.waiting === w) this.go(w); // (nor for the keys to pause)
  }

  /** The document closed: nothing goes out any more. */
  dispose(): void {
    this.drop();
    this.inFlight = null;
    this.clearDraw();
  }

  /** The render on its way counts as drawn: a run that waits may go. */
  private landed(): void {
    this.inFlight = null;
    this.clearDraw();
    this.tryWaiting();
  }

  /** The run that waits goes out if the keys paused and nothing is on its way; else when they have. */
  private tryWaiting(): void {
    const w = this.waiting;
    if (!w || this.inFlight !== null) return;
    const left = w.notBefore - Date.now();
    if (left <= 0) return this.go(w);
    this.clearQuiet();
    this.quietTimer = unref(setTimeout(() => {
      this.quietTimer = null;
      this.tryWaiting();
    }, left));
  }

  private go(w: Waiting): void {
    this.waiting = null;
    this.clearQuiet();
    this.flush(w.held);
    w.then();
  }

  private clearDraw(): void {
    if (this.drawTimer) clearTimeout(this.drawTimer);
    this.drawTimer = null;
  }

  private clearQuiet(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
  }

  /** The messages held go out (the model message's "posted" stamped now: the bench's split). */
  private flush(held: Held): void {
    for (const [m, transfer] of held) this.out(m.type === 'model' && m.trace ? { ...m, trace: [...m.trace.slice(0, -1), Date.now()] } : m, transfer);
  }

  private out(m: FromWorker, transfer?: ArrayBuffer[]): void {
    this.postOut(m, transfer);
    if (m.type !== 'done' || !this.drawing()) return;
    this.inFlight = m.version;
    this.clearDraw();
    this.drawTimer = unref(setTimeout(() => {
      this.drawTimer = null;
      this.landed();
    }, drawWait.ms));
  }
}

/** Node: a bound on a wait, never what keeps the process alive. */
function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
