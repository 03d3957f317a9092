// The web worker's files, asked of the host: a large file comes in parts and is read once per
// checkpoint open, its ranges answered as they come in.
import * as assert from 'node:assert/strict';
import { ReadCancelled } from '../checkpoint/readProgress';
import type { FromWorker, ToWorker } from '../protocol/worker';
import { ArrivingFile } from './arrivingFile';
import { hostFilesClient } from './hostFilesClient';

const bytes = (n: number, from = 0): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (from + i) & 255);
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A fake host: records what the worker asks; the test answers. */
function fakeHost(keepMs?: number) {
  const asked: Extract<FromWorker, { type: 'fs' }>[] = [];
  const c = hostFilesClient((m) => {
    if (m.type === 'fs') asked.push(m);
  }, keepMs);
  const send = (m: ToWorker): void => c.reply(m as Extract<ToWorker, { type: 'fsReply' | 'fsData' }>);
  const parts = (id: number, file: Uint8Array, partBytes: number, upTo = file.length, from = 0): void => {
    for (let at = from; at < upTo; at += partBytes) {
      const p = file.slice(at, Math.min(at + partBytes, upTo));
      send({ type: 'fsData', id, at, total: file.length, bytes: p.buffer as ArrayBuffer });
    }
  };
  return { c, asked, send, parts };
}

describe('ArrivingFile: a file coming in parts', () => {
  it('answers a range as soon as its bytes are in, before the rest', async () => {
    const f = new ArrivingFile('model.safetensors');
    const file = bytes(100);
    const early = f.range(0, 8);
    const late = f.range(60, 100);
    let lateDone = false;
    void late.then(() => (lateDone = true));
    f.part(0, 100, file.subarray(0, 40));
    assert.deepEqual([...(await early)], [...file.subarray(0, 8)]);
    await settle();
    assert.equal(lateDone, false, 'bytes 60–100 are not in yet');
    f.part(40, 100, file.subarray(40, 100));
    assert.deepEqual([...(await late)], [...file.subarray(60, 100)]);
    f.end();
    assert.deepEqual([...(await f.range(90))], [...file.subarray(90)]);
  });

  it('a file that ends early, parts that do not fit, a failure: each read rejects with our words', async () => {
    const short = new ArrivingFile('model.safetensors');
    const r = short.range(0, 100);
    short.part(0, 100, bytes(50));
    short.end();
    await assert.rejects(r, /model\.safetensors ended at byte 50 of 100: was it changed while being read\?/);

    const gap = new ArrivingFile('a.safetensors');
    const g = gap.range(0, 10);
    gap.part(10, 100, bytes(10)); // (not where the last part ended)
    await assert.rejects(g, /a\.safetensors came in parts that do not fit/);

    const failed = new ArrivingFile('b');
    const w = failed.range(0, 1);
    failed.fail(new Error('reading b was cancelled'));
    await assert.rejects(w, /cancelled/);
    await assert.rejects(failed.range(0, 1), /cancelled/);
  });

  it('a read past the end of a complete file says where it ended', async () => {
    const f = new ArrivingFile('c.safetensors');
    f.whole(bytes(10));
    await assert.rejects(f.range(5, 20), /c\.safetensors ended at byte 10, before 20/);
  });
});

