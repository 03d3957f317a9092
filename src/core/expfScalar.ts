// e^x in float32, the scalar form (every float32 operation written out with Math.fround) and the
// constants of its polynomial, which the vector form (wasm/expModule.ts) splats into its lanes.
// What it is and why: ./expf.ts. Here, below the WebAssembly that imports the constants, so that
// no import runs back up.

const f = Math.fround;
export const EXPF = {
  LO: f(-87.33654475), // ln 2^-126: the smallest normal result
  HI: f(88.3), // n ≤ 127 after rounding
  LOG2E: f(1.44269504088896341),
  C1: f(0.693359375), // ln 2 = C1 − C2, C1 with few bits so n·C1 is exact
  C2: f(-2.12194440e-4),
  P: [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1].map(f),
} as const;

// round half to even, as f32x4.nearest
function nearestEven(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** e^x, x rounded to float32 first; bit-identical to one lane of expfInPlace. */
export function expf(x0: number): number {
  const x = f(x0);
  if (x !== x) return NaN;
  if (x > EXPF.HI) return Infinity;
  if (x < EXPF.LO) return 0;
  const { LOG2E, C1, C2, P } = EXPF;
  const n = nearestEven(f(x * LOG2E));
  let r = f(x - f(n * C1));
  r = f(r - f(n * C2));
  const z = f(r * r);
  let y = P[0];
  for (let i = 1; i < P.length; i++) y = f(f(y * r) + P[i]);
  y = f(f(f(y * z) + r) + 1);
  return f(y * 2 ** n);
}
