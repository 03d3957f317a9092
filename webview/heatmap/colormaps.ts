// Colormaps as 256-entry RGBA lookup tables (Uint8ClampedArray of 1024 bytes, alpha 255).
//
// Entry i is the map's color at x = i / 255, and a value is mapped to an entry the way matplotlib
// does it (Normalize, then floor(t * 256) clamped to 0..255; see valueToIndex). So a heatmap drawn
// here matches matplotlib's / seaborn's imshow of the same data, range and map, up to the rounding
// of each channel to a byte (we round; matplotlib's `bytes=True` truncates: at most 1 apart).
//
// Sources of the embedded data:
// - coolwarm: matplotlib's `_coolwarm_data`, Moreland's "CoolWarmFloat33" (33 control points,
//   x = k/32), interpolated linearly exactly as matplotlib's LinearSegmentedColormap builds its
//   256-entry table, so the table is matplotlib's own (error 0 before byte rounding).
// - purple-orange: ColorBrewer PuOr, 11 classes (as matplotlib's `_PuOr_data`), colorblind-safe,
//   evenly spaced, linear interpolation (= matplotlib's PuOr_r). Reversed relative to matplotlib's
//   'PuOr' so that negative = purple (cool side) and positive = orange (warm side), like coolwarm.
// - viridis: matplotlib's 256-entry `_viridis_data` (a ListedColormap), each channel rounded to a
//   byte. Checked entry for entry against d3-scale-chromatic's viridis hex table (identical).
// - grayscale: entry i = (i, i, i), black for low values, white for high (matplotlib 'gray').
//
// On a dark backdrop (VS Code's dark and high-contrast themes) a diverging map's light-grey zero
// made the large near-zero areas glare brighter than the values that matter. There its centre is
// dark instead, and the map grows lighter toward each end, keeping each end's hue (see darkCentre):
// zero recedes into the background as it does into the white page of a light theme. Sequential
// maps are the same on both.
//
// The tables are built once on first use and shared: treat what lut() returns as read-only.

import type { ColormapSetting } from '../../src/protocol/panel';

/** The names are the setting's values (one list: src/protocol/panel.ts; package.json's enum is tested against it). */
export type ColormapName = ColormapSetting;
export type RGB = readonly [number, number, number];
/** What the heatmaps are seen against: the theme's kind. */
export type Backdrop = 'light' | 'dark';

/** Every colormap, in the order a picker should list them (the first is the default). */
export const COLORMAPS: readonly ColormapName[] = Object.freeze(Object.keys({ coolwarm: 0, 'purple-orange': 0, viridis: 0, grayscale: 0 } satisfies Record<ColormapName, 0>) as ColormapName[]);

/** Human-readable names for a picker. */
export const COLORMAP_LABELS: Readonly<Record<ColormapName, string>> = Object.freeze({
  coolwarm: 'Cool–warm (diverging)',
  'purple-orange': 'Purple–orange (diverging, colorblind-safe)',
  viridis: 'Viridis (sequential)',
  grayscale: 'Grayscale (sequential)',
});

export const LUT_SIZE = 256;
/** The entry value 0 falls into under a symmetric range [-m, m] (matplotlib's convention: floor(0.5 * 256)). */
export const CENTER_INDEX = 128;
/** What valueToIndex returns for NaN and ±Infinity (drawn in the invalid color, not from the map). */
export const INVALID_INDEX = -1;

const DIVERGING: ReadonlySet<ColormapName> = new Set<ColormapName>(['coolwarm', 'purple-orange']);

export function isColormapName(s: unknown): s is ColormapName {
  return typeof s === 'string' && (COLORMAPS as readonly string[]).includes(s);
}

/** Diverging maps have a neutral center meant for 0 (use them with a symmetric range). */
export function isDiverging(name: ColormapName): boolean {
  return DIVERGING.has(name);
}

