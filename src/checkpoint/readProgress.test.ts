// A checkpoint's read told in percent and stopped by Cancel between two parts of a tensor: nothing
// of it stays loaded, a cancelled read is not tried again by time, and the next open reads it whole.
import * as assert from 'node:assert/strict';
import { readModel } from '../model/read';
import type { CheckpointFiles } from './files';
import { percentOf, ReadCancelled, ReadMeter, watchedFiles } from './readProgress';
import { CheckpointResolver } from './resolve';
import { CheckpointStore, resolveReadNow, type Loading, type ReadReport } from './store';
import { checkpointFolder, tinyLlama } from './testing';

async function settled<T>(get: () => Loading<T>): Promise<Loading<T>> {
  const l = get();
  if (l.state !== 'loading') return l;
  await l.done;
  return get();
}

/** Files that read into a given buffer (as Node's do), counting the reads of weights. */
function intoFiles(inner: CheckpointFiles): { files: CheckpointFiles; parts: () => number } {
  let parts = 0;
  return {
    parts: () => parts,
    files: {
      ...inner,
      readInto: async (p, start, into) => {
        parts++;
        into.set(await inner.read(p, start, start + into.length));
      },
    },
  };
}

const holder = { weightArray: (n: number): Float32Array => new Float32Array(n), halfArray: (n: number): Uint16Array => new Uint16Array(n), intoPanels: (): null => null };

/** tinyLlama with a vocabulary of 140,000: its embedding and head are 8.96 MB each, two 8 MB parts. */
function wideLlama(): ReturnType<typeof checkpointFolder> {
  const ck = tinyLlama();
  const V = 140_000;
  const C = Number(ck.config.hidden_size);
  const wide = { shape: [V, C], data: new Float32Array(V * C).fill(0.25) };
  return checkpointFolder({ config: { ...ck.config, vocab_size: V }, tensors: { ...ck.tensors, 'model.embed_tokens.weight': wide, 'lm_head.weight': wide } });
}

describe('checkpoint read progress', () => {
  it('percent: whole, bounded, an empty read done', () => {
    assert.equal(percentOf(0, 200), 0);
    assert.equal(percentOf(199, 200), 99);
    assert.equal(percentOf(200, 200), 100);
    assert.equal(percentOf(300, 200), 100);
    assert.equal(percentOf(0, 0), 100);
  });

  it('the meter tells each whole percent once, never past the total', () => {
    const told: number[] = [];
    const m = new ReadMeter(1000, (done) => told.push(done));
    m.start();
    for (let i = 0; i < 300; i++) m.add(4); // 4 bytes: 0.4 %
    m.add(5000);
    assert.equal(m.done, 1000);
    assert.equal(told[0], 0);
    assert.equal(told.at(-1), 1000);
    assert.equal(new Set(told.map((d) => percentOf(d, 1000))).size, told.length, 'each percent told once');
    assert.equal(told.length, 101, '0 % to 100 %, each once');
  });

  it('watched files count what they read and refuse a read once cancelled', async () => {
    const { files, folder } = checkpointFolder(tinyLlama());
    let stop = false;
    const m = new ReadMeter(1e6, () => undefined);
    const w = intoFiles(watchedFiles(intoFiles(files).files, m, () => stop)).files;
    await w.read(`${folder}/config.json`, 0, 10);
    await w.readInto!(`${folder}/model.safetensors`, 0, new Uint8Array(32));
    assert.equal(m.done, 42);
    stop = true;
    await assert.rejects(w.read(`${folder}/config.json`), /reading the checkpoint was cancelled: edit this file, or run "FFN Lens: Read Cancelled Checkpoints Again"/);
    assert.equal(m.done, 42);
  });

  it('Cancel stops the read between two parts of a tensor, keeps nothing, and the next open reads it whole', async () => {
    const { files: plain, folder } = wideLlama();
    const { files, parts } = intoFiles(plain);
    const store = new CheckpointStore(files, 10, holder);
    store.toldFrom = 0;
    const reports: ReadReport[] = [];
    let partsAtCancel = -1;
    store.onRead = (r) => {
      reports.push(r);
      if (r.state === 'reading' && r.done > 0 && partsAtCancel < 0) {
        partsAtCancel = parts();
        assert.equal(store.cancelRead(folder), true);
      }
    };
    const first = await settled(() => store.checkpoint(folder));
    assert.equal(first.state, 'failed');
    assert.equal((first as { cancelled?: boolean }).cancelled, true);
    assert.match((first as { message: string }).message, /^reading the checkpoint was cancelled: edit this file/);
    const total = reports[0].total;
    assert.ok(total > 2 * 8.9e6, `the tensors' bytes: ${total}`);
    assert.equal(reports[0].done, 0, 'told at 0 % first');
    const last = reports.at(-1)!;
    assert.equal(last.state, 'cancelled');
    assert.ok(last.done < total / 2, `stopped early: ${last.done} of ${total}`);
    // the read under way ends; no part begins after Cancel (two are read at a time)
    assert.ok(parts() <= partsAtCancel + 1, `${parts()} parts read, ${partsAtCancel} when cancelled`);
    assert.equal(store.cancelRead(folder), false, 'no read under way any more');

    // not tried again by time (a cancelled read would start again at once), only when asked
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(store.checkpoint(folder).state, 'failed');
    assert.equal(store.retryCancelled(), true);
    assert.equal(store.retryCancelled(), false);
    const second = await settled(() => store.checkpoint(folder));
    assert.equal(second.state, 'ready');
    const end = reports.at(-1)!;
    assert.deepEqual([end.state, end.done, end.total], ['read', total, total]);
    const embed = (second as { value: { params: ReadonlyMap<string, { data: Float32Array }> } }).value.params.get('embed')!;
    assert.equal(embed.data[embed.data.length - 1], 0.25, 'read to its last number');
  });

  it('a cancelled read is a warning at the checkpoint key that says how to read it again', async () => {
    const { files, folder } = wideLlama();
    const store = new CheckpointStore(intoFiles(files).files, 10, holder);
    store.toldFrom = 0;
    store.onRead = (r) => void (r.state === 'reading' && store.cancelRead(folder));
    const text = `{\n  "version": 1,\n  "checkpoint": "${folder}",\n  "token_ids": [1, 2]\n}`;
    const read = await resolveReadNow(readModel(text, '/x.ffn.json'), '/x.ffn.json', store, new CheckpointResolver());
    assert.equal(read.problems.length, 1);
    const p = read.problems[0];
    assert.equal(p.severity, 'warning');
    assert.deepEqual(p.path, ['checkpoint']);
    assert.equal(text.slice(p.start, p.end), `"${folder}"`);
    assert.match(p.message, /cancelled: edit this file, or run "FFN Lens: Read Cancelled Checkpoints Again"/);
  });
});

