import * as assert from 'node:assert/strict';
import type { FromWorker } from '../protocol/worker';
import { batchedPost, unbatch } from './postBatch';

describe('batchedPost: what one task posts leaves as one message', () => {
  it('three messages of one task go as one batch, in order, their buffers transferred together; a lone one goes as it is', async () => {
    const out: Array<[FromWorker, ArrayBuffer[] | undefined]> = [];
    const post = batchedPost((m, t) => out.push([m, t]));
    const a = new ArrayBuffer(8);
    const b = new ArrayBuffer(16);
    post({ type: 'stage', doc: 'd', version: 1, id: 'x', shape: [2], data: a, offset: 0, total: 2 }, [a]);
    post({ type: 'log', message: 'between' });
    post({ type: 'stage', doc: 'd', version: 1, id: 'y', shape: [4], data: b, offset: 0, total: 4 }, [b]);
    assert.equal(out.length, 0, 'nothing leaves before the task ends');
    await Promise.resolve();
    assert.equal(out.length, 1);
    const [m, t] = out[0];
    assert.deepEqual(unbatch(m).map((x) => (x.type === 'stage' ? x.id : x.type)), ['x', 'log', 'y']);
    assert.deepEqual(t, [a, b]);
    post({ type: 'log', message: 'alone' });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(out[1][0], { type: 'log', message: 'alone' });
    assert.deepEqual(unbatch(out[1][0]), [out[1][0]]);
  });
});
