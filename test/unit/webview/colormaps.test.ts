// Colormap tables and value -> index mapping (webview/heatmap/colormaps.ts).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../../helpers/fixtures';
import {
  CENTER_INDEX,
  COLORMAPS,
  INVALID_INDEX,
  LUT_SIZE,
  colorAt,
  isColormapName,
  isDiverging,
  lut,
  lut32,
  valueToIndex,
} from '../../../webview/heatmap/colormaps';

function entry(name: Parameters<typeof lut>[0], i: number): number[] {
  const t = lut(name);
  return [t[i * 4]!, t[i * 4 + 1]!, t[i * 4 + 2]!, t[i * 4 + 3]!];
}

function near(actual: readonly number[], want: readonly number[], tol: number, what: string): void {
  for (let c = 0; c < want.length; c++) {
    assert.ok(Math.abs(actual[c]! - want[c]!) <= tol, `${what}: got [${actual.join(', ')}], want [${want.join(', ')}] ± ${tol}`);
  }
}

describe('heatmap colormaps', () => {
  it('every map is a 256-entry RGBA table, opaque', () => {
    for (const name of COLORMAPS) {
      const t = lut(name);
      assert.ok(t instanceof Uint8ClampedArray, name);
      assert.equal(t.length, LUT_SIZE * 4, name);
      for (let i = 0; i < LUT_SIZE; i++) assert.equal(t[i * 4 + 3], 255, `${name}[${i}] alpha`);
      assert.equal(lut(name), t, `${name}: the table is built once and shared`);
    }
  });

  it('lists the four maps, with a colorblind-safe diverging one', () => {
    assert.deepEqual([...COLORMAPS], ['coolwarm', 'purple-orange', 'viridis', 'grayscale']);
    assert.ok(isDiverging('coolwarm') && isDiverging('purple-orange'));
    assert.ok(!isDiverging('viridis') && !isDiverging('grayscale'));
    assert.ok(isColormapName('viridis'));
    assert.ok(!isColormapName('jet') && !isColormapName(3));
  });

  it("coolwarm: Moreland's endpoints and center, within ±2", () => {
    near(entry('coolwarm', 0), [59, 76, 192], 2, 'coolwarm low end');
    near(entry('coolwarm', 255), [180, 4, 38], 2, 'coolwarm high end');
    near(entry('coolwarm', CENTER_INDEX), [221, 221, 221], 2, 'coolwarm center (entry 128)');
    near(entry('coolwarm', CENTER_INDEX - 1), [221, 221, 221], 2, 'coolwarm center (entry 127)');
    near(colorAt('coolwarm', 0.5), [221, 221, 221], 2, 'colorAt(coolwarm, 0.5)');
  });

  it('coolwarm interpolates between control points as matplotlib does (entry i at x = i/255)', () => {
    // By hand from _coolwarm_data: x = 64/255 lies 3.1% of the way from k = 8 to k = 9; x = 192/255 9.4% from k = 24 to 25.
    near(entry('coolwarm', 64), [141.35, 175.97, 253.86], 0.5, 'coolwarm[64]');
    near(entry('coolwarm', 192), [243.95, 152.5, 121.71], 0.5, 'coolwarm[192]');
  });

  it('purple-orange: purple for low, orange for high, near-white center', () => {
    near(entry('purple-orange', 0), [45, 0, 75], 0, 'low end #2d004b');
    near(entry('purple-orange', 255), [127, 59, 8], 0, 'high end #7f3b08');
    near(entry('purple-orange', CENTER_INDEX), [247, 247, 247], 2, 'center #f7f7f7');
  });

  it('viridis and grayscale endpoints', () => {
    near(entry('viridis', 0), [68, 1, 84], 0, 'viridis low');
    near(entry('viridis', 128), [33, 145, 140], 0, 'viridis[128]');
    near(entry('viridis', 255), [253, 231, 37], 0, 'viridis high');
    for (const i of [0, 1, 100, 255]) assert.deepEqual(entry('grayscale', i), [i, i, i, 255]);
  });

  it('lut32 packs the same bytes', () => {
    for (const name of COLORMAPS) {
      const bytes = new Uint8Array(lut32(name).buffer);
      assert.deepEqual([...bytes], [...lut(name)], name);
    }
  });

  it('valueToIndex: lo -> 0, hi -> 255, 0 -> the center for a symmetric range', () => {
    for (const m of [1, 2.5, 1e-6, 1e6]) {
      assert.equal(valueToIndex(-m, -m, m), 0, `-${m}`);
      assert.equal(valueToIndex(0, -m, m), CENTER_INDEX, `0 in ±${m}`);
      assert.equal(valueToIndex(m, -m, m), 255, `+${m}`);
    }
    assert.equal(valueToIndex(-0, -1, 1), CENTER_INDEX);
    assert.equal(valueToIndex(0.25, 0, 1), 64);
    assert.equal(valueToIndex(0.999, 0, 1), 255);
  });

  it('valueToIndex clamps values outside the range, and flags NaN / ±Infinity', () => {
    assert.equal(valueToIndex(-5, -1, 1), 0);
    assert.equal(valueToIndex(5, -1, 1), 255);
    assert.equal(valueToIndex(1e300, -1, 1), 255);
    assert.equal(valueToIndex(NaN, -1, 1), INVALID_INDEX);
    assert.equal(valueToIndex(Infinity, -1, 1), INVALID_INDEX);
    assert.equal(valueToIndex(-Infinity, -1, 1), INVALID_INDEX);
  });

  it('valueToIndex with a degenerate range does not divide by zero', () => {
    assert.equal(valueToIndex(0, 0, 0), CENTER_INDEX);
    assert.equal(valueToIndex(-1, 0, 0), 0);
    assert.equal(valueToIndex(1, 0, 0), 255);
  });

  it('colorAt clamps t', () => {
    assert.deepEqual(colorAt('grayscale', -1), [0, 0, 0]);
    assert.deepEqual(colorAt('grayscale', 2), [255, 255, 255]);
    assert.deepEqual(colorAt('grayscale', NaN), [0, 0, 0]);
  });
});

describe('colormap names', () => {
  it('the ffnLens.colormap setting offers exactly the maps the panel draws, default first', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { enum?: string[]; default?: string }> } } };
    const setting = pkg.contributes.configuration.properties['ffnLens.colormap'];
    assert.deepEqual(setting.enum, [...COLORMAPS]);
    assert.equal(setting.default, COLORMAPS[0]);
  });
});
