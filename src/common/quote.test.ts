import * as assert from 'node:assert/strict';
import { describeValue, quotePath } from './quote';

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

describe('quotePath', () => {
  it('quotes a short path as quote() does, every character visible', () => {
    assert.equal(quotePath('/models/gpt2/config.json'), '"/models/gpt2/config.json"');
    assert.equal(quotePath('./a b/x"y'), '"./a b/x\\"y"');
    assert.equal(quotePath('/m/\u001b[2J'), '"/m/\\u001b[2J" (\\u001b is an escape character)');
  });
  it('bounds a long one, keeping its beginning and its end (the file\'s name)', () => {
    const long = `/home/me/${'d/'.repeat(5000)}model-00001-of-00002.safetensors`;
    const q = quotePath(long);
    assert.ok(q.length < 110, q);
    assert.match(q, /^"\/home\/me\/d\/d.*…(d\/)+model-00001-of-00002\.safetensors" \(10,041 characters\)$/);
    const hidden = quotePath(`${'x'.repeat(200)}\u200b${'y'.repeat(10)}`);
    assert.match(hidden, /^"x+…x+\\u200by{10}" \(211 characters; /);
    assert.match(hidden, /\\u200b/);
    assert.match(hidden, /\\u200b is a zero-width space/);
  });
  it('never cuts a character in two', () => {
    const q = quotePath('😀'.repeat(100));
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(q), q);
  });
});
