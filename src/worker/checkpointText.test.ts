// The hover's percentages of an override entry: enough decimals to tell with and without apart.
import * as assert from 'node:assert/strict';
import { percents } from './checkpointText';

describe('checkpointText: percents', () => {
  it('as many decimals as tell the two apart, at least two significant digits', () => {
    assert.deepEqual(percents(0.00019, 0.00021), ['0.019 %', '0.021 %'], 'a small effect on a random model');
    assert.deepEqual(percents(0.928, 0.928), ['92.8 %', '92.8 %'], 'the same: one decimal');
    assert.deepEqual(percents(0.5, 0.50004), ['50.000 %', '50.004 %']);
    assert.deepEqual(percents(0.192, 0.928), ['19.2 %', '92.8 %']);
    assert.deepEqual(percents(0, 0.25), ['0.0 %', '25.0 %']);
    const [a, b] = percents(0.3, 0.3 + 1e-12);
    assert.equal(a.length, b.length, 'a difference past six more decimals: stops there');
  });
});
