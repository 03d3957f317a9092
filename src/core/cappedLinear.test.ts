import * as assert from 'node:assert/strict';
import { cappedLinearOp } from './cappedLinear';
import type { StageContext } from './graph';
import { tsKernel } from './kernel';
import { softcap } from './softcap';

describe('cappedLinearOp (head.logits with a final soft-cap)', () => {
  it('is softcap(x·Wᵀ + b) of every number, and leaves the kept product as it was', () => {
    const x = Float32Array.from([1, 2, -3, 0.5]); // T 2, C 2
    const W = { data: Float32Array.from([3, -1, 2, 4, 0.5, 0.5]), shape: [3, 2], layout: 'out_in' as const };
    const b = { data: Float32Array.from([0.1, -0.2, 10]), shape: [3] };
    const kept = new Map<string, Float32Array>();
    const ctx = {
      T: 2, kernel: tsKernel, full: true, previous: null,
      input: () => x, changed: () => 'all', param: (id: string) => (id === 'W' ? W : id === 'b' ? b : null), paramChanged: () => 'all',
      kept: (n: string) => kept.get(n) ?? null, keep: (n: string, d: Float32Array) => kept.set(n, d),
      packed: (_p: string, K: number, N: number) => tsKernel.pack(W.data, K, N, 'nk'),
      rows: (w: number) => new Float32Array(2 * w),
    } as unknown as StageContext;
    const r = cappedLinearOp.run(ctx, { x: 'x', W: 'W', b: 'b', C: 2, OC: 3, cap: 3 });
    const want: number[] = [];
    for (let t = 0; t < 2; t++) for (let o = 0; o < 3; o++) want.push(softcap(Math.fround(x[t * 2] * W.data[o * 2] + x[t * 2 + 1] * W.data[o * 2 + 1]) + b.data[o], 3));
    assert.deepEqual([...r.data].map((v) => +v.toFixed(5)), want.map((v) => +v.toFixed(5)));
    assert.ok(Math.abs(r.data[2]) < 3, 'capped below 3');
    assert.notEqual(kept.get('pre'), r.data);
  });
});
