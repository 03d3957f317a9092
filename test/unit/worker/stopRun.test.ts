// A newer change stops the run in flight (issue 27: typing a prompt on GPT-2-small lagged, the
// panel drawing every in-between text). The session's forward goes a stage per slice here
// (slicing.ms = 0), and each test changes the text between two stages of a run: that run must
// stop there (no 'done', nothing of its version posted after the change), and the run of the
// newer text must leave the panel holding exactly the stages of a fresh session's run of that
// text, bit for bit, whether the panel got the stopped run's messages or the host dropped them as
// stale (it drops what is older than the document it has). Incremental edits stay incremental.
import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { tsKernel } from '../../../src/core/kernel';
import { nodeFiles } from '../../../src/checkpoint/nodeFiles';
import { CheckpointStore } from '../../../src/checkpoint/store';
import { generateModelText } from '../../../src/model/generate';
import type { FromWorker } from '../../../src/protocol/worker';
import { DocSession } from '../../../src/worker/session';
import { drawWait } from '../../../src/worker/outbox';
import { slicing } from '../../../src/worker/slicedRun';
import { applyStageMessage, type StageView } from '../../helpers/stageView';

const REPO = resolve(__dirname, '../../../..');
const STORE = new CheckpointStore(nodeFiles);
/** A model file beside samples/stories260K (a checkpoint with its tokenizer). */
const CHECKPOINT_FILE = join(REPO, 'samples', 'typing.ffn.json');

class Live {
  readonly messages: FromWorker[] = [];
  readonly session: DocSession;
  private waiters: Array<{ test: (m: FromWorker) => boolean; resolve: () => void }> = [];
  version = 1;

  constructor(public text: string, file = 'm.ffn.json', store: CheckpointStore | null = null, debounceMs = 0) {
    this.session = new DocSession('doc', file, text, 1, (m) => {
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => (w.test(m) ? (w.resolve(), false) : true));
    }, () => tsKernel, () => debounceMs, false, store); // (no debounce: a change is in a burst only while a run is under way)
    this.session.subscribe(true);
    this.session.want(null);
  }

  /** Resolves once a message passes `test` (one already posted counts), in a task after the one that posted it. */
  until(test: (m: FromWorker) => boolean, ms = 20_000): Promise<void> {
    if (this.messages.some(test)) return Promise.resolve();
    return new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no such message (${this.messages.length} posted)`)), ms);
      this.waiters.push({ test, resolve: () => { clearTimeout(timer); res(); } });
    });
  }

  done(version: number): Promise<void> {
    return this.until((m) => m.type === 'done' && m.version === version);
  }

  /** Replaces `find` (the first after `after`) by `by`: one change, the next version. */
  replace(find: string, by: string, after = ''): number {
    const at = this.text.indexOf(find, after ? this.text.indexOf(after) : 0);
    assert.ok(at >= 0, find);
    this.text = this.text.slice(0, at) + by + this.text.slice(at + find.length);
    this.session.change(++this.version, [{ offset: at, length: find.length, text: by }], this.text.length);
    return this.messages.length;
  }
}

/** The stages a fresh session's panel holds of `text`, by id. */
function fresh(text: string, file?: string, store?: CheckpointStore): StageView {
  const f = new Live(text, file, store ?? null);
  f.session.flush();
  const view: StageView = new Map();
  for (const m of f.messages) assert.equal(applyStageMessage(view, m), null);
  assert.ok(f.messages.some((m) => m.type === 'done'), 'the fresh session computed the text');
  f.session.dispose();
  return view;
}

/** What the panel holds after `messages` (those `drop` says the host dropped left out), against a fresh run, bit for bit. */
function sameAsFresh(messages: readonly FromWorker[], want: StageView, what: string, drop: (m: FromWorker) => boolean = () => false): void {
  const view: StageView = new Map();
  for (const m of messages) {
    if (drop(m)) continue;
    const complaint = applyStageMessage(view, m);
    assert.equal(complaint, null, `${what}: ${complaint}`);
  }
  assert.ok(want.size > 3, `${what}: ${want.size} stages`);
  for (const [id, w] of want) {
    const got = view.get(id);
    assert.ok(got, `${what}: the panel holds no ${id}`);
    assert.deepEqual(got.shape, w.shape, `${what}: ${id}'s shape`);
    assert.ok(Buffer.from(got.data.buffer, got.data.byteOffset, got.data.byteLength).equals(Buffer.from(w.data.buffer, w.data.byteOffset, w.data.byteLength)), `${what}: ${id} differs from a fresh run's`);
  }
}

const versionOf = (m: FromWorker): number | undefined => ('version' in m && 'doc' in m ? m.version : undefined);

