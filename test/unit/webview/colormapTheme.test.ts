// A diverging map's centre follows the theme (issue 8: in the dark theme the light-grey zero of
// coolwarm made large glaring blocks): dark on a dark backdrop, light on a light one, the two ends
// keeping their hues, the lightness rising (dark) or falling (light) from the centre to each end.
import * as assert from 'node:assert/strict';
import {
  CENTER_INDEX, COLORMAPS, DARK_CENTRE_L, LUT_SIZE, backdropOf, colorAt, isDiverging, lut, lut32, oklab, type Backdrop, type ColormapName,
} from '../../../webview/heatmap/colormaps';
import { fillRGBA } from '../../../webview/heatmap/render';

const DIVERGING = COLORMAPS.filter(isDiverging);
const lab = (name: ColormapName, backdrop: Backdrop, i: number): [number, number, number] => {
  const t = lut(name, backdrop);
  return oklab([t[i * 4]!, t[i * 4 + 1]!, t[i * 4 + 2]!]);
};
const lightness = (name: ColormapName, backdrop: Backdrop, i: number): number => lab(name, backdrop, i)[0];
const hue = (l: readonly number[]): number => (Math.atan2(l[2]!, l[1]!) * 180) / Math.PI;
/** Byte rounding moves Oklab L by up to ~0.002 at these lightnesses: a step back within that is not a step back. */
const ROUNDING = 0.002;

describe('colormaps follow the theme', () => {
  it('the backdrop of VS Code\'s body classes', () => {
    assert.equal(backdropOf('vscode-light'), 'light');
    assert.equal(backdropOf('vscode-dark has-errors'), 'dark');
    assert.equal(backdropOf('vscode-high-contrast'), 'dark');
    assert.equal(backdropOf('vscode-high-contrast vscode-high-contrast-light'), 'light');
    assert.equal(backdropOf(''), 'light');
  });

  it('the centre of a diverging map is light on a light backdrop and dark on a dark one', () => {
    for (const name of DIVERGING) {
      for (const i of [CENTER_INDEX - 1, CENTER_INDEX]) {
        assert.ok(lightness(name, 'light', i) > 0.85, `${name}[${i}] on light: L ${lightness(name, 'light', i).toFixed(3)}`);
        const dark = lightness(name, 'dark', i);
        assert.ok(Math.abs(dark - DARK_CENTRE_L) < 0.01, `${name}[${i}] on dark: L ${dark.toFixed(3)}`);
        // a neutral grey (no hue of its own), as the light centre is
        const [, a, b] = lab(name, 'dark', i);
        assert.ok(Math.hypot(a, b) < 0.01, `${name}[${i}] on dark is grey`);
      }
      assert.deepEqual(colorAt(name, 0.5, 'dark'), [...lut(name, 'dark').subarray(CENTER_INDEX * 4, CENTER_INDEX * 4 + 3)]);
    }
  });

  it('from the centre to each end, lightness rises on dark (falls on light), and the ends stand well apart from the centre', () => {
    for (const name of DIVERGING) {
      for (const backdrop of ['light', 'dark'] as const) {
        const away = (i: number, j: number): number => (backdrop === 'dark' ? 1 : -1) * (lightness(name, backdrop, j) - lightness(name, backdrop, i));
        for (let i = CENTER_INDEX; i < LUT_SIZE - 1; i++) assert.ok(away(i, i + 1) > -ROUNDING, `${name} ${backdrop}: entry ${i + 1} steps back toward the centre`);
        for (let i = CENTER_INDEX - 1; i > 0; i--) assert.ok(away(i, i - 1) > -ROUNDING, `${name} ${backdrop}: entry ${i - 1} steps back toward the centre`);
        for (let i = CENTER_INDEX; i + 8 < LUT_SIZE; i++) assert.ok(away(i, i + 8) > 0, `${name} ${backdrop}: no progress over entries ${i}…${i + 8}`);
        for (let i = CENTER_INDEX - 1; i - 8 >= 0; i--) assert.ok(away(i, i - 8) > 0, `${name} ${backdrop}: no progress over entries ${i - 8}…${i}`);
        for (const end of [0, LUT_SIZE - 1]) assert.ok(away(CENTER_INDEX, end) > 0.35, `${name} ${backdrop}: end ${end} is ${away(CENTER_INDEX, end).toFixed(3)} from the centre`);
      }
    }
  });

  it('the two ends keep their hues (coolwarm: blue and red; purple-orange: purple and orange)', () => {
    for (const name of DIVERGING) {
      for (const end of [0, LUT_SIZE - 1]) {
        const d = Math.abs(hue(lab(name, 'dark', end)) - hue(lab(name, 'light', end)));
        assert.ok(Math.min(d, 360 - d) < 3, `${name} end ${end}: hue moved ${d.toFixed(1)}°`);
        assert.ok(Math.hypot(lab(name, 'dark', end)[1], lab(name, 'dark', end)[2]) > 0.08, `${name} end ${end} on dark is a colour, not a grey`);
      }
    }
    // coolwarm on dark: blue below, red above
    const [lo, hi] = [colorAt('coolwarm', 0, 'dark'), colorAt('coolwarm', 1, 'dark')];
    assert.ok(lo[2] > lo[0] && lo[2] > lo[1], `low end ${lo} is blue`);
    assert.ok(hi[0] > hi[1] && hi[0] > hi[2], `high end ${hi} is red`);
  });

  it('sequential maps and the light tables are the same whatever the backdrop', () => {
    for (const name of COLORMAPS) {
      if (!isDiverging(name)) assert.deepEqual([...lut(name, 'dark')], [...lut(name, 'light')], name);
      assert.equal(lut(name), lut(name, 'light'), `${name}: light is the default`);
      assert.deepEqual([...new Uint8Array(lut32(name, 'dark').buffer)], [...lut(name, 'dark')], `${name}: lut32 packs the dark table`);
    }
  });

  it('a heatmap filled for a dark backdrop paints zero in the dark centre', () => {
    const out = new Uint8ClampedArray(3 * 4);
    fillRGBA(out, new Float32Array([-1, 0, 1]), { colormap: 'coolwarm', range: [-1, 1], backdrop: 'dark' });
    const centre = [...lut('coolwarm', 'dark').subarray(CENTER_INDEX * 4, CENTER_INDEX * 4 + 4)];
    assert.deepEqual([...out.subarray(4, 8)], centre);
    fillRGBA(out, new Float32Array([-1, 0, 1]), { colormap: 'coolwarm', range: [-1, 1] });
    assert.deepEqual([...out.subarray(4, 8)], [...lut('coolwarm').subarray(CENTER_INDEX * 4, CENTER_INDEX * 4 + 4)]);
  });
});