// Moreland's CoolWarmFloat33 as in matplotlib's _coolwarm_data: [r, g, b] at x = k/32, k = 0..32.
const COOLWARM_33: readonly RGB[] = [
  [0.2298057, 0.298717966, 0.753683153],
  [0.26623388, 0.353094838, 0.801466763],
  [0.30386891, 0.406535296, 0.84495867],
  [0.342804478, 0.458757618, 0.883725899],
  [0.38301334, 0.50941904, 0.917387822],
  [0.424369608, 0.558148092, 0.945619588],
  [0.46666708, 0.604562568, 0.968154911],
  [0.509635204, 0.648280772, 0.98478814],
  [0.552953156, 0.688929332, 0.995375608],
  [0.596262162, 0.726149107, 0.999836203],
  [0.639176211, 0.759599947, 0.998151185],
  [0.681291281, 0.788964712, 0.990363227],
  [0.722193294, 0.813952739, 0.976574709],
  [0.761464949, 0.834302879, 0.956945269],
  [0.798691636, 0.849786142, 0.931688648],
  [0.833466556, 0.860207984, 0.901068838],
  [0.865395197, 0.86541021, 0.865395561],
  [0.897787179, 0.848937047, 0.820880546],
  [0.924127593, 0.827384882, 0.774508472],
  [0.944468518, 0.800927443, 0.726736146],
  [0.958852946, 0.769767752, 0.678007945],
  [0.96732803, 0.734132809, 0.628751763],
  [0.969954137, 0.694266682, 0.579375448],
  [0.966811177, 0.650421156, 0.530263762],
  [0.958003065, 0.602842431, 0.481775914],
  [0.943660866, 0.551750968, 0.434243684],
  [0.923944917, 0.49730856, 0.387970225],
  [0.89904617, 0.439559467, 0.343229596],
  [0.869186849, 0.378313092, 0.300267182],
  [0.834620542, 0.312874446, 0.259301199],
  [0.795631745, 0.24128379, 0.220525627],
  [0.752534934, 0.157246067, 0.184115123],
  [0.705673158, 0.01555616, 0.150232812],
];

// ColorBrewer PuOr, 11 classes, from purple (low) to orange (high), in bytes.
const PURPLE_ORANGE_11: readonly RGB[] = [
  [45, 0, 75], // #2d004b
  [84, 39, 136], // #542788
  [128, 115, 172], // #8073ac
  [178, 171, 210], // #b2abd2
  [216, 218, 235], // #d8daeb
  [247, 247, 247], // #f7f7f7
  [254, 224, 182], // #fee0b6
  [253, 184, 99], // #fdb863
  [224, 130, 20], // #e08214
  [179, 88, 6], // #b35806
  [127, 59, 8], // #7f3b08
].map(([r, g, b]) => [r / 255, g / 255, b / 255] as const);

// matplotlib's viridis, 256 entries as rrggbb, rounded to bytes.
const VIRIDIS_HEX =
  '44015444025645045745055946075a46085c460a5d460b5e470d60470e6147106347116447136548146748166848176948186a481a6c481b6d481c6e481d6f481f70482071482173482374482475482576482677482878482979472a7a472c7a472d7b472e7c472f7d46307e46327e46337f463480453581453781453882443983443a83443b84433d84433e85423f854240864241864142874144874045884046883f47883f48893e49893e4a893e4c8a3d4d8a3d4e8a3c4f8a3c508b3b518b3b528b3a538b3a548c39558c39568c38588c38598c375a8c375b8d365c8d365d8d355e8d355f8d34608d34618d33628d33638d32648e32658e31668e31678e31688e30698e306a8e2f6b8e2f6c8e2e6d8e2e6e8e2e6f8e2d708e2d718e2c718e2c728e2c738e2b748e2b758e2a768e2a778e2a788e29798e297a8e297b8e287c8e287d8e277e8e277f8e27808e26818e26828e26828e25838e25848e25858e24868e24878e23888e23898e238a8d228b8d228c8d228d8d218e8d218f8d21908d21918c20928c20928c20938c1f948c1f958b1f968b1f978b1f988b1f998a1f9a8a1e9b8a1e9c891e9d891f9e891f9f881fa0881fa1881fa1871fa28720a38620a48621a58521a68522a78522a88423a98324aa8325ab8225ac8226ad8127ad8128ae8029af7f2ab07f2cb17e2db27d2eb37c2fb47c31b57b32b67a34b67935b77937b87838b9773aba763bbb753dbc743fbc7340bd7242be7144bf7046c06f48c16e4ac16d4cc26c4ec36b50c46a52c56954c56856c66758c7655ac8645cc8635ec96260ca6063cb5f65cb5e67cc5c69cd5b6ccd5a6ece5870cf5773d05675d05477d1537ad1517cd2507fd34e81d34d84d44b86d54989d5488bd6468ed64590d74393d74195d84098d83e9bd93c9dd93ba0da39a2da37a5db36a8db34aadc32addc30b0dd2fb2dd2db5de2bb8de29bade28bddf26c0df25c2df23c5e021c8e020cae11fcde11dd0e11cd2e21bd5e21ad8e219dae319dde318dfe318e2e418e5e419e7e419eae51aece51befe51cf1e51df4e61ef6e620f8e621fbe723fde725';

