// Scores with grouped-query attention against a naive triple loop: query head h reads key head h / (NH/KVH).
import * as assert from 'node:assert/strict';
import { attentionScoresForward, kvHead } from './attentionScores';
import { tsKernel } from './kernel';

describe('attentionScoresForward', () => {
  it('equals Q_h·K_gᵀ/√HS with g = h / (NH/KVH) (4 query heads, 2 key heads)', () => {
    const NH = 4; const KVH = 2; const T = 3; const HS = 2;
    const q = Float32Array.from({ length: NH * T * HS }, (_, i) => (i % 7) - 3);
    const k = Float32Array.from({ length: KVH * T * HS }, (_, i) => (i % 5) * 0.5 - 1);
    const got = new Float32Array(NH * T * T);
    attentionScoresForward(got, q, k, NH, KVH, T, HS, tsKernel);
    for (let h = 0; h < NH; h++) {
      const g = [0, 0, 1, 1][h];
      assert.equal(kvHead(h, NH, KVH), g);
      for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
        let s = 0;
        for (let d = 0; d < HS; d++) s += q[(h * T + i) * HS + d] * k[(g * T + j) * HS + d];
        assert.equal(got[(h * T + i) * T + j], Math.fround(Math.fround(s) * (1 / Math.sqrt(HS))));
      }
    }
  });
});
