// Offset → JSON path → role, on both layouts and every kind of matrix.
import * as assert from 'node:assert/strict';
import { parseJsonc } from '../../../src/model/jsonc';
import { pathAt } from '../../../src/model/pathAt';
import { formatPath } from '../../../src/model/problems';
import { roleOf } from '../../../src/model/roles';

/** The offset of the n-th occurrence of `needle` after the first `after`. */
function at(text: string, after: string, needle: string, n = 1): number {
  let i = text.indexOf(after);
  assert.ok(i >= 0, after);
  for (let k = 0; k < n; k++) {
    i = text.indexOf(needle, i + (k === 0 ? after.length : 1));
    assert.ok(i >= 0, `${needle} #${n} after ${after}`);
  }
  return i;
}

function hit(text: string, offset: number): { path: string; role: unknown; slice: string } {
  const p = parseJsonc(text);
  const h = pathAt(text, p.root, offset)!;
  const usesLayers = text.includes('"layers"');
  const layout = text.includes('"in_out"') ? 'in_out' : 'out_in';
  return { path: formatPath(h.path), role: roleOf(h.path, layout, usesLayers), slice: text.slice(h.start, h.end) };
}

const SHORT = `{
  "version": 1,
  "tokens": ["a", "b"],
  "input": [[0.5, -1, 2], [3, 4, 5]],
  "attention": { "heads": 1, "Wq": [[1, 0, 0], [0, 1, 0], [0, 0, 7]], "bo": [0, 0, 9] },
  "ffn": {
    "W1": [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]],
    "b1": [0.1, 0.2, 0.3, 0.4],
    "W2": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 33]],
    "b2": [0, 0, 0]
  },
  "ln2": { "gamma": [1, 1, 2] },
  "head": { "W": [[1, 0, 0], [0, 1, 0]], "vocab": ["yes", "no"] }
}`;

describe('pathAt + roleOf (layout out_in, single-layer shorthand)', () => {
  it('a number of W1: row = neuron, column = input dimension', () => {
    const r = hit(SHORT, at(SHORT, '"W1"', '6'));
    assert.equal(r.path, 'ffn.W1[1][2]');
    assert.equal(r.slice, '6');
    assert.deepEqual(r.role, { kind: 'weight', param: 'W1', layer: 0, row: 1, col: 2, out: 1, inp: 2 });
  });
  it('a number of W2: row = output dimension, column = neuron', () => {
    const r = hit(SHORT, at(SHORT, '"W2"', '33'));
    assert.equal(r.path, 'ffn.W2[2][3]');
    assert.deepEqual(r.role, { kind: 'weight', param: 'W2', layer: 0, row: 2, col: 3, out: 2, inp: 3 });
  });
  it('a bias element, an input number, a LayerNorm gamma, attention weights and biases', () => {
    assert.deepEqual(hit(SHORT, at(SHORT, '"b1"', '0.3')).role, { kind: 'bias', param: 'b1', layer: 0, index: 2 });
    assert.deepEqual(hit(SHORT, at(SHORT, '"input"', '-1')).role, { kind: 'input', token: 0, dim: 1 });
    assert.deepEqual(hit(SHORT, at(SHORT, '"gamma"', '2')).role, { kind: 'norm', which: 'ln2', layer: 0, param: 'gamma', index: 2 });
    assert.deepEqual(hit(SHORT, at(SHORT, '"Wq"', '7')).role, { kind: 'weight', param: 'Wq', layer: 0, row: 2, col: 2, out: 2, inp: 2 });
    assert.deepEqual(hit(SHORT, at(SHORT, '"bo"', '9')).role, { kind: 'bias', param: 'bo', layer: 0, index: 2 });
  });
  it('the head: a weight, a vocabulary word', () => {
    const r = hit(SHORT, at(SHORT, '"head"', '1', 2)); // W[1][1]
    assert.equal(r.path, 'head.W[1][1]');
    assert.deepEqual(r.role, { kind: 'weight', param: 'W', layer: -1, row: 1, col: 1, out: 1, inp: 1 });
    assert.deepEqual(hit(SHORT, at(SHORT, '"vocab"', '"no"') + 1).role, { kind: 'vocab', index: 1 });
  });
  it('between the numbers of a row: the row itself (a whole neuron)', () => {
    const r = hit(SHORT, at(SHORT, '"W1"', '[4') ); // on the row's bracket
    assert.equal(r.path, 'ffn.W1[1]');
    assert.deepEqual(r.role, { kind: 'weight', param: 'W1', layer: 0, row: 1, col: null, out: 1, inp: null });
  });
  it('on a key: the matrix or the sublayer', () => {
    assert.deepEqual(hit(SHORT, at(SHORT, '"ffn": {', '"W1"') + 2).role, { kind: 'matrix', param: 'W1', layer: 0 });
    assert.deepEqual(hit(SHORT, SHORT.indexOf('"ffn"') + 2).role, { kind: 'sublayer', what: 'ffn', layer: 0 });
    assert.deepEqual(hit(SHORT, SHORT.indexOf('"b"]') + 1).role, { kind: 'token-label', token: 1 });
  });
});

const IN_OUT = `{
  "version": 1, "layout": "in_out",
  "input": [[1, 0], [0, 1]],
  "layers": [
    { "ffn": { "W1": [[1, 2, 3], [4, 5, 6]], "W2": [[1, 0], [0, 1], [8, 9]] } },
    { "attention": { "Wv": [[1, 2], [3, 4]] }, "ffn": { "W1": [[1, 0, 0], [0, 1, 0]], "Wg": [[0.5, 0, 0], [0, 0, 0]], "W2": [[1, 0], [0, 1], [0, 0]], "activation": "swiglu" } }
  ]
}`;

describe('pathAt + roleOf (layout in_out, layers list)', () => {
  it('W1 in in_out: row = input dimension, column = neuron', () => {
    const r = hit(IN_OUT, at(IN_OUT, '"W1"', '6'));
    assert.equal(r.path, 'layers[0].ffn.W1[1][2]');
    assert.deepEqual(r.role, { kind: 'weight', param: 'W1', layer: 0, row: 1, col: 2, out: 2, inp: 1 });
  });
  it('W2 in in_out: row = neuron, column = output dimension', () => {
    const r = hit(IN_OUT, at(IN_OUT, '"W2"', '9'));
    assert.equal(r.path, 'layers[0].ffn.W2[2][1]');
    assert.deepEqual(r.role, { kind: 'weight', param: 'W2', layer: 0, row: 2, col: 1, out: 1, inp: 2 });
  });
  it('a second layer: its attention Wv and gate Wg', () => {
    assert.deepEqual(hit(IN_OUT, at(IN_OUT, '"Wv"', '3')).role, { kind: 'weight', param: 'Wv', layer: 1, row: 1, col: 0, out: 0, inp: 1 });
    assert.deepEqual(hit(IN_OUT, at(IN_OUT, '"Wg"', '0.5')).role, { kind: 'weight', param: 'Wg', layer: 1, row: 0, col: 0, out: 0, inp: 0 });
  });
  it('a whole row in in_out is an input dimension, not a unit', () => {
    const r = hit(IN_OUT, at(IN_OUT, '"W1"', '[4'));
    assert.deepEqual(r.role, { kind: 'weight', param: 'W1', layer: 0, row: 1, col: null, out: null, inp: 1 });
  });
  it('outside any layer in a layers file, top-level sublayer keys have no role', () => {
    assert.equal(roleOf(['ffn', 'W1', 0, 0], 'out_in', true), null);
  });
});
