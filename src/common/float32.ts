// The shortest decimal that reads back as the same float32, so the CLI prints 0.1, not
// 0.10000000149011612 (which is what printing the float32 as a float64 would give).
export function formatFloat32(v: number): string {
  if (!Number.isFinite(v)) return 'null'; // JSON has no NaN or Infinity
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  for (let p = 1; p < 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(Number(v.toPrecision(9)));
}
