// erf and erfc against Python's math.erf, math.erfc.
import * as assert from 'node:assert/strict';
import { erf, erfc, erfcByTable, erfSeries, erfTable, ERFC_TABLE_MAX } from './erf';

describe('erf / erfc (against Python math.erf, math.erfc)', () => {
  const cases: Array<[number, number]> = [[0.1, 0.1124629160182849], [0.5, 0.5204998778130465], [1, 0.8427007929497149],
    [2, 0.9953222650189527], [2.4, 0.999311486103355], [2.5, 0.999593047982555], [3, 0.9999779095030014], [5, 0.9999999999984626]];
  for (const [x, want] of cases) {
    it(`erf(${x}) and erf(-${x})`, () => {
      assert.ok(Math.abs(erf(x) - want) < 1e-15, `erf(${x}) = ${erf(x)}`);
      assert.ok(Math.abs(erf(-x) + want) < 1e-15);
    });
  }
  it('erfc keeps its digits far in the tail', () => {
    for (const [x, want] of [[1.5, 0.033894853524689274], [2, 0.004677734981047266], [2.2, 0.001862846297981891], [2.5, 0.0004069520174449589], [3, 2.2090496998585438e-05], [5, 1.5374597944280351e-12], [10, 2.088487583762545e-45], [-1, 1.842700792949715]]) {
      assert.ok(Math.abs(erfc(x) - want) <= 1e-13 * want, `erfc(${x}) = ${erfc(x)}, want ${want}`);
    }
  });
  it('erf(0) = 0', () => assert.equal(erf(0), 0));
});

describe('erf: the table form against the series (the reference)', () => {
  it('agree to 4e-15 (a few units in the last place of values near 1) on 200,001 points of (−2.5, 2.5), and GELU in float32 is the same number', () => {
    let worst = 0;
    let f32Differ = 0;
    for (let i = 0; i <= 200000; i++) {
      const x = -2.5 + (5 * i) / 200001 + 1e-9;
      const a = erfTable(x);
      const b = erfSeries(x);
      worst = Math.max(worst, Math.abs(a - b));
      // (GELU's use: x/2 · (1 − erf(−x/√2)) rounded to float32)
      const u = x * Math.SQRT2;
      if (Math.fround(0.5 * u * (1 - erfTable(-x))) !== Math.fround(0.5 * u * (1 - erfSeries(-x)))) f32Differ++;
    }
    assert.ok(worst <= 4e-15, `largest |table − series| ${worst}`);
    assert.ok(f32Differ <= 2, `GELU values that round to another float32: ${f32Differ} of 200,001`);
  });
});

describe('erfcByTable (GELU\'s erfc) against erfc (the continued fraction from 2.5 on)', () => {
  it('agree to 1e-13 relative on 400,001 points of (−10.25, 10.25), and GELU in float32 is the same number but for a handful', () => {
    let worst = 0;
    let f32Differ = 0;
    for (let i = 0; i <= 400000; i++) {
      const z = -ERFC_TABLE_MAX + (2 * ERFC_TABLE_MAX * i) / 400001 + 1e-9;
      const a = erfcByTable(z);
      const b = erfc(z);
      worst = Math.max(worst, Math.abs(a - b) / b);
      const x = -z * Math.SQRT2;
      if (Math.fround(0.5 * x * a) !== Math.fround(0.5 * x * b)) f32Differ++;
    }
    assert.ok(worst <= 1e-13, `largest relative |table − erfc| ${worst}`);
    assert.ok(f32Differ <= 4, `GELU values that round to another float32: ${f32Differ} of 400,001`);
  });
  it('past the table: 2 or 0; NaN stays NaN', () => {
    assert.equal(erfcByTable(-11), 2);
    assert.equal(erfcByTable(11), 0);
    assert.equal(erfcByTable(Infinity), 0);
    assert.ok(Number.isNaN(erfcByTable(NaN)));
  });
});
