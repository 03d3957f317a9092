import { strict as assert } from 'node:assert';
import { LAYER_PARAMS } from '../core/paramTable';
import { isMatrixParam, neuronInputRow, parseTarget, parseUnit } from './checkpointRequest';

// The forms as the reader accepted them before the param table named them (checkpoints-v1's roles):
// the table must give exactly this set.
const V1_TARGET = /^(layers\.\d{1,9}\.(?:ffn\.(?:W1|Wg|W2|b1|bg|b2)|attn\.(?:Wq|Wk|Wv|Wo|bq|bk|bv|bo)|ln[12]\.(?:gamma|beta))|ln_f\.(?:gamma|beta)|embed)((?:\[\d{1,9}\]){0,2})$/;
const V1_UNIT = /^layers\.(\d{1,9})\.(ffn\.neuron|attn\.head)\.(\d{1,9})$/;

describe('checkpoint requests: the `weights` targets and the units', () => {
  it('accepts exactly the targets of checkpoints-v1, from the param table', () => {
    const kinds = [...LAYER_PARAMS.map((r) => r.kind), 'ffn.neuron.3', 'attn.head', 'ln_f.gamma', 'W1', ''];
    const params = [
      ...kinds.flatMap((k) => [`layers.0.${k}`, `layers.12.${k}`, `layers.01.${k}`, `layers.x.${k}`, `layers.1234567890.${k}`, k]),
      'embed', 'pos', 'input', 'head.W', 'head.b', 'ln_f', 'ln_f.gamma', 'ln_f.beta', 'layers.0', 'layers.', '',
    ];
    const suffixes = ['', '[3]', '[3][5]', '[3][5][7]', '[', '[]', '[x]', '[1234567890]', '[123456789]', ' [3]', '[3]x'];
    let accepted = 0;
    for (const p of params) {
      for (const s of suffixes) {
        const text = p + s;
        const m = V1_TARGET.exec(text);
        const t = parseTarget(text);
        if (!m) {
          assert.equal(t, null, text);
          continue;
        }
        accepted++;
        const idx = [...m[2].matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]));
        assert.deepEqual(t, { param: m[1], row: idx[0] ?? null, col: idx[1] ?? null }, text);
      }
    }
    assert.ok(accepted > 100, `${accepted}`);
    assert.deepEqual(parseTarget('layers.2.ffn.W1[3][5]'), { param: 'layers.2.ffn.W1', row: 3, col: 5 });
    assert.equal(parseTarget('layers.0.ln1_post.gamma'), null);
    assert.equal(parseTarget('layers.0.attn.q_norm.gamma'), null);
    assert.equal(parseTarget('layers.0.ffn.units[1]'), null);
  });

  it('tells matrices (named by row) from vectors', () => {
    for (const p of ['embed', 'layers.0.ffn.W1', 'layers.3.ffn.Wg', 'layers.0.ffn.W2', 'layers.1.attn.Wq', 'layers.1.attn.Wk', 'layers.1.attn.Wv', 'layers.1.attn.Wo']) assert.ok(isMatrixParam(p), p);
    for (const p of ['layers.0.ffn.b1', 'layers.0.attn.bq', 'layers.0.ln1.gamma', 'ln_f.gamma', 'ln_f.beta']) assert.ok(!isMatrixParam(p), p);
  });

  it('reads a unit as before', () => {
    for (const text of ['layers.3.ffn.neuron.17', 'layers.0.attn.head.2', 'layers.01.attn.head.02', 'layers.3.ffn.neuron.', 'layers.3.ffn.neuron.1x', 'layers..ffn.neuron.1', 'ffn.neuron.1', 'layers.0.attn.heads.1', `layers.0.ffn.neuron.${'9'.repeat(10)}`, 'layers.0.ffn.neuron.1 ']) {
      const m = V1_UNIT.exec(text);
      assert.deepEqual(parseUnit(text), m ? { layer: Number(m[1]), kind: m[2] === 'ffn.neuron' ? 'neuron' : 'head', index: Number(m[3]) } : null, text);
    }
  });

  it("names a neuron's input weights as a target the reader takes back", () => {
    assert.equal(neuronInputRow(2, 7), 'layers.2.ffn.W1[7]');
    assert.deepEqual(parseTarget(neuronInputRow(2, 7)), { param: 'layers.2.ffn.W1', row: 7, col: null });
  });
});
