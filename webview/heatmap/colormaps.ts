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
// The tables are built once on first use and shared: treat what lut() returns as read-only.

export type ColormapName = 'coolwarm' | 'purple-orange' | 'viridis' | 'grayscale';
export type RGB = readonly [number, number, number];

/** Every colormap, in the order a picker should list them (the first is the default). */
export const COLORMAPS: readonly ColormapName[] = Object.freeze(['coolwarm', 'purple-orange', 'viridis', 'grayscale'] as const);

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

/** Evenly spaced control points (floats 0..1), linear interpolation at x = i/255, as matplotlib does. */
function fromControlPoints(points: readonly RGB[]): Uint8ClampedArray {
  const out = new Uint8ClampedArray(LUT_SIZE * 4);
  const segs = points.length - 1;
  for (let i = 0; i < LUT_SIZE; i++) {
    const pos = (i / (LUT_SIZE - 1)) * segs;
    const k = Math.min(segs - 1, Math.floor(pos));
    const f = pos - k;
    const a = points[k]!;
    const b = points[k + 1]!;
    for (let c = 0; c < 3; c++) out[i * 4 + c] = Math.round((a[c]! + (b[c]! - a[c]!) * f) * 255);
    out[i * 4 + 3] = 255;
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

const BUILDERS: Readonly<Record<ColormapName, () => Uint8ClampedArray>> = {
  coolwarm: () => fromControlPoints(COOLWARM_33),
  'purple-orange': () => fromControlPoints(PURPLE_ORANGE_11),
  viridis: () => fromHex(VIRIDIS_HEX),
  grayscale: grayscaleTable,
};

const tables = new Map<ColormapName, Uint8ClampedArray>();
const packed = new Map<ColormapName, Uint32Array>();

/** The map's 256-entry RGBA table (1024 bytes). Shared: do not modify. Throws on an unknown name. */
export function lut(name: ColormapName): Uint8ClampedArray {
  let t = tables.get(name);
  if (!t) {
    const build = BUILDERS[name];
    if (!build) throw new Error(`unknown colormap '${String(name)}'; known: ${COLORMAPS.join(', ')}`);
    t = build();
    tables.set(name, t);
  }
  return t;
}

/** True when a Uint32 written to memory lays out its bytes low byte first (every browser and Node we target). */
export const LITTLE_ENDIAN: boolean = new Uint8Array(new Uint32Array([0x0a0b0c0d]).buffer)[0] === 0x0d;

/** One RGBA pixel as the Uint32 that puts bytes r, g, b, a in that order in memory on this machine. */
export function packRGBA(r: number, g: number, b: number, a = 255): number {
  return LITTLE_ENDIAN ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
}

/** The table as 256 packed pixels (see packRGBA), for writing one Uint32 per cell. Shared: do not modify. */
export function lut32(name: ColormapName): Uint32Array {
  let p = packed.get(name);
  if (!p) {
    const t = lut(name);
    p = new Uint32Array(LUT_SIZE);
    for (let i = 0; i < LUT_SIZE; i++) p[i] = packRGBA(t[i * 4]!, t[i * 4 + 1]!, t[i * 4 + 2]!, t[i * 4 + 3]!);
    packed.set(name, p);
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
export function colorAt(name: ColormapName, t: number): [number, number, number] {
  const i = Number.isNaN(t) ? 0 : valueToIndex(Math.min(1, Math.max(0, t)), 0, 1);
  const table = lut(name);
  return [table[i * 4]!, table[i * 4 + 1]!, table[i * 4 + 2]!];
}

/** 'rgb(r, g, b)' for CSS. */
export function cssRGB(c: RGB): string {
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}
