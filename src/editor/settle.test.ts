// Settle: a file written in pieces over a while is taken as complete once, after the writing
// stops, never in between; a file that keeps its size but changes its time is still being written.
import * as assert from 'node:assert/strict';
import { Settle, type FileStamp } from './settle';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Settle (reading a large file only once its writing is over)', () => {
  it('fires once, after a slow write in pieces ends, never during it', async () => {
    let stamp: FileStamp = { size: 0, mtime: 0 };
    const fired: number[] = [];
    const s = new Settle(async () => stamp, () => fired.push(stamp.size), 20);
    for (let i = 1; i <= 15; i++) { // 15 pieces, 10 ms apart: slower than a look, faster than two
      stamp = { size: i * 1000, mtime: i };
      s.changed();
      await sleep(10);
      assert.deepEqual(fired, [], `not while piece ${i} is being written`);
    }
    await sleep(120);
    assert.deepEqual(fired, [15_000], 'once, the whole file');
    s.dispose();
  });

  it('a pause shorter than two looks does not count as the end; a size that stays with a new time is not complete', async () => {
    let stamp: FileStamp = { size: 5, mtime: 1 };
    let fired = 0;
    const s = new Settle(async () => stamp, () => fired++, 40);
    s.changed();
    await sleep(60); // one look taken (at 40 ms)
    stamp = { size: 5, mtime: 2 }; // written again, same size, no watcher event yet
    await sleep(40); // the second look (80 ms) saw another time: not complete
    assert.equal(fired, 0);
    await sleep(100); // the third (120 ms) agreed with it
    assert.equal(fired, 1);
    s.dispose();
  });

  it('a missing file (deleted while written) is not complete', async () => {
    let fired = 0;
    const s = new Settle(async () => null, () => fired++, 10);
    s.changed();
    await sleep(80);
    assert.equal(fired, 0);
    s.dispose();
  });
});
