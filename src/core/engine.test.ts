// The engine after random edits, on random models of every architecture the block graph knows
// (vectors or token ids, sinusoidal or learned positions, no/pre/post norm, LayerNorm or RMSNorm,
// grouped-query attention with or without RoPE, every activation, unit scales, both layouts, a
// head, the logit lens): every stage bit for bit equal to the reference forward of the same model.
import * as assert from 'node:assert/strict';
import { ACTIVATIONS, isGated } from './activation';
import { tsKernel, type MatmulKernel } from './kernel';
import { forward } from './forward';
import type { Model } from './model';
import type { Cols, Param } from './params';
import type { LayerSpec, ModelSpec } from './spec';
import { Engine } from './engine';
import type { Stage } from './stages';
import { createWasmKernel } from './wasm';
import { rng } from './rng';

function randomModel(r: () => number): Model {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const T = 2 + Math.floor(r() * 4);
  const NH = pick([1, 2, 4]);
  const KVH = pick([1, 2, 4].filter((k) => NH % k === 0));
  const HS = pick([2, 4]);
  const C = NH * HS;
  const tokens = r() < 0.5;
  const V = 5 + Math.floor(r() * 6);
  const normKind = pick(['layernorm', 'rmsnorm'] as const);
  const layers: LayerSpec[] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({
    attention: r() < 0.8 ? { NH, KVH, HS, causal: r() < 0.6, rope: r() < 0.5 ? { theta: pick([10000, 500000]) } : null } : null,
    ffn: r() < 0.85 ? { F: pick([4, 6, 8]), activation: pick(ACTIVATIONS) } : null,
  }));
  const head = r() < 0.7 ? { V, temperature: pick([1, 0.7]) } : null;
  const spec: ModelSpec = {
    T, C, normKind, eps: new Map(), residual: r() < 0.7, norm: pick(['none', 'pre', 'post'] as const), finalNorm: r() < 0.5,
    embedding: tokens ? { kind: 'tokens', ids: Array.from({ length: T }, () => Math.floor(r() * V)), positional: r() < 0.5 ? 'learned' : 'none' } : { kind: 'vectors', positional: r() < 0.3 ? 'sinusoidal' : 'none' },
    layers, head, lens: head !== null && r() < 0.5,
  };
  const params = new Map<string, Param>();
  const num = (): number => Math.fround(r() * 2 - 1);
  const vec = (id: string, n: number, p = 0.7): void => { if (r() < p) params.set(id, { data: Float32Array.from({ length: n }, num), shape: [n] }); };
  const mat = (id: string, out: number, inp: number, p = 1): void => {
    if (r() >= p) return;
    const layout = r() < 0.6 ? 'out_in' : 'in_out';
    params.set(id, { data: Float32Array.from({ length: out * inp }, num), shape: layout === 'out_in' ? [out, inp] : [inp, out], layout });
  };
  if (tokens) { mat('embed', V, C); params.set('embed', { ...params.get('embed')!, layout: 'out_in', shape: [V, C] }); mat('pos', T, C); }
  else mat('input', T, C);
  layers.forEach((l, i) => {
    const p = `layers.${i}.`;
    for (const ln of ['ln1', 'ln2']) { vec(`${p}${ln}.gamma`, C, 0.5); vec(`${p}${ln}.beta`, C, 0.5); }
    if (l.attention) {
      mat(`${p}attn.Wq`, C, C, NH === KVH ? 0.8 : 1); vec(`${p}attn.bq`, C);
      mat(`${p}attn.Wk`, KVH * HS, C, NH === KVH ? 0.8 : 1); vec(`${p}attn.bk`, KVH * HS);
      mat(`${p}attn.Wv`, KVH * HS, C, NH === KVH ? 0.8 : 1); vec(`${p}attn.bv`, KVH * HS);
      mat(`${p}attn.Wo`, C, C); vec(`${p}attn.bo`, C);
      vec(`${p}attn.units`, NH, 0.3);
    }
    if (l.ffn) {
      const F = l.ffn.F;
      mat(`${p}ffn.W1`, F, C); vec(`${p}ffn.b1`, F);
      if (isGated(l.ffn.activation)) { mat(`${p}ffn.Wg`, F, C); vec(`${p}ffn.bg`, F); }
      mat(`${p}ffn.W2`, C, F); vec(`${p}ffn.b2`, C);
      vec(`${p}ffn.units`, F, 0.3);
    }
  });
  vec('ln_f.gamma', C, 0.5); vec('ln_f.beta', C, 0.5);
  if (head) {
    if (tokens && r() < 0.5) params.set('head.W', params.get('embed')!); // tied
    else { mat('head.W', V, C); params.set('head.W', params.get('head.W')!); }
    vec('head.b', V);
  }
  return { spec, params };
}