/** Entry i of a map of evenly spaced control points (floats 0..1): linear interpolation at x = i/255, as matplotlib does. */
function interpolate(points: readonly RGB[], i: number): RGB {
  const segs = points.length - 1;
  const pos = (i / (LUT_SIZE - 1)) * segs;
  const k = Math.min(segs - 1, Math.floor(pos));
  const f = pos - k;
  const a = points[k]!;
  const b = points[k + 1]!;
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

function fromControlPoints(points: readonly RGB[]): Uint8ClampedArray {
  const out = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) {
    const c = interpolate(points, i);
    out.set([Math.round(c[0] * 255), Math.round(c[1] * 255), Math.round(c[2] * 255), 255], i * 4);
  }
  return out;
}

function fromHex(hex: string): Uint8ClampedArray {
  const out = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) {
    for (let c = 0; c < 3; c++) out[i * 4 + c] = parseInt(hex.slice(i * 6 + c * 2, i * 6 + c * 2 + 2), 16);
    out[i * 4 + 3] = 255;
  }
  return out;
}

function grayscaleTable(): Uint8ClampedArray {
  const out = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) out.set([i, i, i, 255], i * 4);
  return out;
}

// --- a dark centre for dark themes -------------------------------------------------------------
// In Oklab (Björn Ottosson, 2020), whose L follows perceived lightness: each entry keeps the hue
// and chroma of the light map's entry at the same place, and takes a lightness that rises from
// DARK_CENTRE_L at the centre to DARK_END_L at both ends, in the light map's own spacing (the
// fraction of the way from its centre's lightness to its end's). Chroma a colour cannot have at
// that lightness is reduced until it fits in sRGB; lightness and hue never change.

/**
 * Oklab L of the centre on a dark backdrop: a dark grey a step above VS Code's dark backgrounds
 * (#1f1f1f is L 0.235), as the light centre (L 0.895) is a step below white: zero recedes, yet the
 * map's extent stays visible.
 */
export const DARK_CENTRE_L = 0.33;
/** Oklab L of both ends on a dark backdrop: as far above the centre as the light map's ends are below its own. */
export const DARK_END_L = 0.72;

function toLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function fromLinear(c: number): number {
  return c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055;
}