describe('checkpoint read progress: a late Cancel, the host\'s Cancel, the state kept', () => {
  it('a Cancel that comes once the last part is read stops nothing: the read ends "read", the model is in', async () => {
    const { files, folder } = wideLlama();
    const store = new CheckpointStore(intoFiles(files).files, 10, holder);
    store.toldFrom = 0;
    const reports: ReadReport[] = [];
    let asked: boolean | null = null;
    store.onRead = (r) => {
      reports.push(r);
      assert.deepEqual(store.readReport(folder), r.state === 'reading' ? r : undefined, 'the report kept is the last told, while under way');
      if (r.state === 'reading' && r.done === r.total) asked = store.cancelRead(folder);
    };
    const got = await settled(() => store.checkpoint(folder));
    assert.equal(asked, true, 'Cancel came while the read was still under way (its last part read)');
    assert.equal(got.state, 'ready');
    assert.equal(reports.at(-1)!.state, 'read');
    assert.equal(store.readReport(folder), undefined);
    assert.equal(store.cancelRead(folder), false, 'after the read: nothing to cancel');
    assert.equal(store.retryCancelled(), false);
  });

  it("the host's Cancel (a file read that ends in ReadCancelled: the web worker host) is the read's Cancel: said as such, kept, read again when asked", async () => {
    const { files: plain, folder } = wideLlama();
    const inner = intoFiles(plain).files;
    let stopped = false;
    const files: CheckpointFiles = {
      ...inner,
      readInto: async (p, start, into) => {
        if (start > 0 && !stopped) {
          stopped = true;
          throw new ReadCancelled('model.safetensors', { file: p });
        }
        return inner.readInto!(p, start, into);
      },
    };
    const store = new CheckpointStore(files, 10, holder);
    store.toldFrom = 0;
    const reports: ReadReport[] = [];
    store.onRead = (r) => void reports.push(r);
    const first = await settled(() => store.checkpoint(folder));
    assert.equal(first.state, 'failed');
    assert.equal((first as { cancelled?: boolean }).cancelled, true);
    assert.match((first as { message: string }).message, /^reading the checkpoint was cancelled: edit this file, or run "FFN Lens: Read Cancelled Checkpoints Again"/);
    const last = reports.at(-1)!;
    assert.equal(last.state, 'cancelled');
    assert.deepEqual(store.readReport(folder), last, 'the cancelled read is kept for a file that asks later');
    assert.ok(last.done < last.total);
    assert.equal(store.retryCancelled(), true);
    assert.equal(store.readReport(folder), undefined, 'asked again: no longer cancelled');
    assert.equal((await settled(() => store.checkpoint(folder))).state, 'ready');
  });
});