function sameBits(a: readonly Stage[], b: readonly Stage[], what: string): void {
  assert.deepEqual(a.map((s) => s.id), b.map((s) => s.id), what);
  a.forEach((s, i) => {
    const x = new Uint32Array(s.data.buffer, s.data.byteOffset, s.data.length);
    const y = new Uint32Array(b[i].data.buffer, b[i].data.byteOffset, b[i].data.length);
    for (let k = 0; k < x.length; k++) {
      if (x[k] !== y[k] && !(Number.isNaN(s.data[k]) && Number.isNaN(b[i].data[k]))) assert.fail(`${what}: ${s.id}[${k}] = ${s.data[k]}, the reference gives ${b[i].data[k]}`);
    }
  });
}

/** A random change of `model`: a param edited in place (its rows in `edits`), replaced, or removed, or the head's temperature; null if the one drawn cannot be removed. */
function mutate(r: () => number, model: Model): { model: Model; edits: Map<string, Cols>; id: string } | null {
  const ids = [...model.params.keys()];
  const id = ids[Math.floor(r() * ids.length)];
  const p = model.params.get(id)!;
  const edits = new Map<string, Cols>();
  const k = r();
  if (k < 0.6) {
    // in place, as a row typed over in the text: some rows (matrix) or elements (vector)
    const rows = p.shape.length === 2 ? p.shape[0] : p.shape[0];
    const cols = p.shape.length === 2 ? p.shape[1] : 1;
    const changed = new Set<number>();
    for (let e = 0; e < 1 + Math.floor(r() * 2); e++) {
      const row = Math.floor(r() * rows);
      changed.add(row);
      for (let c = 0; c < cols; c++) if (r() < 0.5) p.data![row * cols + c] = Math.fround(r() * 4 - 2);
    }
    if (p.shape.length === 1) for (const j of changed) p.data![j] = Math.fround(r() * 4 - 2);
    edits.set(id, changed);
    // a param shared by two ids (a tied head) is edited under both
    for (const [other, q] of model.params) if (q === p && other !== id) edits.set(other, changed);
    return { model, edits, id };
  }
  if (k < 0.85) {
    // a new object (an override changed, a file read again)
    const params = new Map(model.params);
    const data = p.data!.slice();
    data[Math.floor(r() * data.length)] = Math.fround(r() * 4 - 2);
    const fresh = { shape: p.shape, layout: p.layout, data };
    for (const [other, q] of model.params) if (q === p) params.set(other, fresh);
    return { model: { spec: model.spec, params }, edits, id };
  }
  if (k < 0.95 && model.spec.head) {
    return { model: { spec: { ...model.spec, head: { ...model.spec.head, temperature: model.spec.head.temperature === 1 ? 0.5 : 1 } }, params: model.params }, edits, id };
  }
  const params = new Map(model.params);
  params.delete(id);
  if (id === 'input' || id === 'embed' || id === 'head.W' || id === 'pos' || /ffn\.(W1|W2|Wg)$/.test(id) || (/attn\.W[kv]$/.test(id) && model.spec.layers.some((l) => l.attention && l.attention.KVH !== l.attention.NH))) return null;
  return { model: { spec: model.spec, params }, edits, id };
}

const kernels: Array<[string, MatmulKernel]> = [['ts', tsKernel]];
const wasm = createWasmKernel();
if (wasm) kernels.push(['wasm', wasm]);

describe('Engine: incremental runs equal the reference forward', () => {
  for (const [kname, kernel] of kernels) {
    it(`random models, random edits (${kname})`, () => {
      let kept = 0;
      let total = 0;
      for (let m = 0; m < 60; m++) {
        const r = rng(1000 + m);
        let model = randomModel(r);
        const engine = new Engine(kernel);
        sameBits(engine.run(model), forward(model, kernel), `model ${m}, first run`);
        for (let step = 0; step < 12; step++) {
          const next = mutate(r, model);
          if (!next) continue;
          const { edits, id } = next;
          model = next.model;
          const got = engine.run(model, edits);
          kept += got.filter((s) => s.kept).length;
          total += got.length;
          sameBits(got, forward(model, kernel), `model ${m}, step ${step} (${id})`);
        }
      }
      assert.ok(kept > total / 5, `only ${kept} of ${total} stages were kept: the incremental paths were barely exercised`);
    });
  }
});