/** sRGB bytes (or, with `scale` 1, floats 0..1) -> Oklab [L, a, b]. */
export function oklab(rgb: RGB, scale = 255): [number, number, number] {
  const r = toLinear(rgb[0] / scale);
  const g = toLinear(rgb[1] / scale);
  const b = toLinear(rgb[2] / scale);
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

/** Oklab -> linear sRGB (may lie outside 0..1: out of gamut). */
function linearRGB(L: number, a: number, b: number): [number, number, number] {
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  return [
    4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
  ];
}

/** The sRGB bytes of lightness L, chroma C and hue h (radians), chroma reduced until it fits. */
function fromLch(L: number, C: number, h: number): [number, number, number] {
  const at = (c: number): [number, number, number] => linearRGB(L, c * Math.cos(h), c * Math.sin(h));
  const fits = (v: readonly number[]): boolean => v.every((x) => x >= -1e-7 && x <= 1 + 1e-7);
  let rgb = at(C);
  if (!fits(rgb)) {
    let lo = 0;
    let hi = C;
    for (let k = 0; k < 24; k++) {
      const mid = (lo + hi) / 2;
      if (fits(at(mid))) lo = mid;
      else hi = mid;
    }
    rgb = at(lo);
  }
  return rgb.map((x) => Math.round(fromLinear(Math.min(1, Math.max(0, x))) * 255)) as [number, number, number];
}

/**
 * A diverging table with a dark centre and light ends, from the control points of its light-centred
 * one (see above; from the exact colours, not the bytes, so that rounding is done once).
 */
function darkCentre(points: readonly RGB[]): Uint8ClampedArray {
  const lab = Array.from({ length: LUT_SIZE }, (_, i) => oklab(interpolate(points, i), 1));
  const half = LUT_SIZE / 2;
  const centre = (lab[half - 1]![0] + lab[half]![0]) / 2;
  const out = new Uint8ClampedArray(LUT_SIZE * 4);
  for (let i = 0; i < LUT_SIZE; i++) {
    const [L, a, b] = lab[i]!;
    const end = lab[i < half ? 0 : LUT_SIZE - 1]![0];
    const f = Math.min(1, Math.max(0, (centre - L) / (centre - end)));
    const rgb = fromLch(DARK_CENTRE_L + f * (DARK_END_L - DARK_CENTRE_L), Math.hypot(a, b), Math.atan2(b, a));
    out.set([rgb[0], rgb[1], rgb[2], 255], i * 4);
  }
  return out;
}

const DIVERGING_POINTS: Readonly<Partial<Record<ColormapName, readonly RGB[]>>> = {
  coolwarm: COOLWARM_33,
  'purple-orange': PURPLE_ORANGE_11,
};

const BUILDERS: Readonly<Record<ColormapName, () => Uint8ClampedArray>> = {
  coolwarm: () => fromControlPoints(COOLWARM_33),
  'purple-orange': () => fromControlPoints(PURPLE_ORANGE_11),
  viridis: () => fromHex(VIRIDIS_HEX),
  grayscale: grayscaleTable,
};

const tables = new Map<string, Uint8ClampedArray>();
const packed = new Map<string, Uint32Array>();

/**
 * The map's 256-entry RGBA table (1024 bytes) for a light or a dark backdrop (only a diverging
 * map differs: its centre follows the backdrop). Shared: do not modify. Throws on an unknown name.
 */
export function lut(name: ColormapName, backdrop: Backdrop = 'light'): Uint8ClampedArray {
  const points = backdrop === 'dark' ? DIVERGING_POINTS[name] : undefined;
  const dark = points !== undefined;
  const key = dark ? `${name}:dark` : name;
  let t = tables.get(key);
  if (!t) {
    const build = BUILDERS[name];
    if (!build) throw new Error(`unknown colormap '${String(name)}'; known: ${COLORMAPS.join(', ')}`);
    t = points ? darkCentre(points) : build();
    tables.set(key, t);
  }
  return t;
}

/** The backdrop of a VS Code webview's body classes: dark for vscode-dark and vscode-high-contrast (but not -light). */
export function backdropOf(bodyClass: string): Backdrop {
  const classes = bodyClass.split(/\s+/);
  return classes.includes('vscode-dark') || (classes.includes('vscode-high-contrast') && !classes.includes('vscode-high-contrast-light')) ? 'dark' : 'light';
}

/** True when a Uint32 written to memory lays out its bytes low byte first (every browser and Node we target). */
export const LITTLE_ENDIAN: boolean = new Uint8Array(new Uint32Array([0x0a0b0c0d]).buffer)[0] === 0x0d;

/** One RGBA pixel as the Uint32 that puts bytes r, g, b, a in that order in memory on this machine. */
export function packRGBA(r: number, g: number, b: number, a = 255): number {
  return LITTLE_ENDIAN ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
}

/** The table as 256 packed pixels (see packRGBA), for writing one Uint32 per cell. Shared: do not modify. */
export function lut32(name: ColormapName, backdrop: Backdrop = 'light'): Uint32Array {
  const key = `${name}:${backdrop}`;
  let p = packed.get(key);
  if (!p) {
    const t = lut(name, backdrop);
    p = new Uint32Array(LUT_SIZE);
    for (let i = 0; i < LUT_SIZE; i++) p[i] = packRGBA(t[i * 4]!, t[i * 4 + 1]!, t[i * 4 + 2]!, t[i * 4 + 3]!);
    packed.set(key, p);
  }
  return p;
}

/**
 * Index into a table for value v under the range [lo, hi]: floor((v - lo) / (hi - lo) * 256), clamped
 * to 0..255 (so lo -> 0, hi -> 255, and 0 -> CENTER_INDEX = 128 when lo = -hi). Values outside the range
 * clamp to the end entries. NaN and ±Infinity give INVALID_INDEX (-1). A range with hi <= lo (or
 * non-finite ends) gives 0 below lo, 255 above hi and CENTER_INDEX otherwise.
 */
export function valueToIndex(v: number, lo: number, hi: number): number {
  if (!Number.isFinite(v)) return INVALID_INDEX;
  const scale = LUT_SIZE / (hi - lo);
  if (!(hi > lo) || !Number.isFinite(scale) || !Number.isFinite(lo)) return v < lo ? 0 : v > hi ? LUT_SIZE - 1 : CENTER_INDEX;
  const f = (v - lo) * scale;
  return f <= 0 ? 0 : f >= LUT_SIZE - 1 ? LUT_SIZE - 1 : Math.floor(f);
}

/** The map's color at t in 0..1 (clamped; NaN gives the t = 0 color), as [r, g, b] bytes. */
export function colorAt(name: ColormapName, t: number, backdrop: Backdrop = 'light'): [number, number, number] {
  const i = Number.isNaN(t) ? 0 : valueToIndex(Math.min(1, Math.max(0, t)), 0, 1);
  const table = lut(name, backdrop);
  return [table[i * 4]!, table[i * 4 + 1]!, table[i * 4 + 2]!];
}

/** 'rgb(r, g, b)' for CSS. */
export function cssRGB(c: RGB): string {
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}
