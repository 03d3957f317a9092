// The fast TypeScript kernel against the naive reference: bit-identical (same float64 sums in
// the same order), for awkward shapes and both layouts.
import * as assert from 'node:assert/strict';
import { tsKernel } from './kernel';
import { matmul, matmulPackedColumns, packB } from './matmul';
import { matmulNaive, type BLayout } from './matmulNaive';
import { rng } from './rng';

describe('matmul (TypeScript kernel) vs matmulNaive', () => {
  const shapes = [[1, 1, 1], [1, 3, 5], [2, 7, 3], [3, 5, 4], [4, 4, 4], [5, 9, 6], [7, 16, 13], [8, 64, 256], [33, 17, 31]];
  for (const layout of ['nk', 'kn'] as BLayout[]) {
    for (const [M, K, N] of shapes) {
      it(`${M}×${K}×${N}, B ${layout}: bit-identical`, () => {
        const r = rng(M * 1000 + K * 10 + N);
        const a = new Float32Array(M * K).map(() => r() * 4 - 2);
        const b = new Float32Array(K * N).map(() => r() * 4 - 2);
        const want = new Float32Array(M * N);
        const got = new Float32Array(M * N);
        matmulNaive(want, a, b, M, K, N, layout);
        matmul(got, a, b, M, K, N, layout);
        assert.deepEqual(got, want);
      });
    }
  }
  it('by hand: [[1, 2], [3, 4]] · [[5, 6], [7, 8]] = [[19, 22], [43, 50]]', () => {
    const out = new Float32Array(4);
    matmul(out, new Float32Array([1, 2, 3, 4]), new Float32Array([5, 6, 7, 8]), 2, 2, 2, 'kn');
    assert.deepEqual([...out], [19, 22, 43, 50]);
    matmulNaive(out, new Float32Array([1, 2, 3, 4]), new Float32Array([5, 6, 7, 8]), 2, 2, 2, 'kn');
    assert.deepEqual([...out], [19, 22, 43, 50]);
  });
  it('matmulColumns rewrites exactly the columns matmul wrote', () => {
    const [M, K, N] = [9, 31, 22];
    const r = rng(7);
    const a = new Float32Array(M * K).map(() => r() - 0.5);
    const b = new Float32Array(N * K).map(() => r() - 0.5);
    const full = new Float32Array(M * N);
    const pb = packB(b, K, N, 'nk');
    tsKernel.matmul(full, a, M, pb);
    const part = new Float32Array(M * N).fill(NaN);
    const cols = [0, 3, 4, 5, 17, 21];
    matmulPackedColumns(part, a, M, pb, cols);
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        if (cols.includes(j)) assert.ok(Object.is(part[i * N + j], full[i * N + j]), `(${i}, ${j})`);
        else assert.ok(Number.isNaN(part[i * N + j]), `(${i}, ${j}) must stay untouched`);
      }
    }
  });
});
