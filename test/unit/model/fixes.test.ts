// Each quick fix produces the fixed text: applied, the problem it names is gone.
import * as assert from 'node:assert/strict';
import { fixesFor } from '../../../src/model/fixes';
import type { Fix } from '../../../src/protocol/edits';
import { readModel } from '../../../src/model/read';
import { TextChunks } from '../../../src/model/textChunks';

function apply(text: string, fix: Fix): string {
  let out = text;
  for (const e of [...fix.edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

function fixesAt(text: string, needle: string): Fix[] {
  const res = readModel(text, 'm.ffn.json');
  const at = text.indexOf(needle);
  assert.ok(at >= 0, needle);
  const fixes = fixesFor(text, res.json.root, res.problems, res.file, at, at + needle.length);
  // the worker holds documents as chunks: tiny ones here, so every look around crosses chunk ends
  const chunked = fixesFor(new TextChunks(text, 5), res.json.root, res.problems, res.file, at, at + needle.length);
  assert.deepEqual(chunked, fixes);
  return fixes;
}

describe('quick fixes', () => {
  it('sets the layout when every matrix fits only the other way (and the file then reads)', () => {
    const text = `{
  "version": 1,
  "input": [[1, 2]],
  "ffn": { "W1": [[1, 1, 1], [1, 1, 1]], "W2": [[1, 0], [0, 1], [1, 1]] }
}`;
    const fixes = fixesAt(text, '[[1, 1, 1]');
    const f = fixes.find((x) => x.title.startsWith('Set "layout"'))!;
    assert.ok(f, JSON.stringify(fixes));
    const fixed = apply(text, f);
    assert.equal(fixed, text.replace('"version": 1,', '"version": 1,\n  "layout": "in_out",'));
    assert.deepEqual(readModel(fixed, 'm.ffn.json').problems, []);
  });

  it('inserts with the line ends the file uses: CR-only and CRLF files keep theirs, indented as the line above', () => {
    const lf = `{
  "version": 1,
  "input": [[1, 2]],
  "ffn": { "W1": [[1, 1, 1], [1, 1, 1]], "W2": [[1, 0], [0, 1], [1, 1]] }
}`;
    for (const eol of ['\r', '\r\n']) {
      const text = lf.replace(/\n/g, eol);
      const f = fixesAt(text, '[[1, 1, 1]').find((x) => x.title.startsWith('Set "layout"'))!;
      assert.equal(apply(text, f), text.replace(`"version": 1,`, `"version": 1,${eol}  "layout": "in_out",`), JSON.stringify(eol));
    }
  });

  it('replaces an existing layout value', () => {
    const text = `{"version": 1, "layout": "out_in", "input": [[1, 2]], "ffn": {"W1": [[1, 1, 1], [1, 1, 1]], "W2": [[1, 0], [0, 1], [1, 1]]}}`;
    const fixed = apply(text, fixesAt(text, '[[1, 1, 1]').find((x) => x.title.startsWith('Set "layout"'))!);
    assert.equal(fixed, text.replace('"layout": "out_in"', '"layout": "in_out"'));
  });

  it('offers no layout fix when some matrix fits the current layout', () => {
    // W1 is square (fits both), W2 fits out_in: the problem is elsewhere, not the layout
    const text = `{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0, 0], [0, 1, 0]]}}`;
    assert.ok(!fixesAt(text, '"W2"').some((x) => x.title.startsWith('Set "layout"')));
  });

  it('renames an unknown key to the suggested one', () => {
    const text = `{"version": 1, "input": [[1]], "ffn": {"activaton": "gelu", "W1": [[1]], "W2": [[1]]}}`;
    const f = fixesAt(text, '"activaton"')[0];
    assert.equal(f.title, 'Rename to "activation"');
    const fixed = apply(text, f);
    assert.equal(fixed, text.replace('"activaton"', '"activation"'));
    assert.deepEqual(readModel(fixed, 'm.ffn.json').problems, []);
  });

  it('pads or trims a tokens list to the input length', () => {
    const short = `{"version": 1, "tokens": ["a"], "input": [[1], [2], [3]], "ffn": {"W1": [[1]], "W2": [[1]]}}`;
    const pad = fixesAt(short, '["a"]')[0];
    assert.equal(pad.title, 'Pad tokens to 3 (t1…)');
    assert.equal(apply(short, pad), short.replace('["a"]', '["a", "t1", "t2"]'));
    const long = `{"version": 1, "tokens": ["a", "b", "c"], "input": [[1]], "ffn": {"W1": [[1]], "W2": [[1]]}}`;
    const trim = fixesAt(long, '["a", "b", "c"]')[0];
    assert.equal(apply(long, trim), long.replace('["a", "b", "c"]', '["a"]'));
    assert.deepEqual(readModel(apply(long, trim), 'm.ffn.json').problems, []);
  });

  it('pads a bias that is too short with zeros, trims one that is too long', () => {
    const text = `{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0], [0, 1], [1, 1]], "b1": [0.5], "W2": [[1, 0, 0], [0, 1, 0]], "b2": [1, 2, 3]}}`;
    const f1 = fixesAt(text, '[0.5]').find((x) => x.title.startsWith('Pad'))!;
    assert.equal(apply(text, f1), text.replace('[0.5]', '[0.5, 0, 0]'));
    const f2 = fixesAt(text, '[1, 2, 3]').find((x) => x.title.startsWith('Trim'))!;
    const fixed = apply(apply(text, f2), f1);
    assert.deepEqual(readModel(fixed, 'm.ffn.json').problems, []);
  });

  it('pads only the tail (a comment in the vector stays), and pads a LayerNorm gamma with ones', () => {
    const text = `{"version": 1, "norm": "pre", "input": [[1, 2, 3]], "ffn": {"W1": [[1, 0, 0], [0, 1, 0]], "b1": [1, // first\n 2, 7, 8],
      "W2": [[1, 0], [0, 1], [1, 1]]}, "ln2": {"gamma": [2]}}`;
    const trim = fixesAt(text, '[1, // first').find((x) => x.title === 'Trim to 2 numbers')!;
    const trimmed = apply(text, trim);
    assert.ok(trimmed.includes('"b1": [1, // first\n 2],'), trimmed);
    const pad = fixesAt(trimmed, '[2]').find((x) => x.title === 'Pad with ones to 3 numbers')!;
    const fixed = apply(trimmed, pad);
    assert.ok(fixed.includes('"gamma": [2, 1, 1]'), fixed);
    assert.deepEqual(readModel(fixed, 'm.ffn.json').problems, []);
  });

  it('adds a missing bias filled with zeros, after its matrix, keeping the indentation', () => {
    const text = `{
  "version": 1,
  "input": [[1, 2]],
  "ffn": {
    "W1": [[1, 0], [0, 1], [1, 1]],
    "W2": [[1, 0, 0], [0, 1, 0]]
  }
}`;
    // on the "ffn" key: both; on "W1": its own; inside a matrix (any line of the file): none
    assert.deepEqual(fixesAt(text, '"ffn"').map((f) => f.title), ['Add b1 filled with zeros (3 numbers)', 'Add b2 filled with zeros (2 numbers)']);
    assert.deepEqual(fixesAt(text, '[1, 1]'), []);
    const fixes = fixesAt(text, '"W1"');
    assert.deepEqual(fixes.map((f) => f.title), ['Add b1 filled with zeros (3 numbers)']);
    const fixed = apply(text, fixes[0]);
    assert.equal(fixed, text.replace('"W1": [[1, 0], [0, 1], [1, 1]],', '"W1": [[1, 0], [0, 1], [1, 1]],\n    "b1": [0, 0, 0],'));
    const both = apply(fixed, fixesAt(fixed, '"W2"').find((f) => f.title.startsWith('Add b2'))!);
    assert.ok(both.includes('"W2": [[1, 0, 0], [0, 1, 0]],\n    "b2": [0, 0]'), both);
    const m = readModel(both, 'm.ffn.json');
    assert.deepEqual(m.problems, []);
    assert.equal(m.file!.paramCounts.ffn, 6 + 3 + 6 + 2);
  });
});
