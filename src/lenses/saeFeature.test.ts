// The SAE feature lens: the words a decoder direction promotes (W_dec[f] · W_U) on a case worked
// by hand and against a plain argsort on the reference SAEs; the attribution's identity (every
// feature + b_dec + error + the rest = the logit difference) on the SAE cases, with the rest
// checked against the direct logit attribution's own parts of what lies outside the SAE's site.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointResolver } from '../checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../checkpoint/store';
import { forward } from '../core/forward';
import { PARAM, parseStageId, SAE_PARAM, saeParamId, STAGE } from '../core/ids';
import { tsKernel } from '../core/kernel';
import type { Model } from '../core/model';
import { floatData, type Param } from '../core/params';
import { createWasmKernel } from '../core/wasm';
import { readModel } from '../model/read';
import { REPO } from '../../test/helpers/fixtures';
import { runOf, type Run } from './cache';
import { directLogitAttribution } from './dla';
import { directionLogits, featureActs, featureWords, saeAt, saeDla, topOf } from './saeFeature';
import { weightAt } from './weights';

const DIR = join(REPO, 'test', 'fixtures', 'sae-cases');
const wasm = createWasmKernel();
const store = new CheckpointStore(nodeFiles, undefined, wasm ?? undefined);

async function runCase(file: string): Promise<Run> {
  const model = (JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { model: unknown }).model;
  const path = join(DIR, 'x.ffn.json');
  const read = await resolveReadNow(readModel(JSON.stringify(model), path), path, store, new CheckpointResolver());
  assert.deepEqual(read.problems.map((p) => p.message), []);
  const m: Model = read.file!.model;
  return runOf(m, forward(m, wasm ?? tsKernel));
}

describe('SAE feature lens', () => {
  it('reads a direction through the unembedding by hand (W_U as in_out and out_in, gain, centering)', () => {
    // C 3, V 4: W_U[c][w]; v = [1, 2, 0] → logits = 1·row0 + 2·row1
    const rows = [[1, 0, -1, 2], [0, 3, 1, -1], [5, 5, 5, 5]];
    const inOut: Param = { data: Float32Array.from(rows.flat()), shape: [3, 4], layout: 'in_out' };
    const outIn: Param = { data: Float32Array.from([0, 1, 2, 3].flatMap((w) => rows.map((r) => r[w]))), shape: [4, 3], layout: 'out_in' };
    for (const W of [inOut, outIn]) assert.deepEqual(Array.from(directionLogits([1, 2, 0], W, 3, 4, null)), [1, 6, 1, 0]);
    // gain [2, 1, 1]: [2, 2, 0] → [2, 6, 0, 2]
    assert.deepEqual(Array.from(directionLogits([1, 2, 0], inOut, 3, 4, { gain: [2, 1, 1], onePlus: false, center: false })), [2, 6, 0, 2]);
    // (1 + w) gains of 0: as no gain
    assert.deepEqual(Array.from(directionLogits([1, 2, 0], inOut, 3, 4, { gain: [0, 0, 0], onePlus: true, center: false })), [1, 6, 1, 0]);
    // LayerNorm centers first: [1, 2, 0] − 1 = [0, 1, −1] → row1 − row2 = [−5, −2, −4, −6]
    assert.deepEqual(Array.from(directionLogits([1, 2, 0], inOut, 3, 4, { gain: null, onePlus: false, center: true })), [-5, -2, -4, -6]);
    // promoted: argsort descending, ties by id; suppressed: ascending
    const row = [1, 6, 1, 0];
    assert.deepEqual(topOf(row, 3), [[1, 6], [0, 1], [2, 1]]);
    assert.deepEqual(topOf(row, 2, true), [[3, 0], [0, 1]]);
  });

  it('promoted and suppressed words = the argsort of W_dec[f] · W_U (through ln_f\'s gain, centered) on the GPT-2 SAE', async () => {
    const run = await runCase('gpt2_relu_observe.json');
    const sae = saeAt(run, 'layers.0.out');
    const { params, spec } = run.model;
    const C = spec.C;
    const V = spec.head!.V;
    const Wdec = floatData(params.get(saeParamId(sae.site, SAE_PARAM.Wdec))!);
    const W = params.get(PARAM.headW)!;
    const g = floatData(params.get(PARAM.lnFGamma)!);
    for (const f of [0, 7, 47]) {
      const v = Array.from(Wdec.subarray(f * C, (f + 1) * C));
      const m = v.reduce((a, b) => a + b, 0) / C;
      const logits = Array.from({ length: V }, (_, w) => v.reduce((s, x, c) => s + (x - m) * g[c] * weightAt(W, c, w, C, V), 0));
      const order = logits.map((x, w) => [w, x] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      const got = featureWords(run, sae, f, 10);
      assert.deepEqual(got.promoted.map(([w]) => w), order.slice(0, 10).map(([w]) => w), `feature ${f}`);
      assert.deepEqual(got.suppressed.map(([w]) => w), order.slice(-10).reverse().map(([w]) => w), `feature ${f}`);
      for (const [w, x] of got.promoted) assert.ok(Math.abs(x - logits[w]) < 1e-9);
    }
    const acts = featureActs(run, sae, 1);
    assert.equal(acts.length, spec.T);
    assert.equal(acts[0], run.stage('layers.0.sae.acts')[1]);
    assert.throws(() => featureActs(run, sae, 48), /outside the SAE's 0…47/);
  });

  for (const file of ['gpt2_relu_observe.json', 'gpt2_relu_ablate_clamp.json', 'gpt2_topk_attn_out.json', 'llama_relu_ffn_down.json', 'llama_jumprelu_npz_scale_clamp.json']) {
    it(`DLA: features + b_dec + error + the rest = the logit difference (${file})`, async () => {
      const run = await runCase(file);
      const sae = run.model.spec.saes![0];
      const T = run.model.spec.T;
      for (const pos of [T - 1, 2]) {
        const d = saeDla(run, sae, { pos });
        const sum = d.features.reduce((s, [, v]) => s + v, d.bdec + d.error + d.rest);
        assert.ok(Math.abs(sum - d.logitDiff) < 1e-4 * (1 + Math.abs(d.logitDiff)), `${sum} vs ${d.logitDiff}`);
        assert.ok(Math.abs(d.remainder) < 1e-4, `remainder ${d.remainder}`);
        assert.ok(d.features.length > 0);
        if (file.includes('observe') || file.includes('attn_out') || file.includes('ffn_down')) {
          // no SAE edit: the rest is what the DLA gives every part outside the site, and its constant
          const dla = directLogitAttribution(run, { pos, target: d.target });
          const { layer, kind } = parseStageId(sae.site);
          const inSite = (p: { kind: string; layer: number }): boolean =>
            kind === STAGE.out ? p.layer <= layer : kind === STAGE.attnOut ? p.layer === layer && (p.kind === 'head' || p.kind === 'bias') : p.layer === layer && p.kind === 'mlp';
          const rest = dla.parts.filter((p) => p.kind !== 'neuron' && !inSite(p)).reduce((s, p) => s + p.value, dla.constant);
          assert.ok(Math.abs(rest - d.rest) < 1e-4 * (1 + Math.abs(rest)), `rest ${d.rest}, DLA's ${rest}`);
        }
      }
    });
  }
});
