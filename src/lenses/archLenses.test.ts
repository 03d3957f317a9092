// The lenses on issue 29's block options, on synthetic specs built directly: gemma's post-norms,
// (1 + w) RMSNorm and soft-caps (attention and final), a sliding window, a head size ≠ C / NH,
// and gpt_neox's parallel residual. The identities:
//   DLA: Σ parts + constant = the logit difference before the final soft-cap (z_a − z_b, read
//        off `output` and the head independently), and + remainder = head.logits' difference;
//        the remainder is what the cap changes (≈ 0 without one).
//   logit lens: the last layer's row is the model's own prediction.
//   patching: the metric on the clean run is head.logits' difference.
// `wired(spec)` is the plan with the options in place: planModel's own where it already computes
// them, else spliced here (post-norm stages, (1 + w), the final cap, the parallel sum), so the
// DLA's post-norm path is exercised whether or not plan.ts wires them yet.
import * as assert from 'node:assert/strict';
import { Engine } from '../core/engine';
import { forward } from '../core/forward';
import type { StageDef, StageOp } from '../core/graph';
import { normParams, PARAM, paramId, STAGE, stageId, unitId } from '../core/ids';
import { tsKernel } from '../core/kernel';
import { linearOp } from '../core/linear';
import type { Model } from '../core/model';
import { parallelResidualOp } from '../core/parallelResidual';
import { LAYER_PARAMS, shapeOf } from '../core/paramTable';
import type { Param } from '../core/params';
import { planModel } from '../core/plan';
import { rmsnormOp, type RmsNormArgs } from '../core/rmsnorm';
import { rng } from '../core/rng';
import { softcap, softcapForward } from '../core/softcap';
import type { LayerSpec, ModelSpec } from '../core/spec';
import { runOf, withTokens } from './cache';
import { directLogitAttribution } from './dla';
import { logitLensGrid, softmaxTop } from './logitLens';
import { runPatching } from './patching';

const T = 6;
const V = 11;

function gemmaSpec(): ModelSpec {
  const layer = (window: number | null): LayerSpec => ({
    attention: { NH: 2, KVH: 1, HS: 6, causal: true, rope: { theta: 10000 }, scale: 0.3, softcap: 3, window, qkNorm: { eps: 1e-6, onePlus: true } },
    ffn: { F: 10, activation: 'geglu_tanh' },
    postNorms: true,
  });
  return {
    T, C: 8, embedding: { kind: 'tokens', ids: [1, 4, 2, 9, 4, 2], positional: 'none' }, norm: 'pre', normKind: 'rmsnorm', eps: new Map(), residual: true,
    layers: [layer(2), layer(null), layer(3)], finalNorm: true, head: { V, temperature: 1, softcap: 4 }, lens: true, normOnePlus: true, embedScale: Math.fround(Math.sqrt(8)),
  };
}

function neoxSpec(): ModelSpec {
  const layer: LayerSpec = { attention: { NH: 2, KVH: 2, HS: 4, causal: true, rope: { theta: 10000, rotaryDims: 2 } }, ffn: { F: 12, activation: 'gelu' }, parallelResidual: true };
  return {
    T, C: 8, embedding: { kind: 'tokens', ids: [3, 1, 4, 1, 5, 9], positional: 'none' }, norm: 'pre', normKind: 'layernorm', eps: new Map(), residual: true,
    layers: [layer, layer], finalNorm: true, head: { V, temperature: 1 }, lens: true,
  };
}

// random weights for every param the spec's layers may read (out_in matrices)
function randomModel(spec: ModelSpec, seed: number): Model {
  const next = rng(seed);
  const params = new Map<string, Param>();
  const put = (id: string, shape: number[], scale = 0.5): void => {
    const data = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => (next() * 2 - 1) * scale);
    params.set(id, shape.length === 2 ? { data, shape, layout: 'out_in' } : { data, shape });
  };
  const rms = spec.normKind === 'rmsnorm';
  put(PARAM.embed, [V, spec.C], 1);
  spec.layers.forEach((L, l) => {
    const a = L.attention!;
    const dims = { C: spec.C, F: L.ffn!.F, Q: a.NH * a.HS, KV: a.KVH * a.HS, HS: a.HS, NH: a.NH };
    for (const row of LAYER_PARAMS) {
      if (row.role === 'units' || (rms && row.role === 'shift')) continue;
      if ((row.sub === 'ln1_post' || row.sub === 'ln2_post') && !L.postNorms) continue;
      if ((row.kind === PARAM.Wg || row.kind === PARAM.bg) && L.ffn!.activation !== 'geglu_tanh') continue;
      if ((row.kind === PARAM.qNorm || row.kind === PARAM.kNorm) && !a.qkNorm) continue;
      put(paramId(l, row.kind), shapeOf(row, dims), row.role === 'gain' ? 0.3 : 0.5);
    }
  });
  const f = normParams(STAGE.lnF);
  put(f.gamma, [spec.C], 0.3);
  if (!rms) put(f.beta, [spec.C], 0.3);
  put(PARAM.headW, [V, spec.C], 1);
  put(PARAM.headB, [V], 0.5);
  return { spec, params };
}

