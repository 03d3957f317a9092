// erf and erfc in float64, to about 1e-15 relative: JavaScript's Math has neither.
// |x| < 2.5: the series erf(x) = 2/√π · e^(-x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)), whose terms are
// all positive (no cancellation): the reference (erfSeries), up to ~45 terms a value. The fast form
// (erfTable) reads the Taylor expansion of erf around the nearest of the points 1/32 apart, whose
// coefficients come from the series at those points: erf⁽ⁿ⁺¹⁾(x₀) = 2/√π · (−1)ⁿ Hₙ(x₀) e^(−x₀²)
// (Hₙ the physicists' Hermite polynomials), 10 terms for |h| ≤ 1/64.
// |x| ≥ 2.5: erfc by its continued fraction (modified Lentz), so erfc of large arguments keeps its
// digits (GELU of large negatives needs them).
// GELU (gelu.ts) reads erfc from the table alone (erfcByTable), whose points run on to 10.25, past
// which every float32 GELU is −0 or x: only + − × and a floor, so its vector form (wasm/geluModule.ts)
// gives the same bits.

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
const ERF_POINTS = 81; // x₀ = 0, 1/32, …, 2.5: erf's
/** Where erfcByTable's points end (x₀ = 10.25): past it erfc(x) < 1e-46, and 0.5·x·erfc(x/√2) of any float32 rounds to ±0 or x. */
export const ERFC_TABLE_MAX = 10.25;
const POINTS = ERFC_TABLE_MAX / STEP + 1;
const TERMS = 10;
/** A point's row: erf(x₀), the Taylor coefficients erf⁽ⁿ⁾(x₀)/n! (n = 1 … TERMS), erfc(x₀), padding. */
export const ERFC_ROW = 16;
const ROW_ERFC = TERMS + 1;

/** The table, ERFC_ROW values a point, x₀ = p/32: erf(x₀ + h) = Σ row[k] hᵏ; erfc(x₀ + h) = row[ROW_ERFC] − Σ_{k≥1} row[k] hᵏ. */
export const ERF_TAYLOR = new Float64Array(POINTS * ERFC_ROW);
(() => {
  const t = ERF_TAYLOR;
  for (let p = 0; p < POINTS; p++) {
    const x0 = p * STEP;
    const at = p * ERFC_ROW;
    const g = TWO_OVER_SQRT_PI * Math.exp(-x0 * x0);
    // (erfc with its own digits: from 1.5 on by the continued fraction, not 1 − erf)
    t[at + ROW_ERFC] = x0 >= 1.5 ? erfcContinuedFraction(x0) : 1 - erfSeries(x0);
    t[at] = p < ERF_POINTS ? erfSeries(x0) : 1 - t[at + ROW_ERFC];
    let hPrev = 0;
    let h = 1; // H₀
    let fact = 1;
    for (let n = 0; n < TERMS; n++) {
      fact *= n + 1;
      t[at + n + 1] = ((n % 2 ? -1 : 1) * g * h) / fact;
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
  const at = p * ERFC_ROW;
  let acc = ERF_TAYLOR[at + TERMS];
  for (let k = TERMS - 1; k >= 0; k--) acc = acc * h + ERF_TAYLOR[at + k];
  return x < 0 ? -acc : acc;
}

/** erfc(x) for 0 ≤ x ≤ ERFC_TABLE_MAX: erfc(x₀) less the expansion's terms past the first, which are all small (no 1 − erf cancellation). */
function erfcTable(x: number): number {
  const p = Math.floor(x * 32 + 0.5); // (the vector form's f64x2.floor: Math.round differs at ties)
  const h = x - p * STEP;
  const at = p * ERFC_ROW;
  let acc = ERF_TAYLOR[at + TERMS];
  for (let k = TERMS - 1; k >= 1; k--) acc = acc * h + ERF_TAYLOR[at + k];
  return ERF_TAYLOR[at + ROW_ERFC] - acc * h;
}

/**
 * erfc(x) by the table alone: past ERFC_TABLE_MAX, 0 (or 2 for x < 0), which changes no float32
 * GELU. Relative to erfc, ~1e-15 to 2.5 and ~1e-13 at 10 (the expansion's first term left out).
 * The operations of wasm/geluModule.ts's lanes, in the same order.
 */
export function erfcByTable(x: number): number {
  const a = Math.abs(x);
  if (!(a <= ERFC_TABLE_MAX)) return a !== a ? NaN : x < 0 ? 2 : 0;
  const r = erfcTable(a);
  return x < 0 ? 2 - r : r;
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
