// Every message of a document's session goes out this way. A run begun inside a burst of changes
// holds its messages until it ends: a run the next change stops posts nothing (the panel would
// build each in-between text's layout and draw its stages, and fall behind the typing), and one
// that ends posts all at once.
//
// One render in flight: a render posted to a panel is on its way until the panel says it drew it
// ('drawn'). A burst's run that ends meanwhile waits here, and a newer change drops it: VS Code's
// channel to the webview is a queue, and every render in it would go ahead of the one the user
// waits for (typing " basketball": two or three in-between renders drawn after the last key).
import type { FromWorker } from '../protocol/worker';
import type { Post } from './stagePublisher';

/** How long a render waits for the one before it to be drawn (a panel that is hidden, or a webview that went away, never says); tests set it. */
export const drawWait = { ms: 1000 };

type Held = Array<[FromWorker, ArrayBuffer[] | undefined]>;

/** A run that ended while the render before it was still on its way: its messages, its version, what follows once they are out. */
interface Waiting { readonly version: number; readonly held: Held; readonly then: () => void }

export class Outbox {
  private held: Held | null = null;
  private waiting: Waiting | null = null;
  /** The version of the render on its way to the panel (its 'done' posted, not yet drawn), or null. */
  private inFlight: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

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

  /** The run was stopped (or failed), or a newer one begins: what it held goes nowhere. Returns the version of a run that waited and is dropped with it. */
  drop(): number | null {
    this.held = null;
    const w = this.waiting;
    this.waiting = null;
    return w ? w.version : null;
  }

  /**
   * The run of `version` ended: the messages it held go out, or wait while the render before it
   * is on its way to the panel. `then` follows once they are out (never, if a newer change drops them).
   */
  release(version: number, then: () => void = () => undefined): void {
    const held = this.held;
    this.held = null;
    if (held && this.inFlight !== null && this.drawing()) {
      this.waiting = { version, held, then };
      return;
    }
    this.flush(held ?? []);
    then();
  }

  /** The panel drew the render of `version` (or never will: the host dropped it as stale). */
  drawn(version: number): void {
    if (this.inFlight === null || version < this.inFlight) return;
    this.next();
  }

  /** The panel went away or starts again: nothing waits for it. */
  reset(): void {
    this.next();
  }

  /** The document closed: nothing goes out any more. */
  dispose(): void {
    this.drop();
    this.inFlight = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The render on its way counts as drawn: a run that waited goes out. */
  private next(): void {
    this.inFlight = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.waiting;
    if (!w) return;
    this.waiting = null;
    this.flush(w.held);
    w.then();
  }

  /** The messages held go out (the model message's "posted" stamped now: the bench's split). */
  private flush(held: Held): void {
    for (const [m, transfer] of held) this.out(m.type === 'model' && m.trace ? { ...m, trace: [...m.trace.slice(0, -1), Date.now()] } : m, transfer);
  }

  private out(m: FromWorker, transfer?: ArrayBuffer[]): void {
    this.postOut(m, transfer);
    if (m.type !== 'done' || !this.drawing()) return;
    this.inFlight = m.version;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.next();
    }, drawWait.ms);
    (this.timer as { unref?: () => void }).unref?.(); // (Node: a bound on a wait, never what keeps the process alive)
  }
}