// the plan with the spec's post-norms, (1 + w) norms, final cap and parallel residual, spliced in
// where planModel does not yet compute them
function wired(spec: ModelSpec): StageDef[] {
  const plan = planModel(spec);
  const has = (kind: string): boolean => plan.some((s) => s.kind === kind);
  let out: StageDef[] = plan;
  if (spec.normOnePlus && !plan.some((s) => (s.args as Partial<RmsNormArgs>).onePlus)) {
    out = out.map((s) => (s.op === rmsnormOp ? { ...s, args: { ...(s.args as RmsNormArgs), onePlus: true } } : s));
  }
  if (spec.layers.some((L) => L.postNorms) && !has(STAGE.ln1Post)) out = splicePostNorms(spec, out);
  if (spec.layers.some((L) => L.parallelResidual) && has(STAGE.attnResidual)) out = spliceParallel(spec, out);
  const cap = spec.head?.softcap ?? null;
  if (cap !== null && plan.find((s) => s.id === STAGE.logits)?.op === linearOp) {
    const capped: StageOp<unknown> = { name: 'linear-softcap', run: (ctx, a) => {
      const r = linearOp.run(ctx, a as never);
      softcapForward(r.data, r.data, cap);
      return r;
    } };
    out = out.map((s) => (s.id === STAGE.logits || s.kind === STAGE.lens ? { ...s, op: capIn(s.op, cap) ?? capped } : s));
  }
  return out;
}

// a lens stage's own op, capped after it (the head's logits use the capped linear above)
function capIn(op: StageOp<unknown>, cap: number): StageOp<unknown> | null {
  if (op === linearOp) return null;
  return { name: `${op.name}-softcap`, run: (ctx, a) => {
    const r = op.run(ctx, a);
    softcapForward(r.data, r.data, cap);
    return r;
  } };
}

function splicePostNorms(spec: ModelSpec, plan: StageDef[]): StageDef[] {
  const out: StageDef[] = [];
  const renamed = new Map<string, string>();
  for (const s of plan) {
    const inputs = s.inputs.map((i) => renamed.get(i) ?? i);
    const args = s.kind === STAGE.attnResidual || s.kind === STAGE.ffnResidual ? { ...(s.args as { b: string }), b: inputs[1] } : s.args;
    out.push({ ...s, inputs, args });
    const L = spec.layers[s.layer];
    if (!L?.postNorms || (s.kind !== STAGE.attnOut && s.kind !== STAGE.down)) continue;
    const kind = s.kind === STAGE.attnOut ? STAGE.ln1Post : STAGE.ln2Post;
    const id = stageId(s.layer, kind);
    const { gamma } = normParams(id);
    const args2: RmsNormArgs = { x: s.id, gamma, beta: null, eps: 1e-6, C: spec.C, onePlus: spec.normOnePlus ?? false };
    out.push({ ...s, id, kind, op: rmsnormOp as StageOp<unknown>, args: args2, inputs: [s.id], params: [gamma], title: kind, show: {} });
    renamed.set(s.id, id);
  }
  return out;
}

function spliceParallel(spec: ModelSpec, plan: StageDef[]): StageDef[] {
  const out: StageDef[] = [];
  const input = new Map<number, string>();
  for (const s of plan) {
    const l = s.layer;
    if (s.kind === STAGE.ln1) input.set(l, s.inputs[0]);
    if (s.kind === STAGE.attnResidual) continue;
    if (s.kind === STAGE.ln2) {
      out.push({ ...s, inputs: [input.get(l)!], args: { ...(s.args as object), x: input.get(l)! } });
    } else if (s.kind === STAGE.ffnResidual) {
      const attn = stageId(l, STAGE.attnOut);
      const mlp = stageId(l, STAGE.down);
      out.push({ ...s, op: parallelResidualOp as StageOp<unknown>, args: { x: input.get(l)!, attn, mlp, C: spec.C }, inputs: [input.get(l)!, attn, mlp] });
    } else out.push(s);
  }
  return out;
}

// z_a − z_b: the head's linear layer on `output`, before any cap, in float64
function preCapDiff(model: Model, output: Float32Array, pos: number, a: number, b: number | null): number {
  const { C } = model.spec;
  const W = model.params.get(PARAM.headW)!.data!;
  const bU = model.params.get(PARAM.headB)!.data!;
  const z = (w: number): number => {
    let s = bU[w];
    for (let c = 0; c < C; c++) s += output[pos * C + c] * W[w * C + c];
    return s;
  };
  return z(a) - (b === null ? 0 : z(b));
}

