// Gemma's embedding scale: √C in float32, multiplied into each number.
import * as assert from 'node:assert/strict';
import { embedScaleForward, embedScaleOf } from './embedScale';

describe('embedScale', () => {
  it('√C rounded to float32: 16 → 4, 2304 (Gemma 2 2B) → 48, 1152 (Gemma 3 1B) → 33.941124', () => {
    assert.equal(embedScaleOf(16), 4);
    assert.equal(embedScaleOf(2304), 48);
    assert.equal(embedScaleOf(1152), Math.fround(33.94112549695428));
    assert.notEqual(embedScaleOf(1152), Math.sqrt(1152));
  });
  it('each number of the range times the float32 scale, rounded to float32; out may be x', () => {
    const x = new Float32Array([1, -0.5, 0.1, 2]);
    const s = embedScaleOf(1152);
    const out = new Float32Array(4);
    embedScaleForward(out, x, s);
    for (let i = 0; i < 4; i++) assert.equal(out[i], Math.fround(x[i] * s));
    embedScaleForward(x, x, 4, 2, 4);
    assert.deepEqual(Array.from(x), [1, -0.5, Math.fround(0.1) * 4, 8]);
  });
});
