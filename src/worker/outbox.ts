// Every message of a document's session goes out this way. A run begun inside a burst of changes
// holds its messages until it ends: a run the next change stops posts nothing (the panel would
// build each in-between text's layout and draw its stages, and fall behind the typing), and one
// that ends posts all at once.
import type { FromWorker } from '../protocol/worker';
import type { Post } from './stagePublisher';

export class Outbox {
  private held: Array<[FromWorker, ArrayBuffer[] | undefined]> | null = null;
  /** Posts a message now, or holds it with the run's others. */
  readonly post: Post = (m, transfer) => {
    if (this.held) this.held.push([m, transfer]);
    else this.postOut(m, transfer);
  };

  constructor(private readonly postOut: Post) {}

  /** A run begins: its messages are held (`hold`) or go out as they come. */
  begin(hold: boolean): void {
    this.held = hold ? [] : null;
  }

  /** The run was stopped (or failed): what it held goes nowhere. */
  drop(): void {
    this.held = null;
  }

  /** The messages held for the run that ended go out (the model message's "posted" stamped now: the bench's split). */
  release(): void {
    const held = this.held;
    this.held = null;
    for (const [m, transfer] of held ?? []) this.postOut(m.type === 'model' && m.trace ? { ...m, trace: [...m.trace.slice(0, -1), Date.now()] } : m, transfer);
  }
}
