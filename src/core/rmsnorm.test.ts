// RMSNorm against values worked out by hand.
import * as assert from 'node:assert/strict';
import { rmsnormForward } from './rmsnorm';

describe('rmsnormForward', () => {
  it('divides each row by its root mean square (plus eps), then scales by gamma; no mean, no shift', () => {
    // row [3, 4]: mean square 12.5, r = 1/sqrt(12.5 + 0.5) = 1/sqrt(13); row [1, 1]: r = 1/sqrt(1.5)
    const out = new Float32Array(4);
    rmsnormForward(out, new Float32Array([3, 4, 1, 1]), new Float32Array([2, 0.5]), 0.5, 2, 2);
    const r0 = 1 / Math.sqrt(13);
    const r1 = 1 / Math.sqrt(1.5);
    assert.deepEqual(Array.from(out), [3 * r0 * 2, 4 * r0 * 0.5, r1 * 2, r1 * 0.5].map(Math.fround));
  });
  it('without gamma, a row keeps its direction and gets unit root mean square', () => {
    const out = new Float32Array(3);
    rmsnormForward(out, new Float32Array([-2, 6, 9]), null, 0, 1, 3);
    const ms = (out[0] ** 2 + out[1] ** 2 + out[2] ** 2) / 3;
    assert.ok(Math.abs(ms - 1) < 1e-6);
    assert.ok(Math.abs(out[1] / out[0] + 3) < 1e-6);
  });
});
