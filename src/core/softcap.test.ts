// Soft-capping c · tanh(s / c) against values worked out by hand, and its shape: odd, bounded by
// c, close to s where |s| ≪ c.
import * as assert from 'node:assert/strict';
import { softcap, softcapForward } from './softcap';

describe('softcap', () => {
  it('worked by hand: c 2 at s 2 is 2·tanh(1) = 1.5231884; c 30 at s 15 is 30·tanh(0.5) = 13.863515', () => {
    assert.ok(Math.abs(softcap(2, 2) - 1.5231884) < 1e-6);
    assert.ok(Math.abs(softcap(15, 30) - 13.863515) < 2e-6);
  });
  it('odd, 0 at 0, within (−c, c), and nearly s where |s| ≪ c; c at +∞', () => {
    assert.equal(softcap(0, 3), 0);
    for (const s of [0.3, 1.7, 5, 40, 1e6]) {
      assert.equal(softcap(-s, 3), -softcap(s, 3));
      assert.ok(Math.abs(softcap(s, 3)) <= 3);
    }
    assert.ok(Math.abs(softcap(0.01, 50) - 0.01) < 1e-9);
    assert.equal(softcap(Infinity, 3), 3);
  });
  it('softcapForward: each number of the range, in place; outside it untouched', () => {
    const x = new Float32Array([1, 2, 3, 4]);
    softcapForward(x, x, 2, 1, 3);
    assert.deepEqual(Array.from(x), [1, softcap(2, 2), softcap(3, 2), 4]);
    assert.ok(x[2] < 2 && x[2] > 1.8);
  });
});
