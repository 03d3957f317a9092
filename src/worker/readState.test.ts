// A checkpoint read's state reaches a panel whenever it opens: one that subscribes while the read
// is under way is told how far it is with its 'loading' message (not only at the next percent),
// and one that subscribes after the read was cancelled gets the cancelled read with its model
// message (an event it never heard). The read is held by the test (its files wait on a gate).
import * as assert from 'node:assert/strict';
import type { CheckpointFiles } from '../checkpoint/files';
import { CheckpointStore } from '../checkpoint/store';
import { checkpointFolder, tinyLlama } from '../checkpoint/testing';
import { tsKernel } from '../core/kernel';
import type { FromWorker } from '../protocol/worker';
import { DocSession } from './session';

const holder = { weightArray: (n: number): Float32Array => new Float32Array(n), halfArray: (n: number): Uint16Array => new Uint16Array(n), intoPanels: (): null => null };

/** tinyLlama with a vocabulary of 140,000: its embedding and head are 8.96 MB each, several parts. */
function wideFolder(): { files: CheckpointFiles; folder: string } {
  const ck = tinyLlama();
  const V = 140_000;
  const wide = { shape: [V, Number(ck.config.hidden_size)], data: new Float32Array(V * Number(ck.config.hidden_size)).fill(0.25) };
  return checkpointFolder({ config: { ...ck.config, vocab_size: V }, tensors: { ...ck.tensors, 'model.embed_tokens.weight': wide, 'lm_head.weight': wide } });
}

/** Files whose reads of weights from the third part on wait for release() (two parts are read at a time: the first is in by then). */
function heldFiles(inner: CheckpointFiles): { files: CheckpointFiles; release: () => void; held: Promise<void> } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  let reached: () => void = () => undefined;
  const held = new Promise<void>((r) => (reached = r));
  let parts = 0;
  return {
    release: () => release(),
    held,
    files: {
      ...inner,
      readInto: async (p, start, into) => {
        if (++parts > 2) {
          reached();
          await gate;
        }
        into.set(await inner.read(p, start, start + into.length));
      },
    },
  };
}

class Panel {
  readonly messages: FromWorker[] = [];
  readonly session: DocSession;
  private waiters: Array<{ test: (m: FromWorker) => boolean; resolve: () => void }> = [];

  constructor(store: CheckpointStore, folder: string) {
    const text = `{\n  "version": 1,\n  "checkpoint": "${folder}",\n  "token_ids": [1, 2]\n}`;
    this.session = new DocSession('doc', '/x.ffn.json', text, 1, (m) => {
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => (w.test(m) ? (w.resolve(), false) : true));
    }, () => tsKernel, () => 0, false, store);
    this.session.subscribe(true);
  }

  async next<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>> {
    const test = (m: FromWorker): boolean => m.type === type;
    if (!this.messages.some(test)) await new Promise<void>((resolve) => this.waiters.push({ test, resolve }));
    return this.messages.find(test) as Extract<FromWorker, { type: T }>;
  }
}

describe("a checkpoint read's state, told to a panel however late it opens", () => {
  it('a panel that subscribes while the read is under way is told how far it is, after its loading message', async () => {
    const { files: plain, folder } = wideFolder();
    const { files, release, held } = heldFiles(plain);
    const store = new CheckpointStore(files, 10, holder);
    const first = new Panel(store, folder);
    await first.next('loading');
    await held; // (the read is under way and waits: a part read)
    const now = store.readReport(folder);
    assert.ok(now && now.state === 'reading' && now.done > 0, `under way: ${JSON.stringify(now)}`);
    const late = new Panel(store, folder);
    await late.next('loading');
    const i = late.messages.findIndex((m) => m.type === 'loading');
    const told = late.messages[i + 1];
    assert.ok(told?.type === 'checkpointRead', `the read's state right after 'loading': ${JSON.stringify(late.messages.map((m) => m.type))}`);
    assert.deepEqual(told, { type: 'checkpointRead', ...now });
    release();
    const model = await late.next('done');
    assert.equal(model.type, 'done');
    assert.equal(late.messages.some((m) => m.type === 'model' && m.readCancelled), false);
  });

  it('a panel that subscribes after the read was cancelled gets it with its model message; read again, it is gone', async () => {
    const { files: plain, folder } = wideFolder();
    const { files, release, held } = heldFiles(plain);
    const store = new CheckpointStore(files, 10, holder);
    const first = new Panel(store, folder);
    await held;
    assert.equal(store.cancelRead(folder), true);
    release();
    const said = await first.next('model');
    const cancelled = store.readReport(folder)!;
    assert.equal(cancelled.state, 'cancelled');
    const at = { what: folder, folder, done: cancelled.done, total: cancelled.total };
    assert.deepEqual(said.readCancelled, at, 'the panel that was there');
    assert.equal(said.problems[0]?.severity, 'warning');

    const late = new Panel(store, folder);
    const m = await late.next('model');
    assert.deepEqual(m.readCancelled, at, 'the panel that came after');
    assert.ok(cancelled.done < cancelled.total, 'stopped before its end');
    assert.match(m.problems[0]?.message ?? '', /reading the checkpoint was cancelled/);

    // read again: the model, no cancelled read
    assert.equal(store.retryCancelled(), true);
    late.messages.length = 0;
    late.session.reread();
    await late.next('done');
    const again = late.messages.filter((x) => x.type === 'model');
    assert.ok(again.length > 0 && again.every((x) => x.type === 'model' && !x.readCancelled), JSON.stringify(again.map((x) => x.type === 'model' && x.readCancelled)));
  });
});
