// From the rows an edit changed to what the forward engine must recompute, refreshing the packed
// copies of edited weight rows on the way.
import type { ForwardEngine, LayerDirty } from '../core/engine';
import type { ModelWeights } from '../core/weights';
import type { RowChange } from '../model/incremental';

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

/** `layers.2.ffn.W1` → layer 2, sublayer `ffn`, name `W1`; `head.b` → layer -1, `head`, `b`. */
function parseParam(id: string): { layer: number; sub: string; name: string } | null {
  const m = /^(?:layers\.(\d+)\.)?(input|head|ln_f|ffn|attn|ln1|ln2)(?:\.(\w+))?$/.exec(id);
  return m ? { layer: m[1] === undefined ? -1 : Number(m[1]), sub: m[2], name: m[3] ?? '' } : null;
}

/**
 * Adds the effect of `rows` to `d`, and tells the engine which weight rows changed. Each row
 * names its parameter and row as the reader bound them (ReadResult.rows).
 */
export function markRows(d: MutableDirty, rows: readonly RowChange[], m: ModelWeights, engine: ForwardEngine): void {
  for (const r of rows) {
    const p = r.binding && parseParam(r.binding.param);
    if (!p || p.sub === 'input') {
      d.all = true;
      continue;
    }
    const row = r.binding!.row;
    if (p.sub === 'head') {
      if (p.name === 'W' && m.head) {
        engine.weightRowsChanged(m.head.W, [row]);
        d.head = 'all';
      } else d.head = d.head === 'all' ? 'all' : 'bias';
      continue;
    }
    if (p.sub === 'ln_f') {
      d.lnF = true;
      continue;
    }
    const layer = m.layers[p.layer];
    if (!layer) {
      d.all = true;
      continue;
    }
    const L = d.layers.get(p.layer) ?? {};
    d.layers.set(p.layer, L);
    if (p.sub === 'ln1') L.attn = true;
    else if (p.sub === 'ln2') L.ln2 = true;
    else if (p.sub === 'attn') {
      const W = p.name.startsWith('W') ? layer.attention?.[p.name as 'Wq' | 'Wk' | 'Wv' | 'Wo'] : null;
      if (W) engine.weightRowsChanged(W, [row]);
      L.attn = true;
    } else if (p.name === 'b1') L.upBias = new Set([...(L.upBias ?? []), ...r.changed]);
    else if (p.name === 'bg') L.gateBias = new Set([...(L.gateBias ?? []), ...r.changed]);
    else if (p.name === 'b2') L.down = L.down === 'all' ? 'all' : 'bias';
    else {
      const W = layer.ffn?.[p.name as 'W1' | 'Wg' | 'W2'];
      if (!W) {
        d.all = true;
        continue;
      }
      engine.weightRowsChanged(W, [row]);
      // out_in: the row is one output unit (a neuron for W1/Wg); in_out: it feeds all of them
      const unit = m.layout === 'out_in' ? [row] : null;
      if (p.name === 'W1') L.up = unit ? addTo(L.up, unit) : 'all';
      else if (p.name === 'Wg') L.gate = unit ? addTo(L.gate, unit) : 'all';
      else L.down = 'all';
    }
  }
}