/** Stops the run of the change made by `first` after its `after`-th stage message with `second`; checks what was posted and held. */
async function stopMidRun(live: Live, first: () => number, second: () => number, after: number, what: string, file?: string, store?: CheckpointStore): Promise<void> {
  const stopped = live.version + 1;
  const from = first();
  let seen = 0;
  await live.until((m) => m.type !== 'model' && versionOf(m) === stopped && ++seen >= after);
  // (a task later: the run is between two stages)
  const stops = live.session.stoppedRuns;
  const at = second();
  assert.equal(live.session.stoppedRuns, stops + 1, `${what}: the change stopped the run of version ${stopped}`);
  await live.done(live.version);
  const later = live.messages.slice(at);
  assert.deepEqual(later.filter((m) => versionOf(m) === stopped).map((m) => m.type), [], `${what}: nothing of the stopped version was posted after the newer change`);
  assert.ok(!live.messages.some((m) => m.type === 'done' && m.version === stopped), `${what}: the stopped run never said it was done`);
  assert.ok(live.messages.slice(from, at).some((m) => versionOf(m) === stopped && m.type !== 'model'), `${what}: the stopped run had posted stages`);
  const want = fresh(live.text, file, store);
  sameAsFresh(live.messages, want, `${what} (every message reached the panel)`);
  sameAsFresh(live.messages, want, `${what} (the host dropped the stopped version's)`, (m) => versionOf(m) === stopped);
}

describe('a newer change stops the run in flight', () => {
  let was: number;
  before(() => { was = slicing.ms; slicing.ms = 0; });
  after(() => { slicing.ms = was; });

  it('weights typed over in a d = 64 block: the run of each digit stops at the next, after any stage; the next run stays incremental and exact', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 5 }));
    await live.done(1);
    const number = /-?\d+\.\d+/g; // (W1's first number)
    number.lastIndex = live.text.indexOf('"W1"');
    const first = number.exec(live.text)![0];
    let digit = first;
    const retype = (d: string) => (): number => {
      const next = `${digit.slice(0, -1)}${d}`;
      const at = live.replace(digit, next, '"W1"');
      digit = next;
      return at;
    };
    for (const after of [1, 5, 12, 13, 14]) { // (W1 is read by the 12th stage: ffn.up, then ffn.act, as their changed columns)
      await stopMidRun(live, retype(String(after)), retype(String(after + 3)), after, `stopped after ${after} stage messages`);
      const last = live.messages.filter((m) => versionOf(m) === live.version);
      assert.ok(last.some((m) => m.type === 'kept'), 'the run after the stop still kept what the edits did not change');
    }
    assert.equal(live.session.incrementalEdits, 10, 'every digit was read in place');
    assert.equal(live.messages.filter((m) => m.type === 'log').length, 0);
    live.session.dispose();
  });

  it('a run begun while another was under way holds its messages until it ends: one stopped in turn posts nothing at all', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 7 }));
    await live.done(1);
    const streamed = live.version + 1;
    live.replace('"version": 1', '"version": 1 ');
    await live.until((m) => m.type !== 'model' && versionOf(m) === streamed);
    const silent = live.version + 1;
    live.replace('"version": 1 ', '"version": 1  '); // (stops the streaming run: this one is held)
    while (live.session.runningVersion !== silent) await new Promise((r) => setImmediate(r)); // (its first slice computed)
    await new Promise((r) => setImmediate(r)); // (and another)
    assert.equal(live.messages.filter((m) => versionOf(m) === silent).length, 0, 'the held run posted nothing yet');
    live.replace('"version": 1  ', '"version": 1'); // (stops the held one)
    await live.done(live.version);
    assert.equal(live.messages.filter((m) => versionOf(m) === silent).length, 0, 'the stopped held run posted nothing at all');
    assert.equal(live.session.stoppedRuns, 2);
    sameAsFresh(live.messages, fresh(live.text), 'after a held run stopped');
    live.session.dispose();
  });

  it('a structural change (the whole text read again) stops a run too, and the next is exact', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 6 }));
    await live.done(1);
    await stopMidRun(live, () => live.replace('"version": 1', '"version": 1 '), () => live.replace('"version": 1 ', '"version": 1'), 3, 'a space typed and deleted');
    live.session.dispose();
  });

  it('tokens typed into a checkpoint\'s input: the run of the shorter input stops, the longer one equals a fresh run', async () => {
    const text = '{\n  "version": 1,\n  "checkpoint": "./stories260K",\n  "token_ids": [1, 403, 407]\n}\n';
    const live = new Live(text, CHECKPOINT_FILE, STORE);
    await live.done(1);
    await stopMidRun(live, () => live.replace('407]', '407, 261]'), () => live.replace('261]', '261, 300]'), 2, 'a token appended, then another', CHECKPOINT_FILE, STORE);
    assert.ok(live.messages.some((m) => m.type === 'rows' && m.from === 3 && m.version === live.version), 'the panel kept its cards: the new tokens\' rows alone');
    await stopMidRun(live, () => live.replace(', 300]', ']'), () => live.replace('403, ', ''), 5, 'a token deleted, then another', CHECKPOINT_FILE, STORE);
    live.session.dispose();
  });
});

