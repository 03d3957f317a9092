import * as assert from 'node:assert/strict';
import { poolAcrossVocab, topWords, vocabWide } from './vocabStages';

describe('vocabStages: what leaves the worker of a stage across the vocabulary', () => {
  it('a stage is pooled only when its columns are the vocabulary (the plan says) and wider than the panel draws', () => {
    assert.equal(vocabWide('vocab', [4, 50257], 1024), true);
    assert.equal(vocabWide('vocab', [4, 512], 1024), false, 'stories260K: whole');
    assert.equal(vocabWide('neuron', [4, 3072], 1024), false, 'an FFN stage, however wide');
    assert.equal(vocabWide('dim', [4, 50257], 1024), false, 'a d_model as wide as a vocabulary');
    assert.equal(vocabWide('vocab', [12, 4, 50257], 1024), false, 'not [rows, V]');
    assert.equal(vocabWide(undefined, [4, 50257], 4), false, 'a stage the plan does not name');
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

  it('5 × 50,257 into 1024 columns: each value the largest |v| of its block (computed here by a plain loop), and its word holds it', () => {
    const [rows, V, P] = [5, 50257, 1024];
    const data = new Float32Array(rows * V).map((_, i) => Math.sin(i * 0.37) * (1 + (i % 97)));
    const { data: out, cols } = poolAcrossVocab(data, rows, V, P);
    assert.equal(cols, P);
    for (let r = 0; r < rows; r++) for (let c = 0; c < P; c++) {
      const [a, b] = [Math.floor((c * V) / P), Math.floor(((c + 1) * V) / P)];
      let best = data[r * V + a];
      for (let k = a + 1; k < b; k++) if (Math.abs(data[r * V + k]) > Math.abs(best)) best = data[r * V + k];
      assert.equal(out[r * P + c], best, `row ${r} block ${c}`);
      const w = out[rows * P + r * P + c];
      assert.ok(w >= a && w < b, `word ${w} in block ${c}`);
      assert.equal(data[r * V + w], best);
    }
  });

  it('topWords: the k most probable words of each token, most probable first (the first of equal ones first)', () => {
    const probs = Float32Array.from([0.1, 0.5, 0.1, 0.3, /* */ 0.25, 0.25, 0.4, 0.1]);
    assert.deepEqual(topWords(probs, 2, 4, 3), { k: 3, ids: [1, 3, 0, 2, 0, 1], p: [0.5, 0.30000001192092896, 0.10000000149011612, 0.4000000059604645, 0.25, 0.25] });
    assert.equal(topWords(probs, 2, 4, 20).k, 4, 'k no more than the vocabulary');
  });
});
