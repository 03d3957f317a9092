// The lenses' identities on every architecture of architectures-v2 (test/fixtures/arch-cases): the
// last layer's logit lens is the model's own prediction (through the final norm and any final
// soft-cap), and where the attribution is linear in the parts (no post-norms, no soft-cap, a
// plain final norm) the parts and the constant sum to the logit difference. The attribution
// through gemma's post-norms, (1 + w) final norm and soft-cap (a remainder) is src/lenses' own.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';
import { forward } from '../../src/core/forward';
import { tsKernel } from '../../src/core/kernel';
import type { Model } from '../../src/core/model';
import { runOf } from '../../src/lenses/cache';
import { directLogitAttribution } from '../../src/lenses/dla';
import { weightAt } from '../../src/lenses/weights';
import { logitLensGrid, softmaxTop } from '../../src/lenses/logitLens';
import { readModel } from '../../src/model/read';
import { checkDlaIdentity } from '../helpers/dlaIdentity';
import { FIXTURES } from '../helpers/fixtures';

const DIR = join(FIXTURES, 'arch-cases');
const store = new CheckpointStore(nodeFiles);

async function caseModel(f: string): Promise<Model> {
  const c = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { model: Record<string, unknown> };
  const path = join(DIR, 'x.ffn.json');
  const read = await resolveReadNow(readModel(JSON.stringify({ ...c.model, lens: true }), path), path, store, new CheckpointResolver());
  assert.deepEqual(read.problems.map((p) => p.message), []);
  return read.file!.model;
}

/** The attribution is a sum of the parts: no norm after a sublayer, no soft-cap, the final norm w · x̂ or LayerNorm. */
const linear = (m: Model): boolean => !m.spec.normOnePlus && !(m.spec.head?.softcap ?? null) && m.spec.layers.every((l) => !l.postNorms);

describe('lenses on every architecture of architectures-v2 (arch-cases)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
  for (const f of files) {
    it(`${f}: the last layer's logit lens is the model's own prediction`, async () => {
      const model = await caseModel(f);
      const run = runOf(model, forward(model, tsKernel));
      const g = logitLensGrid(run, 3);
      const V = model.spec.head!.V;
      const logits = run.stage('head.logits');
      for (let t = 0; t < model.spec.T; t++) assert.deepEqual(g.cells[g.L - 1][t], softmaxTop(logits.subarray(t * V, (t + 1) * V), 3, null), `${f} token ${t}`);
    });

    it(`${f}: where the attribution is not linear (post-norms, (1+w), a final soft-cap), the parts and the constant sum to the logit difference before the cap, and the remainder is what the cap takes off`, async function () {
      const model = await caseModel(f);
      if (linear(model)) this.skip();
      const run = runOf(model, forward(model, tsKernel));
      const { C } = model.spec;
      const W = model.params.get('head.W') ?? model.params.get('embed')!;
      const cap = model.spec.head?.softcap ?? null;
      const out = run.stage('output');
      for (const alt of [null, 'second'] as const) {
        for (const pos of [0, model.spec.T - 1]) {
          const d = directLogitAttribution(run, { pos, alt });
          // z (before the cap) along the two words, from the stream and the head's rows alone
          const z = (w: number): number => {
            let s = 0;
            for (let k = 0; k < C; k++) s += out[pos * C + k] * weightAt(W, k, w, C, model.spec.head!.V);
            return s;
          };
          const zDiff = z(d.target) - (d.alt === null ? 0 : z(d.alt));
          const sum = d.parts.reduce((s, p) => s + p.value, d.constant);
          const scale = d.parts.reduce((s, p) => s + Math.abs(p.value), Math.abs(d.constant));
          assert.ok(Math.abs(sum - zDiff) <= 1e-5 * scale + 1e-5, `${f} pos ${pos} alt ${alt}: Σ parts ${sum} vs z difference ${zDiff}`);
          const capped = (x: number): number => (cap ? Math.tanh(x / cap) * cap : x);
          const expected = capped(z(d.target)) - (d.alt === null ? 0 : capped(z(d.alt)));
          assert.ok(Math.abs(d.logitDiff - expected) <= 1e-4, `${f}: the logit difference is the capped one: ${d.logitDiff} vs ${expected}`);
          assert.ok(Math.abs(sum + d.remainder - d.logitDiff) <= 1e-5 * scale + 1e-5, `${f}: parts + remainder = the logit difference`);
          if (cap) assert.ok(Math.abs(d.remainder) > 1e-4, `${f}: the cap takes something off: ${d.remainder}`);
          assert.match(d.note, /exact/);
        }
      }
    });

    it(`${f}: where the attribution is linear, its parts and the constant sum to the logit difference`, async function () {
      const model = await caseModel(f);
      if (!linear(model)) this.skip();
      const run = runOf(model, forward(model, tsKernel));
      checkDlaIdentity(run, model.spec.T, f);
    });
  }
});
