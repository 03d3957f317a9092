// The lenses against PyTorch (test/fixtures/lens-cases, made by scripts/fixtures/lens_cases.py
// from the checkpoint cases' checkpoints and stories260K): the logit lens's top words and their
// probabilities, every part of the direct logit attribution and every neuron's, the three head
// scores and the induction test's, and both patching views.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointResolver } from '../checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../checkpoint/store';
import { Engine } from '../core/engine';
import { forward } from '../core/forward';
import { tsKernel } from '../core/kernel';
import type { Model } from '../core/model';
import { createWasmKernel } from '../core/wasm';
import { readModel } from '../model/read';
import { REPO } from '../../test/helpers/fixtures';
import { runOf, withTokens } from './cache';
import { directLogitAttribution } from './dla';
import { headScores } from './headScores';
import { logitLensGrid } from './logitLens';
import { runPatching } from './patching';

const DIR = join(REPO, 'test', 'fixtures', 'lens-cases');
const CASES = join(REPO, 'test', 'fixtures', 'checkpoint-cases');

interface LensCase {
  model: Record<string, unknown> & { token_ids: number[] };
  lens: { k: number; top: Array<Array<Array<[number, number]>>> };
  dla: { pos: number; target: number; alt: number; logit_diff: number; components: Record<string, number>; constant: number; neurons: Record<string, number> };
  heads: { prev: number[][]; dup: number[][]; induction: number[][] };
  repeat: { token_ids: number[]; induction: number[][] };
  patch: { corrupted_token_ids: number[]; target: number; alt: number | null; ld_clean: number; ld_corrupted: number; resid: number[][]; heads: number[][] };
}

const close = (got: number, want: number, abs: number, rel: number, what: string): void => {
  assert.ok(Math.abs(got - want) <= abs + rel * Math.abs(want), `${what}: ${got}, PyTorch ${want}`);
};

describe('the lenses against PyTorch (test/fixtures/lens-cases)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
  const wasm = createWasmKernel();
  // (the second: weights held by a kernel as the worker holds them, its matrices as panels)
  const stores: Array<[string, CheckpointStore]> = [['', new CheckpointStore(nodeFiles)], ...(wasm ? [[', weights as panels', new CheckpointStore(nodeFiles, undefined, wasm)] as [string, CheckpointStore]] : [])];
  it('has the cases', () => assert.ok(files.length >= 4, `found ${files.length}`));
  for (const f of files) for (const [held, store] of stores) {
    it(`${f.replace('.json', '')}${held}: lens, attribution, head scores, induction test, patching`, async () => {
      const c = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as LensCase;
      const path = join(CASES, 'x.ffn.json');
      const read = await resolveReadNow(readModel(JSON.stringify(c.model), path), path, store, new CheckpointResolver());
      assert.deepEqual(read.problems.map((p) => p.message), []);
      const model = read.file!.model;
      if (held) assert.equal(model.params.get('layers.0.ffn.W2')?.layout, 'panels');
      const lensModel: Model = { params: model.params, spec: { ...model.spec, lens: true } };
      const run = runOf(lensModel, forward(lensModel, tsKernel));

      const g = logitLensGrid(run, c.lens.k);
      c.lens.top.forEach((row, l) => row.forEach((want, t) => {
        const got = g.cells[l][t].top;
        // the top word, and each probability (a near tie further down may order differently)
        assert.equal(got[0][0], want[0][0], `${f} lens layer ${l} token ${t}`);
        want.forEach(([, p], i) => close(got[i][1], p, 1e-5, 1e-4, `${f} lens layer ${l} token ${t} #${i}`));
      }));

      const d = directLogitAttribution(run, { alt: 'second' });
      assert.deepEqual([d.pos, d.target, d.alt], [c.dla.pos, c.dla.target, c.dla.alt]);
      close(d.logitDiff, c.dla.logit_diff, 1e-4, 1e-4, `${f} logit difference`);
      close(d.constant, c.dla.constant, 1e-4, 1e-4, `${f} constant`);
      const parts = new Map(d.parts.map((p) => [p.name, p.value]));
      assert.deepEqual([...parts.keys()].sort(), Object.keys(c.dla.components).sort());
      for (const [name, want] of Object.entries(c.dla.components)) close(parts.get(name)!, want, 1e-4, 1e-3, `${f} ${name}`);
      d.neurons.forEach((n, l) => n.forEach((v, j) => close(v, c.dla.neurons[`layers.${l}.ffn.neuron.${j}`], 1e-4, 1e-3, `${f} layers.${l}.ffn.neuron.${j}`)));

      const s = headScores(run);
      for (const k of ['prev', 'dup', 'induction'] as const) c.heads[k].forEach((row, l) => row.forEach((v, hh) => close(s[k]![l][hh], v, 1e-5, 1e-4, `${f} ${k} layer ${l} head ${hh}`)));
      const rep = withTokens(model, c.repeat.token_ids);
      const sr = headScores(runOf(rep, forward(rep, tsKernel)));
      c.repeat.induction.forEach((row, l) => row.forEach((v, hh) => close(sr.induction![l][hh], v, 1e-5, 1e-4, `${f} induction test layer ${l} head ${hh}`)));

      for (const kernel of [tsKernel, createWasmKernel() ?? tsKernel]) {
        const p = runPatching(new Engine(kernel), model, withTokens(model, c.patch.corrupted_token_ids));
        assert.deepEqual([p.target, p.alt], [c.patch.target, c.patch.alt], `${f}: the words patching measures`);
        close(p.ldClean, c.patch.ld_clean, 1e-4, 1e-4, `${f} LD clean`);
        close(p.ldCorrupted, c.patch.ld_corrupted, 1e-4, 1e-4, `${f} LD corrupted`);
        c.patch.resid.forEach((row, l) => row.forEach((v, t) => close(p.resid![l][t], v, 2e-3, 1e-3, `${f} (${kernel.name}) resid layer ${l} token ${t}`)));
        c.patch.heads.forEach((row, l) => row.forEach((v, hh) => close(p.heads![l][hh], v, 2e-3, 1e-3, `${f} (${kernel.name}) head ${l}.${hh}`)));
      }
    });
  }
});
