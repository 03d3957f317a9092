// A long computation (the forward pass, a step at a time) run in slices of a few milliseconds,
// the worker reading its messages between two: a newer edit is seen within a slice of arriving
// and stops the run in flight (a GPT-2-small forward holds the thread 150-300 ms whole).

/**
 * How long a slice computes before the worker reads its messages (a GPT-2-small stage: ≤ ~10 ms).
 * Tests set 0: one step a slice, so that they can act between any two.
 */
export const slicing = { ms: 8 };

type Task = () => void;

/**
 * `f` as the worker's next task, after the messages already waiting: setImmediate on Node (its
 * check phase follows the poll that delivers a worker's messages), else a MessageChannel's message
 * (a Web Worker: a nested setTimeout is clamped to 4 ms there).
 */
export const nextTask: (f: Task) => void = (() => {
  const g = globalThis as unknown as { setImmediate?: (f: Task) => unknown; MessageChannel?: new () => { port1: { onmessage: (() => void) | null }; port2: { postMessage(m: null): void } } };
  if (typeof g.setImmediate === 'function') {
    const setImmediate = g.setImmediate;
    return (f: Task) => void setImmediate(f);
  }
  if (typeof g.MessageChannel === 'function') {
    const queue: Task[] = [];
    const channel = new g.MessageChannel();
    channel.port1.onmessage = () => queue.shift()?.();
    return (f: Task) => {
      queue.push(f);
      channel.port2.postMessage(null);
    };
  }
  return (f: Task) => void setTimeout(f, 0);
})();

/**
 * Drives `steps` to its end in slices (the first at once), then hands its result to `end`; an
 * error thrown by a step goes to `fail`. `stop()` ends it between two steps (the generator's
 * `return()`: its finally blocks run); `finish()` runs what is left now, for one who needs the
 * result before answering.
 */
export class SlicedRun<T> {
  private over = false;

  constructor(
    private readonly steps: Generator<unknown, T, void>,
    private readonly end: (result: T) => void,
    private readonly fail: (e: unknown) => void,
  ) {}

  /** Neither ended, failed nor stopped. */
  get running(): boolean {
    return !this.over;
  }

  start(): void {
    this.slice(slicing.ms);
  }

  finish(): void {
    this.slice(Infinity);
  }

  stop(): void {
    if (this.over) return;
    this.over = true;
    try {
      this.steps.return(undefined as T);
    } catch (e) {
      this.fail(e);
    }
  }

  private slice(ms: number): void {
    if (this.over) return;
    const until = performance.now() + ms;
    let r: IteratorResult<unknown, T>;
    try {
      do r = this.steps.next();
      while (!r.done && performance.now() < until);
    } catch (e) {
      this.over = true;
      this.fail(e);
      return;
    }
    if (r.done) {
      this.over = true;
      this.end(r.value);
      return;
    }
    if (ms !== Infinity) nextTask(() => this.slice(slicing.ms));
  }
}
