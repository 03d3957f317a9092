// The residual-stream map's numbers: the L2 norm of each token's row of each layer's output,
// worked out by hand; a layer whose output has not come is NaN (drawn as not yet computed).
import * as assert from 'node:assert/strict';
import { streamNorms } from '../../../webview/streamNorms';

describe('residual-stream map', () => {
  it('is ‖out_i[t]‖ per layer and token; missing layers are NaN', () => {
    const outs = [new Float32Array([3, 4, 0, 1]), null, new Float32Array([1, 1, 2, 2])]; // C = 2, T = 2
    const n = streamNorms(3, 2, 2, (i) => outs[i]);
    assert.equal(n[0], 5);
    assert.equal(n[1], 1);
    assert.ok(Number.isNaN(n[2]) && Number.isNaN(n[3]));
    assert.ok(Math.abs(n[4] - Math.SQRT2) < 1e-6);
    assert.ok(Math.abs(n[5] - Math.sqrt(8)) < 1e-6);
  });
});
