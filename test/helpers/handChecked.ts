// For tests against values worked out by hand: float32 operands, and a relative comparison whose
// message says which value differs.
import * as assert from 'node:assert/strict';

export const f32 = (xs: number[]): Float32Array => new Float32Array(xs);

export function close(got: ArrayLike<number>, want: number[], tol = 1e-6, what = ''): void {
  assert.equal(got.length, want.length, `${what} length`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= tol * (1 + Math.abs(want[i])), `${what}[${i}]: got ${got[i]}, want ${want[i]}`);
  }
}
