// TextChunks against a plain string: random edits of every size, at chunk boundaries and across them.
import * as assert from 'node:assert/strict';
import { LineIndex } from '../../../src/model/lines';
import { TextChunks } from '../../../src/model/textChunks';
import { rng } from '../../helpers/random';

describe('TextChunks', () => {
  it('random edits keep it equal to the same edits on a string (slice, charCodeAt, length)', () => {
    const r = rng(5);
    for (const size of [1, 3, 16, 64]) {
      let s = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(5);
      const t = new TextChunks(s, size);
      for (let i = 0; i < 400; i++) {
        const at = Math.floor(r() * (s.length + 1));
        const len = Math.floor(r() * Math.min(s.length - at + 1, r() < 0.2 ? 200 : 5));
        const ins = 'XYZ'.slice(0, Math.floor(r() * 4)).repeat(Math.floor(r() * (r() < 0.1 ? 90 : 3)));
        s = s.slice(0, at) + ins + s.slice(at + len);
        t.edit(at, len, ins);
        assert.equal(t.length, s.length);
        assert.equal(t.toString(), s, `size ${size}, step ${i}`);
        const a = Math.floor(r() * (s.length + 1));
        const b = a + Math.floor(r() * (s.length - a + 1));
        assert.equal(t.slice(a, b), s.slice(a, b));
        if (s.length) {
          const k = Math.floor(r() * s.length);
          assert.equal(t.charCodeAt(k), s.charCodeAt(k));
        }
      }
    }
  });

  it('down to empty and back', () => {
    const t = new TextChunks('hello', 2);
    t.edit(0, 5, '');
    assert.equal(t.toString(), '');
    assert.equal(t.length, 0);
    t.edit(0, 0, 'again');
    assert.equal(t.toString(), 'again');
    assert.ok(Number.isNaN(t.charCodeAt(9)));
  });

  it('lines are found across chunks as in the string', () => {
    const s = 'a\nbb\n\nccc\ndddd\n';
    for (let k = 0; k <= s.length; k++) {
      assert.deepEqual(new LineIndex(new TextChunks(s, 3)).position(k), new LineIndex(s).position(k), `offset ${k}`);
    }
  });
});
