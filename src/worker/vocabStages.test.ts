import * as assert from 'node:assert/strict';
import { poolMaxAbs } from '../util/pool';
import { poolAcrossVocab, topWords, vocabWide } from './vocabStages';

describe('vocabStages: what leaves the worker of a stage across the vocabulary', () => {
  it('a stage is pooled only when its last axis is the vocabulary and wider than the panel draws', () => {
    assert.equal(vocabWide([4, 50257], 50257, 1024), true);
    assert.equal(vocabWide([4, 512], 512, 1024), false, 'stories260K: whole');
    assert.equal(vocabWide([4, 3072], 50257, 1024), false, 'an FFN stage');
    assert.equal(vocabWide([12, 4, 50257], 50257, 1024), false, 'not [rows, V]');
    assert.equal(vocabWide([4, 10], 0, 4), false, 'no head');
  });

  it('worked by hand: 2 rows × 10 words into 4 columns (words 0-1, 2-4, 5-6, 7-9), each the value of largest |v| and its word', () => {
    const data = Float32Array.from([
      1, -3, 2, 0, 0, 5, -6, 0, 7, -7,
      0, 0, -1, 1, 0, 0, 0, 2, 0, -2.5,
    ]);
    const { data: out, cols } = poolAcrossVocab(data, 2, 10, 4);
    assert.equal(cols, 4);
    assert.deepEqual([...out.subarray(0, 8)], [-3, 2, -6, 7, 0, -1, 0, -2.5]);
    // ties keep the first (+7 before −7; −1 before +1); an all-zero block names its first word
    assert.deepEqual([...out.subarray(8)], [1, 2, 6, 8, 0, 2, 5, 9]);
  });

  it('the values are the panel\'s own pooling of the whole stage, and each word holds its value', () => {
    const [rows, V, P] = [5, 50257, 1024];
    const data = new Float32Array(rows * V).map((_, i) => Math.sin(i * 0.37) * (1 + (i % 97)));
    const { data: out, cols } = poolAcrossVocab(data, rows, V, P);
    const panel = poolMaxAbs({ data, rows, cols: V }, { rows, cols: P });
    assert.equal(cols, P);
    assert.deepEqual([...out.subarray(0, rows * P)], [...Float32Array.from(panel.data as ArrayLike<number>)]);
    for (let r = 0; r < rows; r++) for (let c = 0; c < P; c++) {
      const w = out[rows * P + r * P + c];
      assert.ok(w >= Math.floor((c * V) / P) && w < Math.floor(((c + 1) * V) / P), `word ${w} in block ${c}`);
      assert.equal(data[r * V + w], out[r * P + c]);
    }
  });

  it('topWords: the k most probable words of each token, most probable first (the first of equal ones first)', () => {
    const probs = Float32Array.from([0.1, 0.5, 0.1, 0.3, /* */ 0.25, 0.25, 0.4, 0.1]);
    assert.deepEqual(topWords(probs, 2, 4, 3), { k: 3, ids: [1, 3, 0, 2, 0, 1], p: [0.5, 0.30000001192092896, 0.10000000149011612, 0.4000000059604645, 0.25, 0.25] });
    assert.equal(topWords(probs, 2, 4, 20).k, 4, 'k no more than the vocabulary');
  });
});
