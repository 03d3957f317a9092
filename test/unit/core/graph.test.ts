// The block graph's forward against the earlier hand-written one (temporary, during the move).
import * as assert from 'node:assert/strict';
import { modelForward } from '../../../src/core/forward';
import { tsKernel } from '../../../src/core/kernel';
import { forward, type Model } from '../../../src/core/model';
import type { Param } from '../../../src/core/params';
import type { ModelWeights } from '../../../src/core/weights';
import { Engine } from '../../../src/core/stageEngine';
import { readModel } from '../../../src/model/read';
import { goldenCases } from '../../helpers/fixtures';

function modelOf(w: ModelWeights): Model {
  const params = new Map<string, Param>();
  const mat = (id: string, data: Float32Array | null, out: number, inp: number): void => {
    if (data) params.set(id, { data, shape: w.layout === 'out_in' ? [out, inp] : [inp, out], layout: w.layout });
  };
  const vec = (id: string, data: Float32Array | null): void => {
    if (data) params.set(id, { data, shape: [data.length] });
  };
  params.set('input', { data: w.input, shape: [w.T, w.C] });
  const eps = new Map<string, number>();
  w.layers.forEach((l, i) => {
    const p = `layers.${i}.`;
    const a = l.attention;
    if (a) for (const k of ['q', 'k', 'v', 'o'] as const) {
      mat(`${p}attn.W${k}`, a[`W${k}`], w.C, w.C);
      vec(`${p}attn.b${k}`, a[`b${k}`]);
    }
    const f = l.ffn;
    if (f) {
      mat(`${p}ffn.W1`, f.W1, f.F, w.C); vec(`${p}ffn.b1`, f.b1);
      mat(`${p}ffn.Wg`, f.Wg, f.F, w.C); vec(`${p}ffn.bg`, f.bg);
      mat(`${p}ffn.W2`, f.W2, w.C, f.F); vec(`${p}ffn.b2`, f.b2);
    }
    for (const ln of ['ln1', 'ln2'] as const) {
      vec(`${p}${ln}.gamma`, l[ln].gamma); vec(`${p}${ln}.beta`, l[ln].beta); eps.set(`${p}${ln}`, l[ln].eps);
    }
  });
  vec('ln_f.gamma', w.lnF.gamma); vec('ln_f.beta', w.lnF.beta); eps.set('ln_f', w.lnF.eps);
  if (w.head) { mat('head.W', w.head.W, w.head.V, w.C); vec('head.b', w.head.b); }
  return {
    spec: {
      T: w.T, C: w.C, embedding: { kind: 'vectors', positional: w.positional }, norm: w.norm, normKind: 'layernorm', eps,
      residual: w.residual, finalNorm: w.finalNorm, head: w.head && { V: w.head.V, temperature: w.head.temperature }, lens: false,
      layers: w.layers.map((l) => ({
        attention: l.attention && { NH: l.attention.heads, KVH: l.attention.heads, HS: w.C / l.attention.heads, causal: l.attention.causal, rope: null },
        ffn: l.ffn && { F: l.ffn.F, activation: l.ffn.activation },
      })),
    },
    params,
  };
}

describe('block graph (during the move)', () => {
  it('equals the hand-written forward bit for bit on every reference case', () => {
    for (const c of goldenCases()) {
      const w = readModel(JSON.stringify(c.model), 'g.ffn.json').model!.weights;
      const a = modelForward(w, tsKernel);
      const b = forward(modelOf(w), tsKernel);
      const e = new Engine(tsKernel).run(modelOf(w));
      assert.deepEqual(b.map((s) => s.id), a.map((s) => s.id), c.name);
      a.forEach((s, i) => {
        assert.deepEqual(b[i].shape, s.shape, `${c.name} ${s.id}`);
        assert.deepEqual(Array.from(b[i].data), Array.from(s.data), `${c.name} ${s.id}`);
        assert.deepEqual(Array.from(e[i].data), Array.from(s.data), `${c.name} ${s.id} (engine)`);
      });
    }
  });
});
