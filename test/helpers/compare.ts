// |got − want| ≤ abs + rel·|want|, the reference cases' rule; the message names the first
// mismatching index and the largest difference so a failure says where to look.
export interface Tolerance { abs: number; rel: number }

export function compareClose(
  got: ArrayLike<number>, want: ArrayLike<number>, tol: Tolerance, what: string,
): string | null {
  if (got.length !== want.length) return `${what}: ${got.length} values, expected ${want.length}`;
  let first = -1;
  let maxDiff = 0;
  let maxAt = -1;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]);
    const ok = d <= tol.abs + tol.rel * Math.abs(want[i]);
    if (!(d <= maxDiff) || Number.isNaN(d)) {
      maxDiff = Number.isNaN(d) ? NaN : d;
      maxAt = i;
    }
    if (!ok && first < 0) first = i;
  }
  if (first < 0) return null;
  return `${what}: first mismatch at index ${first} (got ${got[first]}, want ${want[first]}); max |diff| = ${maxDiff} at index ${maxAt}; tolerance abs ${tol.abs} + rel ${tol.rel}`;
}
