// The parallel residual: (mlp + attn) + x in float32, in the order GPTNeoXLayer adds them; its
// op recomputes only the columns an edit changed, with the bits of the whole.
import * as assert from 'node:assert/strict';
import type { StageContext } from './graph';
import type { Cols } from './params';
import { parallelResidualForward, parallelResidualOp } from './parallelResidual';

const T = 3;
const C = 4;
const rand = (seed: number): Float32Array => Float32Array.from({ length: T * C }, (_, i) => Math.sin(i * 2.3 + seed) * 5);

function context(inputs: Record<string, Float32Array>, changed: Record<string, Cols>, previous: Float32Array | null, full: boolean): StageContext {
  return {
    T, full, previous, kernel: undefined as never,
    input: (id) => inputs[id],
    changed: (id) => changed[id] ?? null,
    param: () => null,
    paramChanged: () => null,
    kept: () => null,
    keep: () => undefined,
    packed: () => { throw new Error('no params'); },
    rows: (w) => new Float32Array(T * w),
  };
}

describe('parallelResidualForward', () => {
  it('adds (mlp + attn) + x, as transformers does: 1 + 2²⁴ − 2²⁴ in float32 is 1 that way, 0 the other', () => {
    const x = new Float32Array([1]);
    const attn = new Float32Array([2 ** 24]);
    const mlp = new Float32Array([-(2 ** 24)]);
    const out = new Float32Array(1);
    parallelResidualForward(out, x, attn, mlp);
    assert.equal(out[0], 1);
    assert.equal(Math.fround(Math.fround(x[0] + attn[0]) + mlp[0]), 0); // (x + attn) + mlp would lose the 1
  });
  it('each number: fround(mlp + attn) + x rounded to float32', () => {
    const [x, attn, mlp] = [rand(1), rand(2), rand(3)];
    const out = new Float32Array(T * C);
    parallelResidualForward(out, x, attn, mlp);
    for (let i = 0; i < T * C; i++) assert.equal(out[i], Math.fround(Math.fround(mlp[i] + attn[i]) + x[i]));
  });
});

describe('parallelResidualOp', () => {
  const args = { x: 'x', attn: 'a', mlp: 'm', C };
  it('after an edit of some columns of one input, only those columns again, with the bits of a full run', () => {
    const inputs = { x: rand(1), a: rand(2), m: rand(3) };
    const first = parallelResidualOp.run(context(inputs, {}, null, true), args);
    assert.equal(first.changed, 'all');
    const edited = { ...inputs, m: inputs.m.slice() };
    for (let t = 0; t < T; t++) edited.m[t * C + 2] += 1;
    const again = parallelResidualOp.run(context(edited, { m: new Set([2]) }, first.data, false), args);
    assert.deepEqual(again.changed, new Set([2]));
    const full = parallelResidualOp.run(context(edited, {}, null, true), args);
    assert.deepEqual(again.data, full.data);
    assert.notDeepEqual(again.data, first.data);
  });
  it('appends row by row', () => assert.equal(parallelResidualOp.append, 'rows'));
});
