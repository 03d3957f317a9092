import { strict as assert } from 'node:assert';
import { normOf, PARAM, paramId, parseParamId, parseSaeId, parseStageId, parseUnitId, SAE_PARAM, SAE_PART, saeFeatureId, saeParamId, saeStageId, STAGE, stageId, isSteerStage, steerParamId, steerStageId, sublayerId, unitId, unitStage } from './ids';
import { LAYER_PARAMS, layerParam, layerParamAt, shapeOf } from './paramTable';

describe('ids: the one vocabulary', () => {
  it('builds and takes apart stage ids', () => {
    assert.equal(stageId(3, STAGE.act), 'layers.3.ffn.act');
    assert.equal(stageId(-1, STAGE.probs), 'head.probs');
    assert.deepEqual(parseStageId('layers.12.attn.weights'), { layer: 12, kind: 'attn.weights' });
    assert.deepEqual(parseStageId('ln_f'), { layer: -1, kind: 'ln_f' });
    assert.deepEqual(parseStageId('layers.x.out'), { layer: -1, kind: 'layers.x.out' });
    assert.deepEqual(parseStageId('layers.1234567890.out'), { layer: -1, kind: 'layers.1234567890.out' });
  });
  it('builds and takes apart param ids', () => {
    assert.equal(paramId(0, 'ffn.W1'), 'layers.0.ffn.W1');
    assert.deepEqual(parseParamId('layers.2.ln1.gamma'), { layer: 2, kind: 'ln1.gamma' });
    assert.equal(normOf('layers.2.ln1.gamma'), 'layers.2.ln1');
    assert.equal(normOf('head.W'), null);
  });
  it('builds and takes apart unit ids', () => {
    assert.equal(unitId('neuron', 3, 17), 'layers.3.ffn.neuron.17');
    assert.equal(unitId('head', 0, 2), 'layers.0.attn.head.2');
    assert.deepEqual(parseUnitId('layers.3.ffn.neuron.17'), { kind: 'neuron', layer: 3, index: 17 });
    assert.deepEqual(parseUnitId('layers.0.attn.head.2'), { kind: 'head', layer: 0, index: 2 });
    for (const bad of ['layers.0.attn.head.', 'layers.0.attn.head.2x', 'layers..ffn.neuron.1', 'ffn.neuron.1', `layers.0.ffn.neuron.${'9'.repeat(10)}`]) assert.equal(parseUnitId(bad), null, bad);
    assert.equal(unitStage('neuron', 1), 'layers.1.ffn.act');
  });
  it('names each layer param once, with its shape', () => {
    const kinds = LAYER_PARAMS.map((r) => r.kind);
    assert.equal(new Set(kinds).size, kinds.length);
    assert.deepEqual(shapeOf(layerParam('attn.Wk')!, { C: 8, F: 32, Q: 8, KV: 4, HS: 2, NH: 4 }), [4, 8]);
    assert.equal(layerParam('ffn.b1')!.of, 'ffn.W1');
  });
});

describe('ids: sublayers, and the table by model-file key', () => {
  it('names a sublayer as a whole', () => {
    assert.equal(sublayerId(3, 'ffn'), 'layers.3.ffn');
    assert.equal(sublayerId(0, 'attn'), 'layers.0.attn');
  });
  it('finds a layer param by its sublayer and key in the model file', () => {
    assert.equal(layerParamAt('ffn', 'W1')?.kind, PARAM.W1);
    assert.equal(layerParamAt('attention', 'bq')?.kind, PARAM.bq);
    assert.equal(layerParamAt('ln2', 'beta')?.kind, PARAM.ln2Beta);
    assert.equal(layerParamAt('ffn', 'Wq'), undefined);
    assert.equal(layerParamAt('attention', 'units'), undefined); // (no file holds the unit scales)
  });
});

describe('ids: sparse autoencoders', () => {
  it('names an SAE by its site, so two SAEs of one layer do not clash', () => {
    assert.equal(saeStageId('layers.12.out', SAE_PART.acts), 'layers.12.sae.acts');
    assert.equal(saeStageId('layers.12.attn.out', SAE_PART.acts), 'layers.12.attn.out.sae.acts');
    assert.equal(saeFeatureId('layers.12.out', 1234), 'layers.12.sae.1234');
    assert.equal(saeFeatureId('layers.3.ffn.down', 7), 'layers.3.ffn.down.sae.7');
    assert.equal(saeParamId('input', SAE_PARAM.Wenc), 'input.sae.W_enc');
    assert.equal(parseStageId('layers.12.attn.out.sae.error').layer, 12);
  });
  it('takes an SAE id apart', () => {
    assert.deepEqual(parseSaeId('layers.12.sae.1234'), { site: 'layers.12.out', feature: 1234 });
    assert.deepEqual(parseSaeId('layers.12.attn.out.sae.recon'), { site: 'layers.12.attn.out', part: 'recon' });
    assert.deepEqual(parseSaeId('input.sae.0'), { site: 'input', feature: 0 });
    assert.deepEqual(parseSaeId('layers.1.sae.clamp'), { site: 'layers.1.out', param: 'clamp' });
    for (const bad of ['layers.12.sae.', 'layers.12.sae.x', 'layers.12.out.sae.3', 'sae.3', 'layers.1.ffn.neuron.3', `layers.1.sae.${'9'.repeat(10)}`]) assert.equal(parseSaeId(bad), null, bad);
  });
  it('names a steered stage and its vector after the site, as SAEs are named', () => {
    assert.equal(steerStageId('layers.6.out'), 'layers.6.steer');
    assert.equal(steerStageId('layers.6.attn.out'), 'layers.6.attn.out.steer');
    assert.equal(steerStageId('input'), 'input.steer');
    assert.equal(steerParamId('layers.6.out'), 'layers.6.steer.vector');
    assert.equal(steerParamId('layers.2.ffn.down'), 'layers.2.ffn.down.steer.vector');
    for (const site of ['layers.6.out', 'layers.6.attn.out', 'input']) assert.ok(isSteerStage(steerStageId(site)), site);
    for (const other of ['layers.6.out', 'layers.6.sae.out', 'input', 'head.probs', 'layers.6.steer.vector.x']) assert.ok(!isSteerStage(other), other);
  });
});
