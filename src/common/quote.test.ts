import * as assert from 'node:assert/strict';
import { describeValue } from './quote';

describe('describeValue', () => {
  it('writes small values as JSON would, strings quoted', () => {
    assert.equal(describeValue([1, 'a', null, true]), '[1, "a", null, true]');
    assert.equal(describeValue({ a: 1, b: [2] }), '{"a": 1, "b": [2]}');
    assert.equal(describeValue('x'), '"x"');
    assert.equal(describeValue(undefined), 'nothing');
  });
  it('bounds a deep value without recursing into it (100,000 brackets)', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    assert.equal(describeValue(v), '[[[[…]]]]');
  });
  it('bounds a long value to ~80 characters', () => {
    const s = describeValue(Array.from({ length: 1e6 }, (_, i) => i));
    assert.ok(s.length <= 81 && s.endsWith('…'), s);
    const t = describeValue('a'.repeat(10_000_000));
    assert.ok(t.length < 100, t);
    const o = describeValue({ ['k'.repeat(1e6)]: 1 });
    assert.ok(o.length < 100, o);
  });
});
