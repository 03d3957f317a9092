// Compare's "this file without ablate, scale and weights" on a file that attaches an SAE: the
// baseline keeps the SAE (observing: it hands its stage on as it is) and leaves out every edit,
// the SAE's feature edits with the rest; its stages are the file without them, bit for bit.
import * as assert from 'node:assert/strict';
import { Engine } from '../core/engine';
import { forward } from '../core/forward';
import { byId, caseFolder, caseKernel, sameBits, without, type ReferenceCase } from '../../test/helpers/referenceCases';
import { Baseline } from './baseline';

const sae = caseFolder<ReferenceCase>('sae-cases', (f) => f === 'arrays.json');

describe('compare\'s plain baseline with an SAE attached', () => {
  it('keeps the SAE, drops ablate and the SAE edits: the stages of the file without them', async () => {
    const c = sae.read('gpt2_relu_ablate_clamp.json');
    const edited = { ...c.model, ablate: ['layers.1.ffn.neuron.3'] };
    const file = (await sae.readIn(edited)).file!;
    assert.ok(file, 'the edited file reads');
    const engine = new Engine(caseKernel);
    engine.run(file.model);
    const base = new Baseline({ kind: 'plain' }, null);
    const run = base.for(file, engine, () => assert.fail('nothing to load'));
    assert.equal(run.error, null);
    assert.equal(run.label, 'without ablate, scale, weights and SAE edits');
    const want = byId(forward(await sae.modelOf(without(edited, (k) => k === 'ablate' || k === 'sae_ablate' || k === 'sae_clamp')), caseKernel));
    assert.ok(want.has('layers.0.sae.acts'), 'the SAE is kept');
    assert.equal(run.stages!.size, want.size);
    for (const [id, data] of want) assert.ok(sameBits(run.stages!.get(id)!, data), id);
    // (the edits moved the prediction: the baseline is another run than the file's)
    const own = byId(engine.run(file.model));
    assert.ok(!sameBits(own.get('head.logits')!, run.stages!.get('head.logits')!));
    // the same file again: the same run, not computed again
    assert.equal(base.for(file, engine, () => undefined), run);
  });

  it('a file with no SAE keeps its label', async () => {
    const c = sae.read('gpt2_relu_observe.json');
    const file = (await sae.readIn({ ...without(c.model, (k) => k === 'saes'), ablate: ['layers.0.ffn.neuron.1'] })).file!;
    const run = new Baseline({ kind: 'plain' }, null).for(file, new Engine(caseKernel), () => undefined);
    assert.equal(run.error, null);
    assert.equal(run.label, 'without ablate, scale and weights');
  });
});
