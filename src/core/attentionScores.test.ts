// Scores with grouped-query attention against a naive triple loop: query head h reads key head h / (NH/KVH).
import * as assert from 'node:assert/strict';
import { appendScores, attentionScoresForward, kvHead } from './attentionScores';
import { headRows } from './heads';
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

describe('appendScores: queries appended to a causal input', () => {
  const bits = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  // (the wasm kernel's products and the TypeScript one's; HS 6 and 9 are not a whole number of lanes)
  for (const [kname, kernel] of [['ts', tsKernel], ['wasm', createWasmKernel()]] as const) {
    it(`${kname} kernel: the new rows and the new keys' columns, the rest kept, are the full scores' bits`, function () {
      if (!kernel) this.skip();
      for (const [NH, KVH, HS, T0, T, opts] of [[4, 2, 6, 31, 32, {}], [2, 2, 9, 3, 7, { softcap: 1.5 }], [8, 1, 4, 1, 2, { scale: 0.3 }], [3, 3, 16, 17, 20, {}]] as const) {
        const q = Float32Array.from({ length: NH * T * HS }, (_, i) => Math.sin(i * 0.37 + T0) * 2);
        const k = Float32Array.from({ length: KVH * T * HS }, (_, i) => Math.cos(i * 0.53 + T) * 2);
        const want = new Float32Array(NH * T * T);
        attentionScoresForward(want, q, k, NH, KVH, T, HS, kernel, opts);
        // what the run of the first T0 tokens computed, and a full run's first T0 rows (as patching passes them)
        const before = new Float32Array(NH * T0 * T0);
        attentionScoresForward(before, headRows(q, NH, T, HS, 0, T0), headRows(k, KVH, T, HS, 0, T0), NH, KVH, T0, HS, kernel, opts);
        const args = { q: 'q', k: 'k', NH, KVH, HS, ...opts };
        for (const previous of [before, headRows(want, NH, T, T, 0, T0)]) {
          const got = appendScores(q, k, args, T, T0, previous, kernel);
          assert.equal(bits(got).compare(bits(want)), 0, `NH ${NH} KVH ${KVH} HS ${HS}, T ${T0} → ${T}, previous ${previous.length / (NH * T0)} keys wide`);
        }
      }
    });
  }
});
