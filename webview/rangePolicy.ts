// Which numbers a heatmap's colors span: its own (symmetric around zero for a diverging map),
// clipped at a percentile of |value|, or shared by every stage of its kind so layers compare.
import type { PanelSettings } from '../src/protocol/panel';
import { autoRange, isDiverging, mergeRanges, type ColormapName } from './heatmap';
import { attentionMask, repeatMask } from './views/attentionMask';

/** A stage's numbers as the panel holds them, for the shared range of its kind. */
export interface RangeSource {
  readonly kind: string;
  readonly masked: boolean;
  /** A sliding layer's window (its mask hides the keys before it too). */
  readonly window?: number;
  readonly data: Float32Array | null;
}

export function rangeFor(settings: PanelSettings | null, colormap: ColormapName, data: Float32Array, mask: Uint8Array | undefined, kind: string, all: Iterable<RangeSource>, T: number): [number, number] {
  const opts = (m: Uint8Array | undefined): Parameters<typeof autoRange>[2] => ({
    mode: isDiverging(colormap) ? 'symmetric' : 'minmax',
    ...(settings?.range === 'percentile' ? { clipPercentile: settings.percentile } : {}),
    mask: m,
  });
  if (settings?.range !== 'perStageKind') return autoRange(data, colormap, opts(mask));
  const ranges: Array<[number, number]> = [];
  for (const s of all) {
    if (s.kind !== kind || !s.data) continue;
    // (a whole attention stage: every head's cells, the mask once per head)
    ranges.push(autoRange(s.data, colormap, opts(s.masked || s.window !== undefined ? repeatMask(attentionMask(T, s.window), Math.max(1, Math.round(s.data.length / (T * T)))) : undefined)));
  }
  return ranges.length ? mergeRanges(ranges) : autoRange(data, colormap, opts(mask));
}
