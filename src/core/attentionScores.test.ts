// Scores with grouped-query attention against a naive triple loop: query head h reads key head h / (NH/KVH).
import * as assert from 'node:assert/strict';
import { attentionScoresForward, kvHead } from './attentionScores';
import { tsKernel } from './kernel';
import { createWasmKernel } from './wasm';

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

describe('attentionScoresForward, options (gemma: scale, soft-cap)', () => {
  const NH = 4; const KVH = 2; const T = 5; const HS = 8;
  const q = Float32Array.from({ length: NH * T * HS }, (_, i) => Math.sin(i * 0.37) * 2);
  const k = Float32Array.from({ length: KVH * T * HS }, (_, i) => Math.cos(i * 0.53) * 2);
  const dot = (h: number, i: number, j: number): number => {
    let s = 0;
    for (let d = 0; d < HS; d++) s += q[(h * T + i) * HS + d] * k[(kvHead(h, NH, KVH) * T + j) * HS + d];
    return s;
  };
  it('absent options: the bits of today (1/√HS, no cap)', () => {
    const a = new Float32Array(NH * T * T);
    const b = new Float32Array(NH * T * T);
    attentionScoresForward(a, q, k, NH, KVH, T, HS, tsKernel);
    attentionScoresForward(b, q, k, NH, KVH, T, HS, tsKernel, { softcap: null });
    assert.deepEqual(a, b);
  });
  it('scale query_pre_attn_scalar^-½ (12: not 1/√HS), then tanh(s / 2)·2: every entry, the masked ones too', () => {
    const scale = 12 ** -0.5;
    for (const kernel of [tsKernel, createWasmKernel()]) {
      if (!kernel) continue;
      const got = new Float32Array(NH * T * T);
      attentionScoresForward(got, q, k, NH, KVH, T, HS, kernel, { scale, softcap: 2 });
      const uncapped = new Float32Array(NH * T * T);
      attentionScoresForward(uncapped, q, k, NH, KVH, T, HS, kernel, { scale });
      let capped = 0;
      for (let h = 0; h < NH; h++) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
        const s = dot(h, i, j) * scale;
        const at = (h * T + i) * T + j;
        assert.ok(Math.abs(uncapped[at] - s) < 1e-5, `uncapped ${h},${i},${j}: ${uncapped[at]} vs ${s}`);
        assert.ok(Math.abs(got[at] - Math.tanh(s / 2) * 2) < 1e-5, `capped ${h},${i},${j}: ${got[at]} vs ${Math.tanh(s / 2) * 2}`);
        assert.ok(Math.abs(got[at]) < 2);
        if (Math.abs(got[at] - uncapped[at]) > 0.05) capped++;
      }
      assert.ok(capped > 10, `the cap bit on ${capped} entries`);
    }
  });
});
