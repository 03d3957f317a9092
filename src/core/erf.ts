// erf and erfc in float64, to about 1e-15 relative: JavaScript's Math has neither.
// |x| < 2.5: the series erf(x) = 2/√π · e^(-x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)), whose terms are
// all positive (no cancellation): the reference (erfSeries), up to ~45 terms a value. The fast form
// (erfTable) reads the Taylor expansion of erf around the nearest of 81 points 1/32 apart, whose
// coefficients come from the series at those points: erf⁽ⁿ⁺¹⁾(x₀) = 2/√π · (−1)ⁿ Hₙ(x₀) e^(−x₀²)
// (Hₙ the physicists' Hermite polynomials), 10 terms for |h| ≤ 1/64; gelu.ts runs on it.
// |x| ≥ 2.5: erfc by its continued fraction (modified Lentz), so erfc of large arguments keeps its
// digits (GELU of large negatives needs them).

const TWO_OVER_SQRT_PI = 1.1283791670955126;
const ONE_OVER_SQRT_PI = 0.5641895835477563;

export function erfSeries(x: number): number {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

const STEP = 1 / 32;
const POINTS = 81; // x₀ = 0, 1/32, …, 2.5
const TERMS = 10;

/** [point][0]: erf(x₀); [point][n + 1]: erf⁽ⁿ⁺¹⁾(x₀) / (n + 1)!, so erf(x₀ + h) = Σ c[k] hᵏ. */
const TAYLOR = new Float64Array(POINTS * (TERMS + 1));
/** erfc(x₀) of each point, with its own digits (from 1.5 on by the continued fraction, not 1 − erf). */
const ERFC0 = new Float64Array(POINTS);
(() => {
  const t = TAYLOR;
  for (let p = 0; p < POINTS; p++) {
    const x0 = p * STEP;
    const g = TWO_OVER_SQRT_PI * Math.exp(-x0 * x0);
    t[p * (TERMS + 1)] = erfSeries(x0);
    ERFC0[p] = x0 >= 1.5 ? erfcContinuedFraction(x0) : 1 - t[p * (TERMS + 1)];
    let hPrev = 0;
    let h = 1; // H₀
    let fact = 1;
    for (let n = 0; n < TERMS; n++) {
      fact *= n + 1;
      t[p * (TERMS + 1) + n + 1] = ((n % 2 ? -1 : 1) * g * h) / fact;
      const next = 2 * x0 * h - 2 * n * hPrev; // H_{n+1} = 2x·Hₙ − 2n·H_{n−1}
      hPrev = h;
      h = next;
    }
  }
})();

/** erf(x) for |x| < 2.5 + 1/64, from the table (the same value as erfSeries to ~1e-16). */
export function erfTable(x: number): number {
  const ax = Math.abs(x);
  const p = Math.round(ax / STEP);
  const h = ax - p * STEP;
  const at = p * (TERMS + 1);
  let acc = TAYLOR[at + TERMS];
  for (let k = TERMS - 1; k >= 0; k--) acc = acc * h + TAYLOR[at + k];
  return x < 0 ? -acc : acc;
}

/** erfc(x) for 0 ≤ x < 2.5 + 1/64: erfc(x₀) less the expansion's terms past the first, which are all small (no 1 − erf cancellation). */
function erfcTable(x: number): number {
  const p = Math.round(x / STEP);
  const h = x - p * STEP;
  const at = p * (TERMS + 1);
  let acc = TAYLOR[at + TERMS];
  for (let k = TERMS - 1; k >= 1; k--) acc = acc * h + TAYLOR[at + k];
  return ERFC0[p] - acc * h;
}

// erfc(x) for x ≥ 2.5: e^(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
function erfcContinuedFraction(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const an = n / 2;
    d = x + an * d;
    d = d === 0 ? tiny : d;
    c = x + an / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return (ONE_OVER_SQRT_PI * Math.exp(-x * x)) / f;
}

export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax < 2.5) return erfTable(x);
  const r = 1 - erfcContinuedFraction(ax);
  return x < 0 ? -r : r;
}

export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x >= 2.5) return erfcContinuedFraction(x);
  if (x <= -2.5) return 2 - erfcContinuedFraction(-x);
  return x >= 0 ? erfcTable(x) : 2 - erfcTable(-x);
}
