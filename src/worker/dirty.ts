// From the rows an edit changed to what the forward engine must recompute, refreshing the packed
// copies of edited weight rows on the way.
import type { ForwardEngine, LayerDirty } from '../core/engine';
import type { ModelWeights } from '../core/weights';
import type { RowChange } from '../model/incremental';
import { roleOf } from '../model/roles';

type MutableLayerDirty = { -readonly [K in keyof LayerDirty]: LayerDirty[K] };
export interface MutableDirty { all: boolean; layers: Map<number, MutableLayerDirty>; lnF: boolean; head: 'all' | 'bias' | null }

export function noChange(): MutableDirty {
  return { all: false, layers: new Map(), lnF: false, head: null };
}

export function everything(): MutableDirty {
  return { all: true, layers: new Map(), lnF: false, head: null };
}

function addTo(set: LayerDirty['up'], items: Iterable<number>): LayerDirty['up'] {
  if (set === 'all') return 'all';
  return new Set([...(set ?? []), ...items]);
}

/** Adds the effect of `rows` to `d`, and tells the engine which weight rows changed. */
export function markRows(d: MutableDirty, rows: readonly RowChange[], m: ModelWeights, usesLayers: boolean, engine: ForwardEngine): void {
  for (const r of rows) {
    const role = roleOf([...r.path, r.changed[0] ?? 0], m.layout, usesLayers);
    const layer = role && 'layer' in role ? role.layer : -1;
    const L = layer >= 0 ? (d.layers.get(layer) ?? {}) : {};
    if (layer >= 0) d.layers.set(layer, L);
    const weights = layer >= 0 ? m.layers[layer] : undefined;
    if (!role) {
      d.all = true;
    } else if (role.kind === 'input') {
      d.all = true;
    } else if (role.kind === 'weight') {
      const W = role.param === 'W' ? m.head?.W
        : role.param === 'W1' || role.param === 'Wg' || role.param === 'W2' ? weights?.ffn?.[role.param]
          : weights?.attention?.[role.param];
      if (!W) {
        d.all = true;
        continue;
      }
      engine.weightRowsChanged(W, [role.row]);
      // out_in: the row is one output unit (a neuron for W1/Wg); in_out: it feeds all of them
      const unit = m.layout === 'out_in' ? [role.row] : null;
      if (role.param === 'W1') L.up = unit ? addTo(L.up, unit) : 'all';
      else if (role.param === 'Wg') L.gate = unit ? addTo(L.gate, unit) : 'all';
      else if (role.param === 'W2') L.down = 'all';
      else if (role.param === 'W') d.head = 'all';
      else L.attn = true;
    } else if (role.kind === 'bias') {
      if (role.param === 'b1') L.upBias = new Set([...(L.upBias ?? []), ...r.changed]);
      else if (role.param === 'bg') L.gateBias = new Set([...(L.gateBias ?? []), ...r.changed]);
      else if (role.param === 'b2') L.down = L.down === 'all' ? 'all' : 'bias';
      else if (role.param === 'b') d.head = d.head === 'all' ? 'all' : 'bias';
      else L.attn = true;
    } else if (role.kind === 'norm') {
      if (role.which === 'ln_f') d.lnF = true;
      else if (role.which === 'ln1') L.attn = true;
      else L.ln2 = true;
    } else {
      d.all = true;
    }
  }
}
