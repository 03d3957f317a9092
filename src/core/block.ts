// One transformer block, as a flat list of the stages the panel draws.
//   norm "none":  h = [x +] attn(x);          y = [h +] ffn(h)
//   norm "post":  h = LN1([x +] attn(x));     y = LN2([h +] ffn(h))      (Attention Is All You Need)
//   norm "pre":   h = [x +] attn(LN1(x));     y = [h +] ffn(LN2(h))      (GPT-2)
// A layer may have only attention or only an FFN; its stages are then only those.

import { activationForward, isGated } from './activation';
import { attentionForward } from './attention';
import type { MatmulKernel } from './kernel';
import { layernormForward } from './layernorm';
import { linearForward, type Layout } from './linear';
import { residualForward } from './residual';
import type { StageSink } from './stages';
import type { FfnWeights, LayerNormWeights, LayerWeights, Norm } from './weights';

export interface BlockConfig {
  readonly T: number;
  readonly C: number;
  readonly layout: Layout;
  readonly residual: boolean;
  readonly norm: Norm;
}

function layernorm(x: Float32Array, ln: LayerNormWeights, T: number, C: number): Float32Array {
  const out = new Float32Array(T * C);
  layernormForward(out, x, ln.gamma, ln.beta, ln.eps, T, C);
  return out;
}

// inp (T,C) -> up, gate, act (T,F), down (T,C)
export function ffnForward(
  inp: Float32Array, f: FfnWeights, T: number, C: number, layout: Layout, kernel: MatmulKernel,
): { up: Float32Array; gate: Float32Array | null; act: Float32Array; down: Float32Array } {
  const F = f.F;
  const up = new Float32Array(T * F);
  linearForward(up, inp, f.W1, f.b1, T, C, F, layout, kernel);
  let gate: Float32Array | null = null;
  if (isGated(f.activation)) {
    gate = new Float32Array(T * F);
    linearForward(gate, inp, f.Wg, f.bg, T, C, F, layout, kernel);
  }
  const act = new Float32Array(T * F);
  activationForward(act, up, gate, f.activation, T * F);
  const down = new Float32Array(T * C);
  linearForward(down, act, f.W2, f.b2, T, F, C, layout, kernel);
  return { up, gate, act, down };
}

// x (T,C) -> layer output (T,C); every stage goes to `emit` as it is computed
export function blockForward(
  x: Float32Array, layer: LayerWeights, i: number, cfg: BlockConfig, kernel: MatmulKernel, emit: StageSink,
): Float32Array {
  const { T, C, layout, residual, norm } = cfg;
  const p = `layers.${i}.`;
  const td = [T, C];
  let h = x;
  // A sublayer's end: stream + its output (residual), then LayerNorm (post-LN).
  const sublayerEnd = (stream: Float32Array, y: Float32Array, residualId: string, lnId: string, ln: LayerNormWeights): Float32Array => {
    if (residual) {
      const r = new Float32Array(T * C);
      residualForward(r, stream, y, T * C);
      emit({ id: residualId, shape: td, data: r });
      y = r;
    }
    if (norm === 'post') {
      y = layernorm(y, ln, T, C);
      emit({ id: lnId, shape: td, data: y });
    }
    return y;
  };

  if (layer.attention) {
    const a = layer.attention;
    const NH = a.heads;
    const HS = C / NH;
    let inp = h;
    if (norm === 'pre') {
      inp = layernorm(h, layer.ln1, T, C);
      emit({ id: p + 'ln1', shape: td, data: inp });
    }
    const s = attentionForward(inp, a, T, C, layout, kernel);
    emit({ id: p + 'attn.q', shape: [NH, T, HS], data: s.q });
    emit({ id: p + 'attn.k', shape: [NH, T, HS], data: s.k });
    emit({ id: p + 'attn.v', shape: [NH, T, HS], data: s.v });
    emit({ id: p + 'attn.scores', shape: [NH, T, T], data: s.scores });
    emit({ id: p + 'attn.weights', shape: [NH, T, T], data: s.weights });
    emit({ id: p + 'attn.context', shape: td, data: s.context });
    emit({ id: p + 'attn.out', shape: td, data: s.out });
    h = sublayerEnd(h, s.out, p + 'attn.residual', p + 'ln1', layer.ln1);
  }

  if (layer.ffn) {
    const f = layer.ffn;
    let inp = h;
    if (norm === 'pre') {
      inp = layernorm(h, layer.ln2, T, C);
      emit({ id: p + 'ln2', shape: td, data: inp });
    }
    const s = ffnForward(inp, f, T, C, layout, kernel);
    emit({ id: p + 'ffn.up', shape: [T, f.F], data: s.up });
    if (s.gate) emit({ id: p + 'ffn.gate', shape: [T, f.F], data: s.gate });
    emit({ id: p + 'ffn.act', shape: [T, f.F], data: s.act });
    emit({ id: p + 'ffn.down', shape: td, data: s.down });
    h = sublayerEnd(h, s.down, p + 'ffn.residual', p + 'ln2', layer.ln2);
  }

  emit({ id: p + 'out', shape: td, data: h });
  return h;
}