/** Lets the session's slices run until the run of the current version has ended (bounded: a failure, not a wait for time). */
async function idle(live: Live): Promise<void> {
  for (let t = Date.now(); live.session.endedVersion !== live.version;) {
    assert.ok(Date.now() - t < 60_000, 'the run ended');
    await new Promise((r) => setImmediate(r));
  }
}

describe('one render in flight: a burst\'s run that ends while the panel has not drawn the render before waits for it', () => {
  let was: [number, number];
  before(() => { was = [slicing.ms, drawWait.ms]; slicing.ms = 0; drawWait.ms = 1e9; });
  after(() => { [slicing.ms, drawWait.ms] = was; });

  /** Two changes, the second while the first's run is under way: its run is a burst's, held, and ends while version `shown` is undrawn. */
  async function burstEndsUndrawn(live: Live): Promise<number> {
    const first = live.version + 1;
    live.replace('"version": 1', '"version": 1 ');
    await live.until((m) => m.type !== 'model' && versionOf(m) === first);
    live.replace('"version": 1 ', '"version": 1');
    await idle(live);
    return live.version;
  }

  it('goes out, whole and in order, once the panel says it drew the render before; what it names is what the panel holds', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 8 }));
    await live.done(1);
    const waited = await burstEndsUndrawn(live);
    assert.equal(live.messages.filter((m) => versionOf(m) === waited).length, 0, 'nothing of the ended run went out while version 1 was not drawn');
    const at = live.messages.length;
    live.session.drawn(0); // (an older render drawn: still waiting)
    assert.equal(live.messages.length, at);
    live.session.drawn(1);
    const out = live.messages.slice(at);
    assert.deepEqual([out[0].type, out[out.length - 2].type, out[out.length - 1].type], ['model', 'done', 'runtime'], 'its messages, from its model message to its done');
    assert.ok(out.every((m) => versionOf(m) === waited));
    sameAsFresh(live.messages, fresh(live.text), 'after the run that waited went out');
    live.session.dispose();
  });

  it('a newer change drops it: nothing of it ever goes out, and the next render names nothing it carried', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 9 }));
    await live.done(1);
    const waited = await burstEndsUndrawn(live);
    live.replace('"version": 1', '"version": 1  ');
    await live.done(live.version);
    live.session.drawn(1);
    live.session.drawn(live.version);
    assert.equal(live.messages.filter((m) => versionOf(m) === waited).length, 0, 'the dropped run never went out');
    assert.equal(live.messages.filter((m) => (m.type === 'kept' || m.type === 'cols') && m.base === waited).length, 0, 'no stage was named as its numbers');
    sameAsFresh(live.messages, fresh(live.text), 'after the run that waited was dropped');
    live.session.dispose();
  });

  it('a panel that never says (hidden, gone) holds it up for drawWait.ms at most', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 10 }));
    await live.done(1);
    drawWait.ms = 5;
    try {
      live.replace('"version": 1', '"version": 1 ');
      await live.done(live.version); // (its timer began with this done: a burst's run after it waits at most 5 ms)
      const waited = await burstEndsUndrawn(live);
      await live.done(waited);
      sameAsFresh(live.messages, fresh(live.text), 'after the wait ran out');
    } finally {
      drawWait.ms = 1e9;
    }
    live.session.dispose();
  });

  it('a panel subscribing again lets it out at once', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 11 }));
    await live.done(1);
    const waited = await burstEndsUndrawn(live);
    live.session.subscribe(true);
    await live.done(waited);
    live.session.dispose();
  });

  it('a burst\'s run that ends goes out no sooner than the debounce after the last change; a newer change drops it, a panel subscribing again lets it out', async () => {
    const live = new Live(generateModelText({ preset: 'd64', seed: 12 }), 'm.ffn.json', null, 1e9);
    await live.done(1);
    live.session.drawn(1);
    const waited = await burstEndsUndrawn(live);
    live.session.drawn(1);
    assert.equal(live.messages.filter((m) => versionOf(m) === waited).length, 0, 'nothing went out before the keys paused');
    live.session.subscribe(true);
    await live.done(waited);
    live.session.dispose();
    const quick = new Live(generateModelText({ preset: 'd64', seed: 13 }), 'm.ffn.json', null, 40);
    await quick.done(1);
    quick.session.drawn(1);
    const first = quick.version + 1;
    quick.replace('"version": 1', '"version": 1 ');
    await quick.until((m) => m.type !== 'model' && versionOf(m) === first);
    const changedAt = Date.now(); // (before the change: its time is no earlier)
    quick.replace('"version": 1 ', '"version": 1');
    await quick.done(quick.version);
    assert.ok(Date.now() - changedAt >= 40, `went out ${Date.now() - changedAt} ms after the last change: not before the debounce`);
    sameAsFresh(quick.messages, fresh(quick.text), 'after the pause');
    quick.session.dispose();
  });
});
