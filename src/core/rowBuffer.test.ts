// appendRows: the rows kept, then the new, and no view handed out ever changes.
import * as assert from 'node:assert/strict';
import { appendRows, roomRows } from './rowBuffer';

const rows = (T: number, W: number, base: number): Float32Array => Float32Array.from({ length: T * W }, (_, i) => base + i);

describe('appendRows', () => {
  it('is the kept rows, then the new ones', () => {
    const a = appendRows(rows(2, 3, 0), 2, rows(1, 3, 100), 3, 3);
    assert.deepEqual([...a], [0, 1, 2, 3, 4, 5, 100, 101, 102]);
    const b = appendRows(rows(3, 2, 0), 1, rows(2, 2, 50), 3, 2); // (the last two rows replaced)
    assert.deepEqual([...b], [0, 1, 50, 51, 52, 53]);
  });

  it('a token appended to the view that ends at its fill mark: written in place, the earlier rows not copied', () => {
    const W = 4;
    let v = appendRows(rows(5, W, 0), 5, rows(1, W, 500), 6, W); // (a stage as op.run made it: copied once, with room)
    assert.equal(v.buffer.byteLength, 4 * (6 + roomRows(6)) * W);
    for (let T = 7; T <= 6 + roomRows(6); T++) {
      const next = appendRows(v, T - 1, rows(1, W, 1000 * T), T, W);
      assert.equal(next.buffer, v.buffer, `T ${T}: in the same buffer`);
      assert.deepEqual([...next.subarray(0, (T - 1) * W)], [...v], `T ${T}: the earlier rows`);
      assert.deepEqual([...next.subarray((T - 1) * W)], [...rows(1, W, 1000 * T)], `T ${T}: the new row`);
      v = next;
    }
    const past = appendRows(v, v.length / W, rows(1, W, 7), v.length / W + 1, W);
    assert.notEqual(past.buffer, v.buffer, 'no room left: a new buffer');
  });

  it('never changes a view handed out: a second branch from the same rows, a replaced last row, views from elsewhere', () => {
    const W = 3;
    const handed: Array<[Float32Array, number[]]> = [];
    const keep = (v: Float32Array): Float32Array => (handed.push([v, [...v]]), v);
    const base = keep(appendRows(rows(4, W, 0), 4, rows(1, W, 40), 5, W));
    const a = keep(appendRows(base, 5, rows(1, W, 60), 6, W)); // in place
    assert.equal(a.buffer, base.buffer);
    const b = keep(appendRows(base, 5, rows(1, W, 70), 6, W)); // another token after the same 5: base no longer ends at the mark
    assert.notEqual(b.buffer, base.buffer);
    const c = keep(appendRows(a.subarray(0, 5 * W), 5, rows(1, W, 80), 6, W)); // a's last row replaced
    assert.notEqual(c.buffer, a.buffer);
    const d = keep(appendRows(a, 6, rows(1, W, 90), 7, W)); // a is still the view at the mark
    assert.equal(d.buffer, a.buffer);
    const shared = new Float32Array(new SharedArrayBuffer(4 * 10 * W), 0, 5 * W); // (a kernel's memory: never written past)
    const e = keep(appendRows(shared, 5, rows(1, W, 99), 6, W));
    assert.notEqual(e.buffer, shared.buffer);
    for (const [v, was] of handed) assert.deepEqual([...v], was);
  });

  it('says which shapes do not fit', () => {
    assert.throws(() => appendRows(rows(1, 3, 0), 2, rows(1, 3, 0), 3, 3), /\[2, 3\] kept of 3 numbers/);
  });
});
