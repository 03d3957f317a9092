// An edit inside a row re-reads only that row; the result must equal reading the whole text
// again: the same values in every matrix, the same offsets on every node, the same problems.
import * as assert from 'node:assert/strict';
import type { TextChange } from '../../../src/protocol/worker';
import { applyToString as applyIncrementally } from '../../helpers/incremental';
import type { JsonNode } from '../../../src/model/jsonc';
import { readModel, type ReadResult } from '../../../src/model/read';
import { rng } from '../../helpers/random';

/** Every node's kind and offsets, and every number array's values, in tree order. */
function shape(r: ReadResult): unknown[] {
  const out: unknown[] = [];
  const walk = (n: JsonNode | null): void => {
    if (!n) return;
    if (n.kind === 'numbers') out.push(['numbers', n.start, n.end, Array.from(r.json.arena.subarray(n.offset, n.offset + n.length))]);
    else out.push([n.kind, n.start, n.end]);
    if (n.kind === 'object') for (const p of n.props) {
      out.push(['key', p.key, p.keyStart, p.keyEnd, p.start, p.end]);
      walk(p.value);
    }
    if (n.kind === 'array') n.items.forEach(walk);
  };
  walk(r.json.root);
  return out;
}

function weightsOf(r: ReadResult): number[][] {
  const p = r.file!.model.params;
  return ['input', 'layers.0.ffn.W1', 'layers.0.ffn.b1', 'layers.0.ffn.W2', 'layers.0.attn.Wq', 'layers.0.ln1.gamma'].map((id) => Array.from(p.get(id)?.data ?? []));
}

const TEXT = `{
  "version": 1,
  "norm": "pre", "residual": true,
  "tokens": ["a", "b", "c"],
  "input": [
    [0.5, -1, 2, 0.25],
    [3, 4.5e-1, 5, -6],
    [1e-3, 0, 0, 1]
  ],
  "attention": { "heads": 2, "causal": true,
    "Wq": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]] },
  "ffn": {
    "activation": "gelu",
    "W1": [
      [0.1, 0.2, 0.3, 0.4],
      [-0.5, 0.6, -0.7, 0.8],
      [0.9, -1.0, 1.1, -1.2]
    ],
    "b1": [0.01, -0.02, 0.03],
    "W2": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]],
    "extra": 1
  },
  "ln1": { "gamma": [1, 1, 1, 1] }
}`;

describe('applyIncrementally', () => {
  it('a number typed over in W1: one row re-read, values and offsets as a full read gives', () => {
    const read = readModel(TEXT, 'm.ffn.json');
    const at = TEXT.indexOf('-0.7');
    const change: TextChange = { offset: at, length: 4, text: '-12.75' };
    const res = applyIncrementally(TEXT, read, [change]);
    assert.ok(res.ok, JSON.stringify(res));
    const fresh = readModel(res.text, 'm.ffn.json');
    assert.deepEqual(shape(read), shape(fresh));
    assert.deepEqual(weightsOf(read), weightsOf(fresh));
    assert.deepEqual(read.problems, fresh.problems); // the unknown-key warning moved with the text
    assert.deepEqual(res.rows.map((r) => [r.binding?.param, r.binding?.row, r.changed]), [['layers.0.ffn.W1', 1, [2]]]);
  });

  it('falls back for edits that change structure or counts', () => {
    const read = () => readModel(TEXT, 'm.ffn.json');
    const at = (s: string): number => TEXT.indexOf(s);
    const cases: Array<[string, TextChange]> = [
      ['a new number in a row', { offset: at('0.4]') + 3, length: 0, text: ', 7' }],
      ['a deleted comma', { offset: at('0.1, 0.2') + 3, length: 1, text: '' }],
      ['a key renamed', { offset: at('"b1"') + 1, length: 2, text: 'b9' }],
      ['a bracket removed', { offset: at('[0.1'), length: 1, text: '' }],
      ['a string edited', { offset: at('"gelu"') + 1, length: 4, text: 'relu' }],
      ['a number outside rows', { offset: at('"heads": 2') + 9, length: 1, text: '4' }],
      ['a typo making the row unreadable', { offset: at('0.9'), length: 1, text: '0..' }],
    ];
    for (const [what, c] of cases) assert.equal(applyIncrementally(TEXT, read(), [c]).ok, false, what);
  });

  it('random edit sequences: incremental when possible, always equal to a from-scratch read', () => {
    const r = rng(2024);
    const numbers = (text: string): Array<[number, number]> => {
      const out: Array<[number, number]> = [];
      const re = /-?\d+(\.\d+)?(e-?\d+)?/g;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text))) {
        // the numbers of arrays (what people edit); scalars like "version" would end the model
        if (!/:\s*$/.test(text.slice(Math.max(0, m.index - 4), m.index))) out.push([m.index, m[0].length]);
      }
      return out;
    };
    let incremental = 0;
    for (let seq = 0; seq < 60; seq++) {
      let text = TEXT;
      let read = readModel(text, 'm.ffn.json');
      for (let step = 0; step < 12; step++) {
        const nums = numbers(text);
        const [off, len] = nums[Math.floor(r() * nums.length)];
        const v = (r() * 20 - 10).toFixed(Math.floor(r() * 5));
        const kind = r();
        const change: TextChange = kind < 0.7 ? { offset: off, length: len, text: v } // retype a number
          : kind < 0.85 ? { offset: off + len, length: 0, text: String(Math.floor(r() * 10)) } // append a digit
            : { offset: off, length: Math.min(1, len), text: '' }; // delete a character
        const next = text.slice(0, change.offset) + change.text + text.slice(change.offset + change.length);
        const fresh = readModel(next, 'm.ffn.json');
        if (!fresh.file) {
          // a typo ("05", "-"): the incremental path must refuse it (the read is then read again)
          assert.equal(applyIncrementally(text, read, [change]).ok, false, `accepted ${JSON.stringify(change)}`);
          read = readModel(text, 'm.ffn.json');
          continue; // as if the user fixed it at once
        }
        const res = applyIncrementally(text, read, [change]);
        if (res.ok) {
          incremental++;
          assert.equal(res.text, next);
          assert.deepEqual(shape(read), shape(fresh), `after ${JSON.stringify(change)}`);
          if (fresh.file) {
            assert.ok(read.file, `incremental read has no model but a fresh one does, after ${JSON.stringify(change)} on\n${text}`);
            assert.deepEqual(weightsOf(read), weightsOf(fresh));
          }
          assert.deepEqual(read.problems, fresh.problems);
        } else {
          read = fresh;
        }
        text = next;
      }
    }
    assert.ok(incremental > 450, `only ${incremental} of 720 edits were incremental`);
  });

  it('several changes in one event (multi-cursor), each relative to the text after the previous', () => {
    const read = readModel(TEXT, 'm.ffn.json');
    // VS Code sends multi-cursor edits last-first, so earlier offsets stay valid
    const a = TEXT.indexOf('0.03');
    const b = TEXT.indexOf('0.5, -1');
    const changes: TextChange[] = [{ offset: a, length: 4, text: '9' }, { offset: b, length: 3, text: '0.125' }];
    const res = applyIncrementally(TEXT, read, changes);
    assert.ok(res.ok);
    const fresh = readModel(res.text, 'm.ffn.json');
    assert.deepEqual(shape(read), shape(fresh));
    assert.deepEqual(res.rows.map((r) => [r.binding?.param, r.binding?.row, r.changed]), [['layers.0.ffn.b1', 0, [2]], ['input', 0, [0]]]);
  });
});
