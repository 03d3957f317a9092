// A linear layer in both layouts and without its matrix, at hand-checked values.
import * as assert from 'node:assert/strict';
import { tsKernel } from './kernel';
import { linearForward } from './linear';
import { close, f32 } from '../../test/helpers/handChecked';

describe('linear', () => {
  it('out_in: y = x·Wᵀ + b; in_out: y = x·W + b; the same numbers transposed agree', () => {
    // W (out_in) = [[1, 2], [3, 4], [5, 6]]: 2 → 3
    const x = f32([1, -1, 2, 0.5]);
    const a = new Float32Array(6);
    linearForward(a, x, f32([1, 2, 3, 4, 5, 6]), f32([0.5, 0, -1]), 2, 2, 3, 'out_in', tsKernel);
    close(a, [1 - 2 + 0.5, 3 - 4, 5 - 6 - 1, 2 + 1 + 0.5, 6 + 2, 10 + 3 - 1]);
    const b = new Float32Array(6);
    linearForward(b, x, f32([1, 3, 5, 2, 4, 6]), f32([0.5, 0, -1]), 2, 2, 3, 'in_out', tsKernel);
    assert.deepEqual([...b], [...a]);
  });
  it('a missing weight is the identity', () => {
    const out = new Float32Array(2);
    linearForward(out, f32([3, 4]), null, f32([1, 1]), 1, 2, 2, 'out_in', tsKernel);
    close(out, [4, 5]);
  });
});
