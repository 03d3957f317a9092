// Binary search over sorted starts (line starts, chunk starts).

/** The last index i with starts[i] <= x, for ascending `starts` with starts[0] <= x (else 0). */
export function lastAtOrBelow(starts: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
