// Max-|v| pooling (src/common/pool.ts).
import * as assert from 'node:assert/strict';
import { blockOf, poolMaxAbs, pooledCellOf } from '../../../src/common/pool';

function coverage(start: Uint32Array, end: Uint32Array, n: number): number[] {
  const hits = new Array<number>(n).fill(0);
  for (let i = 0; i < start.length; i++) {
    assert.ok(end[i]! > start[i]!, `block ${i} is empty`);
    for (let s = start[i]!; s < end[i]!; s++) hits[s]!++;
  }
  return hits;
}

describe('heatmap pooling', () => {
  it('keeps the value with the largest |v| in each block, sign included', () => {
    // 2 x 4 -> 1 x 2: blocks cols [0, 2) and [2, 4)
    const data = new Float32Array([1, -5, 2, 3, 4, 0, -2, -7]);
    const p = poolMaxAbs({ data, rows: 2, cols: 4 }, { rows: 1, cols: 2 });
    assert.equal(p.pooled, true);
    assert.equal(p.rows, 1);
    assert.equal(p.cols, 2);
    assert.deepEqual(Array.from(p.data), [-5, -7]);
    assert.deepEqual([...p.source!], [1, 7]); // flat source index of the kept value
    assert.deepEqual([...p.rowStart, ...p.rowEnd], [0, 2]);
    assert.deepEqual([...p.colStart], [0, 2]);
    assert.deepEqual([...p.colEnd], [2, 4]);
  });

  it('a positive extreme stays positive', () => {
    const p = poolMaxAbs({ data: [-1, 9, -8, 0], rows: 1, cols: 4 }, { rows: 1, cols: 1 });
    assert.deepEqual(Array.from(p.data), [9]);
  });

  it('returns the input unchanged when it fits', () => {
    const data = new Float32Array([1, 2, 3, 4]);
    const mask = new Uint8Array([0, 1, 0, 0]);
    const p = poolMaxAbs({ data, rows: 2, cols: 2 }, { rows: 4, cols: 4 }, mask);
    assert.equal(p.pooled, false);
    assert.equal(p.data, data);
    assert.equal(p.mask, mask);
    assert.equal(p.source, undefined);
    assert.deepEqual([...p.rowStart], [0, 1]);
    assert.deepEqual([...p.rowEnd], [1, 2]);
  });

  it('block mapping covers every source row and column exactly once', () => {
    for (const [rows, cols, maxR, maxC] of [
      [7, 3072, 3, 1000],
      [512, 2048, 256, 1024],
      [33, 10, 32, 3],
      [5, 5, 5, 1],
      [1, 97, 1, 13],
    ] as const) {
      const p = poolMaxAbs({ data: new Float32Array(rows * cols), rows, cols }, { rows: maxR, cols: maxC });
      assert.equal(p.rows, maxR);
      assert.equal(p.cols, maxC);
      assert.deepEqual(coverage(p.rowStart, p.rowEnd, rows), new Array(rows).fill(1), `${rows} rows into ${maxR}`);
      assert.deepEqual(coverage(p.colStart, p.colEnd, cols), new Array(cols).fill(1), `${cols} cols into ${maxC}`);
      for (let r = 0; r < rows; r++) {
        const i = pooledCellOf(p, r, 0).row;
        assert.ok(p.rowStart[i]! <= r && r < p.rowEnd[i]!, `row ${r} -> block ${i}`);
      }
      for (let c = 0; c < cols; c++) {
        const j = blockOf(c, cols, p.cols);
        assert.ok(p.colStart[j]! <= c && c < p.colEnd[j]!, `col ${c} -> block ${j}`);
      }
    }
  });

  it('the kept value is the true max-|v| of its block (random matrix)', () => {
    const rows = 37;
    const cols = 101;
    const data = new Float32Array(rows * cols);
    let s = 3;
    for (let i = 0; i < data.length; i++) {
      s = (s * 16807) % 2147483647;
      data[i] = (s / 2147483647) * 20 - 10;
    }
    const p = poolMaxAbs({ data, rows, cols }, { rows: 8, cols: 9 });
    for (let i = 0; i < p.rows; i++) {
      for (let j = 0; j < p.cols; j++) {
        let best = 0;
        for (let r = p.rowStart[i]!; r < p.rowEnd[i]!; r++) {
          for (let c = p.colStart[j]!; c < p.colEnd[j]!; c++) if (Math.abs(data[r * cols + c]!) > Math.abs(best)) best = data[r * cols + c]!;
        }
        assert.equal(p.data[i * p.cols + j], best, `cell ${i},${j}`);
        assert.equal(data[p.source![i * p.cols + j]!], best);
      }
    }
  });

  it('masked cells are skipped unless the whole block is masked', () => {
    // 2 x 4 -> 1 x 2. Block 0 (cols 0..1): the big -9 is masked, so 2 wins. Block 1 (cols 2..3): all masked.
    const data = new Float32Array([1, -9, 5, 6, 2, 0, -7, 3]);
    const mask = new Uint8Array([0, 1, 1, 1, 0, 0, 1, 1]);
    const p = poolMaxAbs({ data, rows: 2, cols: 4 }, { rows: 1, cols: 2 }, mask);
    assert.deepEqual(Array.from(p.data), [2, -7]);
    assert.deepEqual(Array.from(p.mask!), [0, 1]);
  });

  it('a causal mask pooled by 2 keeps the diagonal blocks unmasked', () => {
    const n = 8;
    const data = new Float32Array(n * n).fill(1);
    const mask = new Uint8Array(n * n);
    for (let r = 0; r < n; r++) for (let c = r + 1; c < n; c++) mask[r * n + c] = 1;
    const p = poolMaxAbs({ data, rows: n, cols: n }, { rows: 4, cols: 4 }, mask);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) assert.equal(p.mask![i * 4 + j], j > i ? 1 : 0, `block ${i},${j}`);
  });

  it('NaN and ±Infinity survive pooling', () => {
    const p = poolMaxAbs({ data: [1, NaN, 3, 4, -Infinity, 5e30], rows: 1, cols: 6 }, { rows: 1, cols: 2 });
    assert.ok(Number.isNaN(p.data[0]));
    assert.equal(p.data[1], -Infinity);
  });

  it('rejects data shorter than rows x cols', () => {
    assert.throws(() => poolMaxAbs({ data: [1, 2, 3], rows: 2, cols: 2 }, { rows: 1, cols: 1 }), RangeError);
  });
});