// A walk stopped between two stages (a newer edit came): what it did not reach is forgotten, and
// the next run, given only the edits made since, is again the reference forward, bit for bit.
describe('Engine: a run stopped between two stages', () => {
  for (const [kname, kernel] of kernels) {
    it(`leaves the next run exact, whatever stage it stopped at (${kname})`, () => {
      let stopped = 0;
      let kept = 0;
      let keptUnreached = 0;
      for (let m = 0; m < 40; m++) {
        const r = rng(5000 + m);
        let model = randomModel(r);
        const engine = new Engine(kernel);
        engine.run(model);
        for (let step = 0; step < 10; step++) {
          const first = mutate(r, model);
          if (!first) continue;
          model = first.model;
          // the run of the first edit, stopped after `at` stages (one or more, as a run is)
          const emitted: string[] = [];
          const walk = engine.walk(model, first.edits, (s) => emitted.push(s.id));
          const plan = engine.planOf(model.spec).length;
          const at = 1 + Math.floor(r() * plan);
          for (let i = 0; i < at; i++) assert.equal(walk.next().done, false);
          assert.equal(emitted.length, at, 'a stage is emitted as it is computed, and no further');
          // stopped (return()), or left as it is for the next run to find
          const returned = r() < 0.7;
          if (returned) assert.equal(walk.return([]).done, true);
          if (at < plan) stopped++;
          // (a walk returned after its last stage is a whole run)
          if (at < plan || !returned) assert.throws(() => engine.patched(model, { id: emitted[0], data: new Float32Array(0), firstRow: 0 }, emitted[0]), /run this model first/);
          const second = mutate(r, model);
          if (!second) continue;
          model = second.model;
          const got = engine.run(model, second.edits);
          kept += got.filter((s) => s.kept).length;
          keptUnreached += got.filter((s) => s.kept && !emitted.includes(s.id)).length;
          sameBits(got, forward(model, kernel), `model ${m}, step ${step}: stopped after ${at} of ${plan} stages (${first.id}), then ${second.id}`);
          assert.equal(engine.walking, false);
        }
      }
      assert.ok(stopped > 100, `only ${stopped} runs were stopped before their end`);
      assert.ok(kept > 0, 'the stages before the stop were kept by the next run');
      assert.ok(keptUnreached > 0, 'stages after the stop, which neither edit touched, were kept too');
    });
  }

  it('a burst: the run of each edit stopped after its first stage; the last run keeps every stage before what the edits touched', () => {
    for (let m = 0; m < 30; m++) {
      const r = rng(9000 + m);
      const model0 = randomModel(r);
      if (!model0.spec.head) continue;
      const engine = new Engine(tsKernel);
      engine.run(model0);
      // the head's temperature changed back and forth (what a typed burst in one key does): only
      // the stages that read it differ, and each walk but the last stops after its first stage
      let model = model0;
      for (let k = 0; k < 3; k++) {
        model = { spec: { ...model.spec, head: { ...model.spec.head!, temperature: model.spec.head!.temperature === 1 ? 0.5 : 1 } }, params: model.params };
        const w = engine.walk(model);
        w.next();
        w.return([]);
      }
      const got = engine.run(model);
      sameBits(got, forward(model, tsKernel), `model ${m}`);
      const plan = engine.planOf(model.spec);
      const firstReader = plan.findIndex((d) => JSON.stringify(d.args).includes('temperature'));
      const before = got.slice(0, firstReader < 0 ? got.length : firstReader);
      assert.deepEqual(before.filter((s) => !s.kept).map((s) => s.id), [], `model ${m}: stages before the first that reads the temperature came anew`);
    }
  });

  it('a stopped walk cannot be resumed once another has begun', () => {
    const r = rng(77);
    const model = randomModel(r);
    const engine = new Engine(tsKernel);
    const a = engine.walk(model);
    a.next();
    const b = engine.walk(model);
    b.next();
    assert.throws(() => a.next(), /another run began/);
    for (let x = b.next(); !x.done; x = b.next()) { /* (to its end) */ }
    sameBits(engine.run(model), forward(model, tsKernel), 'after the two walks');
  });
});
