// The first key an object repeats, in text JSON.parse accepts: at any depth, escaped or not, with
// the keys above it; strings that look like keys (values, escaped quotes, arrays' items) are not keys.
import * as assert from 'node:assert/strict';
import { firstDuplicateKey } from './duplicateKeys';

describe('firstDuplicateKey', () => {
  it('none in objects whose keys differ, or whose values repeat a key', () => {
    for (const json of ['{}', '[]', '"a"', '{"a": 1, "b": {"a": 2}}', '{"a": "a", "b": ["a", "a"]}', '[{"a": 1}, {"a": 2}]', '{"a\\"b": 1, "a": {"b": [{"c": 1}, {"c": 2}]}}', '{"\\\\": 1, "\\\\\\"": 2}']) {
      JSON.parse(json);
      assert.equal(firstDuplicateKey(json), null, json);
    }
  });

  it('a key given twice, at the top or deeper, escaped or not, with the keys above it', () => {
    assert.deepEqual(firstDuplicateKey('{"w": 1, "v": 2, "w": 3}'), { key: 'w', within: [] });
    assert.deepEqual(firstDuplicateKey('{"ab": 1, "a\\u0062": 2}'), { key: 'ab', within: [] });
    assert.deepEqual(firstDuplicateKey('{"t": {"dtype": "F32", "shape": [], "dtype": "F16"}}'), { key: 'dtype', within: ['t'] });
    assert.deepEqual(firstDuplicateKey('{"x": [{"k": 1}, {"y": {"z": 1, "z": 2}}]}'), { key: 'z', within: ['x', 'y'] });
    assert.deepEqual(firstDuplicateKey('{"a\\"": 1, "a\\"": 2}'), { key: 'a"', within: [] });
  });

  it('only the duplicates `counts` accepts', () => {
    const json = '{"metadata": {"n": 1, "n": 2}, "weight_map": {"x": "a", "x": "b"}}';
    assert.deepEqual(firstDuplicateKey(json), { key: 'n', within: ['metadata'] });
    assert.deepEqual(firstDuplicateKey(json, (d) => d.within[0] === 'weight_map'), { key: 'x', within: ['weight_map'] });
  });

  it('100,000 nested brackets: no recursion', () => {
    const deep = '{"a":'.repeat(100_000) + '[' + '{"k": 1, "k": 2}' + ']' + '}'.repeat(100_000);
    const d = firstDuplicateKey(deep);
    assert.equal(d?.key, 'k');
    assert.equal(d?.within.length, 100_000);
  });
});