describe('lenses on post-norms, soft-caps, sliding windows and parallel residual (synthetic specs)', () => {
  for (const [name, make] of [['gemma-like', gemmaSpec], ['neox-like', neoxSpec]] as const) {
    it(`${name}: DLA parts + constant = z_a − z_b exactly; + remainder = head.logits' difference`, () => {
      const model = randomModel(make(), 7);
      const plan = wired(model.spec);
      const run = runOf(model, forward(model, tsKernel, undefined, plan));
      const cap = model.spec.head!.softcap ?? null;
      for (const alt of [null, 'second'] as const) {
        for (let pos = 0; pos < T; pos++) {
          const d = directLogitAttribution(run, { pos, alt, plan });
          const sum = d.parts.reduce((s, p) => s + p.value, d.constant);
          const scale = d.parts.reduce((s, p) => s + Math.abs(p.value), Math.abs(d.constant)) + 1;
          const z = preCapDiff(model, run.stage(STAGE.output), pos, d.target, d.alt);
          assert.ok(Math.abs(sum - z) <= 2e-6 * scale, `${name} pos ${pos} alt ${alt}: Σ parts ${sum} vs z_a − z_b ${z}`);
          assert.equal(sum + d.remainder, d.logitDiff, 'parts + constant + remainder = the logit difference');
          const want = d.logitDiff - z;
          assert.ok(Math.abs(d.remainder - want) <= 2e-6 * scale, `remainder ${d.remainder} vs ${want}`);
          if (cap === null) assert.ok(Math.abs(d.remainder) <= 2e-6 * scale, `no cap: the remainder is rounding (${d.remainder})`);
          assert.ok(d.parts.some((p) => p.kind === 'head' && Math.abs(p.value) > 1e-3), 'the heads are not all zero');
          assert.match(d.note, cap === null ? /rounding/ : /soft-cap .*c = 4/);
        }
      }
      if (cap !== null) {
        // (a cap of 4 on logits of this size bends them: the remainder is not rounding)
        const d = directLogitAttribution(run, { alt: 'second', plan });
        assert.ok(Math.abs(d.remainder) > 1e-3, `the cap changes the difference: ${d.remainder}`);
      }
    });

    it(`${name}: the head grid is the heads' parts; the note names the post-norms where the plan has them`, () => {
      const model = randomModel(make(), 8);
      const plan = wired(model.spec);
      const run = runOf(model, forward(model, tsKernel, undefined, plan));
      const d = directLogitAttribution(run, { plan });
      d.heads.forEach((row, l) => row.forEach((v, h) => assert.equal(d.parts.find((p) => p.name === unitId('head', l, h))!.value, v)));
      assert.ok(d.heads.flat().every(Number.isFinite));
      if (model.spec.layers[0].postNorms) assert.match(d.note, /ln1_post/);
    });

    it(`${name}: the last lens layer is the prediction; patching's clean metric is head.logits' difference`, () => {
      // (on planModel's own plan: the lens stages' norm and cap are core's, which wired() cannot splice)
      const model = randomModel(make(), 9);
      const run = runOf(model, forward(model, tsKernel));
      const g = logitLensGrid(run, 3);
      const logits = run.stage(STAGE.logits);
      for (let t = 0; t < T; t++) assert.deepEqual(g.cells[g.L - 1][t], softmaxTop(logits.subarray(t * V, (t + 1) * V), 3, null), `token ${t}`);
      // (patching runs the engine on planModel's plan too: both meaningful for these options once plan.ts computes them)
      const ids = (model.spec.embedding as { readonly ids: readonly number[] }).ids;
      const corrupted = withTokens(model, ids.map((id, t) => (t === 2 ? (id + 1) % V : id)));
      const p = runPatching(new Engine(tsKernel), model, corrupted, { alt: null, views: 'both' });
      // the metric is the capped logit, c · tanh(z / c), z off `output` (what head.logits is by the spec:
      // the plan's own logits once plan.ts caps them; without a cap, they are already)
      const cap = model.spec.head!.softcap ?? null;
      const z = preCapDiff(model, run.stage(STAGE.output), T - 1, p.target, null);
      assert.ok(Math.abs(p.ldClean - (cap === null ? z : softcap(z, cap))) <= 1e-5, `ldClean ${p.ldClean} vs the capped logit of ${z}`);
      if (cap === null) assert.ok(Math.abs(p.ldClean - logits[(T - 1) * V + p.target]) <= 1e-5, `ldClean ${p.ldClean} vs head.logits`);
      if (cap !== null) assert.ok(Math.abs(p.ldClean - z) > 1e-4, 'the cap bends the metric');
      assert.deepEqual(p.resid![0].map((x, t) => (t === 2 ? Math.round(x * 1e6) / 1e6 : x)), [0, 0, 1, 0, 0, 0]);
      assert.equal(p.heads!.length, model.spec.layers.length);
    });
  }

  it('the soft-cap the remainder names: c · tanh(z / c)', () => {
    assert.equal(softcap(0, 4), 0);
    assert.ok(Math.abs(softcap(40, 4) - 4) < 1e-6);
  });
});
