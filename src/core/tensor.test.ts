// The size invariant every stage is checked against, and the shape form messages use.
import * as assert from 'node:assert/strict';
import { checkSize, formatShape, sizeOf } from './tensor';

describe('tensor shapes', () => {
  it('sizeOf multiplies the dimensions; a scalar shape holds one number', () => {
    assert.equal(sizeOf([2, 5, 32]), 320);
    assert.equal(sizeOf([]), 1);
    assert.equal(sizeOf([4, 0]), 0);
  });

  it('checkSize names the stage, the count and the shape when they disagree', () => {
    checkSize('stage ffn.up', [5, 32], new Float32Array(160));
    assert.throws(() => checkSize('stage ffn.up', [5, 32], new Float32Array(150)), {
      name: 'RangeError',
      message: 'stage ffn.up has 150 numbers, its shape [5, 32] needs 160',
    });
    assert.equal(formatShape([2, 5, 5]), '[2, 5, 5]');
  });
});
