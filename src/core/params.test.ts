// A matrix param's three layouts, worked by hand: the same weight W'[k][n] (input k, output n)
// found in out_in, in_out and 'panels' (16 outputs side by side, the last panel padded with zeros).
import * as assert from 'node:assert/strict';
import { matmulNaive } from './matmulNaive';
import { outputsInputs, panelsLength, readOutputRow, rowsAreOutputs, toPanels, weightIndex, type Param } from './params';

describe('matrix layouts (src/core/params)', () => {
  // K = 2 inputs, N = 17 outputs: weight (k, n) = 10·n + k, so each number says where it belongs
  const K = 2, N = 17;
  const value = (k: number, n: number): number => 10 * n + k;
  const outIn = Float32Array.from({ length: N * K }, (_, i) => value(i % K, Math.floor(i / K)));
  const inOut = Float32Array.from({ length: K * N }, (_, i) => value(Math.floor(i / N), i % N));

  it('panels: panel 0 row k holds outputs 0…15 at input k; panel 1 holds output 16, then zeros', () => {
    assert.equal(panelsLength(K, N), 2 * 16 * K);
    const p = toPanels(outIn, K, N, 'nk');
    assert.deepEqual([...p.subarray(0, 16)], Array.from({ length: 16 }, (_, c) => 10 * c)); // k = 0
    assert.deepEqual([...p.subarray(16, 32)], Array.from({ length: 16 }, (_, c) => 10 * c + 1)); // k = 1
    assert.deepEqual([...p.subarray(32, 48)], [160, ...new Array(15).fill(0)]);
    assert.deepEqual([...p.subarray(48, 64)], [161, ...new Array(15).fill(0)]);
    assert.deepEqual(toPanels(inOut, K, N, 'kn'), p, 'the same panels from [in][out]');
  });

  it('weightIndex and readOutputRow find W\'[k][n] in every layout; outputsInputs and rowsAreOutputs', () => {
    const params: Param[] = [
      { data: outIn, shape: [N, K], layout: 'out_in' },
      { data: inOut, shape: [K, N], layout: 'in_out' },
      { data: toPanels(outIn, K, N, 'nk'), shape: [N, K], layout: 'panels' },
    ];
    for (const p of params) {
      assert.deepEqual(outputsInputs(p), [N, K], p.layout);
      assert.equal(rowsAreOutputs(p), p.layout !== 'in_out');
      for (let n = 0; n < N; n++) {
        for (let k = 0; k < K; k++) assert.equal(p.data![weightIndex(p.layout, k, n, K, N)], value(k, n), `${p.layout} (${k}, ${n})`);
        const row = new Array<number>(K + 1).fill(-1);
        readOutputRow(p, n, K, N, row, 1);
        assert.deepEqual(row, [-1, value(0, n), value(1, n)], `${p.layout}: output ${n}'s weights`);
      }
    }
  });

  it('matmulNaive gives the same numbers from panels as from either layout', () => {
    const M = 3;
    const a = Float32Array.from({ length: M * K }, (_, i) => (i % 5) - 2.5);
    const want = new Float32Array(M * N);
    matmulNaive(want, a, outIn, M, K, N, 'nk');
    for (const [b, layout] of [[inOut, 'kn'], [toPanels(outIn, K, N, 'nk'), 'panels']] as const) {
      const got = new Float32Array(M * N);
      matmulNaive(got, a, b, M, K, N, layout);
      assert.deepEqual(got, want, layout);
    }
  });
});
