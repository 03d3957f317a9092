// The SAE feature edits the panel inserts into a model file: into an existing "sae_ablate" list or
// "sae_clamp"/"sae_scale" object, or a new key; nothing when the feature is there already.
import * as assert from 'node:assert/strict';
import { addSaeEdit, saeFeatureOf } from './checkpointEdits';

const apply = (text: string, ins: { offset: number; text: string } | null): string => (ins ? text.slice(0, ins.offset) + ins.text + text.slice(ins.offset) : text);

describe('SAE feature edits of a model file', () => {
  const base = '{\n  "checkpoint": "./gpt2",\n  "saes": [{"path": "./sae", "at": "layers.0.out"}]\n}\n';
  it('adds new keys after "checkpoint", then entries into them', () => {
    const a = apply(base, addSaeEdit(base, 'ablate', 'layers.0.sae.5', 0));
    assert.deepEqual(JSON.parse(a).sae_ablate, ['layers.0.sae.5']);
    const b = apply(a, addSaeEdit(a, 'ablate', 'layers.0.sae.7', 0));
    assert.deepEqual(JSON.parse(b).sae_ablate, ['layers.0.sae.5', 'layers.0.sae.7']);
    assert.equal(addSaeEdit(b, 'ablate', 'layers.0.sae.7', 0), null);
    const c = apply(b, addSaeEdit(b, 'clamp', 'layers.0.sae.11', 2.5));
    const d = apply(c, addSaeEdit(c, 'clamp', 'layers.0.sae.12', -1));
    assert.deepEqual(JSON.parse(d).sae_clamp, { 'layers.0.sae.11': 2.5, 'layers.0.sae.12': -1 });
    const e = apply(d, addSaeEdit(d, 'scale', 'layers.0.sae.3', 2));
    assert.deepEqual(JSON.parse(e).sae_scale, { 'layers.0.sae.3': 2 });
    assert.equal(JSON.parse(e).checkpoint, './gpt2');
  });
  it('tells a feature id from others', () => {
    assert.deepEqual(saeFeatureOf('layers.12.sae.1234'), { site: 'layers.12.out', feature: 1234 });
    assert.deepEqual(saeFeatureOf('layers.1.attn.out.sae.3'), { site: 'layers.1.attn.out', feature: 3 });
    assert.equal(saeFeatureOf('layers.12.sae.acts'), null);
    assert.equal(saeFeatureOf('layers.3.ffn.neuron.2'), null);
  });
});