describe('hostFilesClient: the worker\'s files through the web host', () => {
  it('reads a large file once for all its ranges, however long it takes to come (the 10 s hold starts when it is complete)', async () => {
    const { c, asked, parts, send } = fakeHost(30);
    const file = bytes(1000);
    const header = c.files.read('/w/ck/model.safetensors', 0, 8);
    await settle();
    assert.equal(asked.length, 1);
    const id = asked[0].id;
    parts(id, file, 100, 300);
    assert.deepEqual([...(await header)], [...file.subarray(0, 8)]);
    // longer than the hold passes before the rest comes: the tensors' reads still share this one read
    await new Promise((r) => setTimeout(r, 60));
    const tensors = [c.files.read('/w/ck/model.safetensors', 200, 400), c.files.read('/w/ck/model.safetensors', 900, 1000)];
    parts(id, file, 100, 1000, 300);
    send({ type: 'fsReply', id, size: 1000 });
    const [a, b] = await Promise.all(tensors);
    assert.deepEqual([...a], [...file.subarray(200, 400)]);
    assert.deepEqual([...b], [...file.subarray(900, 1000)]);
    assert.equal(asked.filter((m) => m.op === 'read').length, 1, 'one read of the file');
    // let go after the hold: the next open reads it again
    await new Promise((r) => setTimeout(r, 60));
    void c.files.read('/w/ck/model.safetensors', 0, 8);
    await settle();
    assert.equal(asked.filter((m) => m.op === 'read').length, 2);
  });

  it('a small file comes whole; sizes; a missing file and a cancelled read are CheckpointErrors in our words, tried again next time', async () => {
    const { c, asked, send } = fakeHost();
    const size = c.files.size('/w/ck/config.json');
    await settle();
    send({ type: 'fsReply', id: asked[0].id, size: 42 });
    assert.equal(await size, 42);
    const whole = c.files.read('/w/ck/config.json');
    await settle();
    send({ type: 'fsReply', id: asked[1].id, bytes: bytes(5).buffer as ArrayBuffer });
    assert.deepEqual([...(await whole)], [0, 1, 2, 3, 4]);

    const missing = c.files.read('/w/ck/tokenizer.json');
    await settle();
    send({ type: 'fsReply', id: asked[2].id, error: 'FileNotFound' });
    await assert.rejects(missing, (e: Error) => e.name === 'CheckpointError' && e.message === '/w/ck/tokenizer.json is missing');

    const big = c.files.read('/w/ck/model.safetensors', 0, 8);
    await settle();
    send({ type: 'fsData', id: asked[3].id, at: 0, total: 100, bytes: bytes(4).buffer as ArrayBuffer });
    send({ type: 'fsReply', id: asked[3].id, error: 'Cancelled' });
    // (the host's Cancel is the read's: the store says it as Node's is said, and reads it again when asked)
    await assert.rejects(big, (e: Error) => e instanceof ReadCancelled && /^reading model\.safetensors was cancelled: edit this file, or run "FFN Lens: Read Cancelled Checkpoints Again"/.test(e.message));
    void c.files.read('/w/ck/model.safetensors', 0, 8);
    await settle();
    assert.equal(asked.length, 5, 'asked again after the cancel');
  });

  it('a file larger than the worker can hold is asked for with that limit, and the host\'s TooLarge is said in our words, with both sizes', async () => {
    const asked: Extract<FromWorker, { type: 'fs' }>[] = [];
    const c = hostFilesClient((m) => void (m.type === 'fs' && asked.push(m)), undefined, () => ({ bytes: 2.15e9, what: "the memory this browser reports" }));
    const big = c.files.read('/w/gemma/model.safetensors', 0, 8);
    await settle();
    assert.equal(asked[0].op, 'read');
    assert.equal((asked[0] as { limit?: number }).limit, 2.15e9);
    c.reply({ type: 'fsReply', id: asked[0].id, error: 'TooLarge', size: 5.23e9 });
    await assert.rejects(big, (e: Error) => e.name === 'CheckpointError' && e.message === 'model.safetensors is 5.2 GB: the web extension host holds a checkpoint file whole while it reads its weights '
      + '(VS Code\'s file system reads whole files only), and can give it 2.1 GB (half of the memory this browser reports, 4.3 GB); '
      + 'open it where the extension runs in Node (the desktop, or "remote.extensionKind" "workspace"), or a smaller model');
  });

  it('readWhole: a model file from disk, in parts, not held; its error code kept for the caller', async () => {
    const { c, asked, parts, send } = fakeHost();
    const file = bytes(300);
    const w = c.readWhole('/w/big.ffn.json');
    await settle();
    parts(asked[0].id, file, 128);
    send({ type: 'fsReply', id: asked[0].id, size: 300 });
    assert.deepEqual([...(await w)], [...file]);
    const gone = c.readWhole('/w/gone.ffn.json');
    await settle();
    send({ type: 'fsReply', id: asked[1].id, error: 'FileNotFound' });
    await assert.rejects(gone, (e: Error & { code?: string }) => e.code === 'FileNotFound');
  });
});
