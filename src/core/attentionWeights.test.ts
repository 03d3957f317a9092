// The causal mask the attention weights apply.
import * as assert from 'node:assert/strict';
import { isMasked } from './attentionWeights';

describe('attention weights', () => {
  it('a causal mask never leaves a row without a visible key', () => {
    for (let T = 1; T <= 64; T++) {
      for (let i = 0; i < T; i++) assert.equal(isMasked(true, i, i), false);
    }
  });
});
