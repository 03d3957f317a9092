// Completion places found by scanning back from the cursor, in half-typed text: the path of the
// enclosing object (through arrays of layers), the keys already there, a value after "key":, and
// nothing inside comments; the items the format offers there.
import * as assert from 'node:assert/strict';
import { completionItems, completionPlace } from './completion';

/** The place at the `|` of `text`. */
function at(text: string): ReturnType<typeof completionPlace> {
  const i = text.indexOf('|');
  return completionPlace(text.slice(0, i) + text.slice(i + 1), i);
}

describe('completion in a model file', () => {
  it('finds the enclosing object through arrays, strings with braces and comments, skipping nested values', () => {
    assert.deepEqual(at('{\n  "version": 1,\n  "input": [[1, 2], [3, 4]],\n  |\n}'), { path: [], atKey: true, key: null, present: ['version', 'input'] });
    assert.deepEqual(at('{ "ffn": { "W1": [[1]], "W2": [[1]], | } }')?.path, ['ffn']);
    assert.deepEqual(at('{ "ffn": { "W1": [[1]], "W2": [[1]], | } }')?.present, ['W1', 'W2']);
    const layers = '// a "comment" with { braces\n{ "name": "a{b", "layers": [ { "ffn": {} }, { "attention": { "heads": 2 }, "ffn": { "activation": "relu", "|';
    assert.deepEqual(at(layers), { path: ['layers', 1, 'ffn'], atKey: true, key: null, present: ['activation'] });
    assert.deepEqual(at('{ "layers": [ { "ffn": { "activation": "|" } } ] }'), { path: ['layers', 0, 'ffn'], atKey: false, key: 'activation', present: [] });
    assert.deepEqual(at('{ "ffn": { "activation": |'), { path: ['ffn'], atKey: false, key: 'activation', present: [] });
    assert.equal(at('{ "ffn": { // a note |\n } }'), null);
    assert.equal(at('{ "input": [[1, 2|'), null, 'inside a matrix: no keys');
  });

  it('offers the keys the object may still take, and the values of an enum', () => {
    const keys = completionItems(at('{ "ffn": { "W1": [[1]], | } }')!, false).map((i) => i.label);
    assert.deepEqual(keys, ['activation', 'b1', 'Wg', 'bg', 'W2', 'b2']);
    const acts = completionItems(at('{ "ffn": { "activation": "|" } }')!, false);
    assert.ok(acts.some((i) => i.label === 'swiglu' && i.insert === '"swiglu"'));
    assert.ok(acts.find((i) => i.label === 'relu')!.documentation.includes('(the default)'));
    const top = completionItems(at('{ "version": 1, "checkpoint": "./gpt2", | }')!, true).map((i) => i.label);
    assert.ok(top.includes('prompt') && top.includes('ablate') && !top.includes('ffn') && !top.includes('version'), top.join(' '));
    const layerKeys = completionItems(at('{ "layers": [ { | } ] }')!, false).map((i) => i.label);
    assert.deepEqual(layerKeys, ['attention', 'ffn', 'ln1', 'ln2']);
    assert.equal(completionItems(at('{ "ffn": { "W1": |')!, false).length, 0, 'a matrix has no values to offer');
  });
});
