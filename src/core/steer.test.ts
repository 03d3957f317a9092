// The steer op against numbers worked out by hand: one row at every position, at some, the rows of
// an [n, C] vector at the positions listed, positions past the input left out; the op's changed columns.
import { strict as assert } from 'node:assert';
import type { StageContext } from './graph';
import { tsKernel } from './kernel';
import type { Param } from './params';
import { steeredRows, steerForward, steerOp } from './steer';
import { f32 } from '../../test/helpers/handChecked';

function ctxOf(T: number, x: Float32Array, v: Param, changed: { x?: ReadonlySet<number> | 'all' | null; v?: 'all' | null } = {}): StageContext {
  const full = changed.x === undefined && changed.v === undefined;
  return {
    T, kernel: tsKernel, full, previous: null,
    input: () => x, changed: () => ('x' in changed ? changed.x! : 'all'), param: () => v, paramChanged: () => ('v' in changed ? changed.v! : 'all'),
    kept: () => null, keep: () => undefined, packed: () => { throw new Error('not used'); },
    rows: (w) => new Float32Array(T * w),
  };
}

describe('steer', () => {
  const x = f32([1, 2, 3, 4, 5, 6]); // T 3, C 2

  it('adds alpha·v at every token, at the tokens listed, row by row for an [n, C] vector', () => {
    assert.deepEqual(Array.from(steerForward(x, 3, 2, f32([0.5, -1]), 'all')), [1.5, 1, 3.5, 3, 5.5, 5]);
    assert.deepEqual(Array.from(steerForward(x, 3, 2, f32([0.5, -1]), [2])), [1, 2, 3, 4, 5.5, 5]);
    assert.deepEqual(Array.from(steerForward(x, 3, 2, f32([10, 20, 30, 40]), [0, 2])), [11, 22, 3, 4, 35, 46]);
    // (a position past the input is left out, with its row)
    assert.deepEqual(Array.from(steerForward(x, 3, 2, f32([10, 20, 30, 40]), [1, 7])), [1, 2, 13, 24, 5, 6]);
    assert.deepEqual(steeredRows([4, 0], 3, 1), [[0, 0]]);
  });

  it('adds in float32 as x + alpha·v does, and leaves its input alone', () => {
    const a = f32([0.1, 1e8]);
    const got = steerForward(a, 1, 2, f32([0.2, 1]), 'all');
    assert.deepEqual(Array.from(got), [Math.fround(Math.fround(0.1) + Math.fround(0.2)), Math.fround(1e8 + 1)]);
    assert.deepEqual(Array.from(a), [Math.fround(0.1), 1e8]);
  });

  it('the op: every column on a first run or an edit of the vector, else the input\'s changed columns', () => {
    const v: Param = { data: f32([1, 1]), shape: [1, 2] };
    const args = { x: 'x', vector: 'v', positions: 'all' as const, C: 2 };
    const first = steerOp.run(ctxOf(3, x, v), args);
    assert.deepEqual(Array.from(first.data), [2, 3, 4, 5, 6, 7]);
    assert.equal(first.changed, 'all');
    const cols = new Set([1]);
    assert.equal(steerOp.run(ctxOf(3, x, v, { x: cols, v: null }), args).changed, cols);
    assert.equal(steerOp.run(ctxOf(3, x, v, { x: null, v: 'all' }), args).changed, 'all');
  });
});
