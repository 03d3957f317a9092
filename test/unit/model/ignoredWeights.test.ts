// An unknown key holding numbers (a misspelled "attention", "ffn", "layers", "W1") silently drops
// its weights from the model: still a warning (the rest computes), but one with its own code,
// 'ignored-weights', that the panel shows in its banner (issue 8).
import * as assert from 'node:assert/strict';
import type { FromWorker } from '../../../src/protocol/worker';
import { tsKernel } from '../../../src/core/kernel';
import { fixesFor } from '../../../src/model/fixes';
import { formatPath } from '../../../src/model/problems';
import { readModel } from '../../../src/model/read';
import { DocSession } from '../../../src/worker/session';

const FFN = '"ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}';
const ATTN = '"attention": {"heads": 1, "Wq": [[1, 0], [0, 1]]}';

function read(text: string): { model: boolean; problems: Array<{ code: string; severity: string; path: string; message: string; fix?: unknown }> } {
  const r = readModel(text, 'm.ffn.json');
  return { model: r.file !== null, problems: r.problems.map((p) => ({ code: p.code, severity: p.severity, path: formatPath(p.path), message: p.message, ...(p.fix ? { fix: p.fix } : {}) })) };
}

describe('unknown keys holding weights', () => {
  it('"att１ention" (a fullwidth digit) in a layer: the model computes without it, and the warning says so', () => {
    const r = read(`{"version": 1, "input": [[1, 2]], "layers": [{"att１ention": {"heads": 1, "Wq": [[1, 0], [0, 1]]}, ${FFN}}]}`);
    assert.ok(r.model, 'still a model: a warning, not an error');
    assert.deepEqual(r.problems, [{
      code: 'ignored-weights', severity: 'warning', path: 'layers[0]["att１ention"]',
      message: 'unknown key "att１ention" in layers[0]: did you mean "attention"? Its weights are not used: the model is computed without them',
      fix: { kind: 'rename-key', to: 'attention' },
    }]);
  });

  it('a misspelled experiment key of a checkpoint file ("ablat", "scal", "len"): as loud, and its quick fix renames it', () => {
    const text = '{"version": 1, "checkpoint": "./gpt2", "token_ids": [1, 2], "ablat": ["layers.0.ffn.neuron.1"], "scal": {}, "len": true}';
    const r = read(text);
    assert.deepEqual(r.problems.map((p) => [p.code, p.path, p.message]), [
      ['ignored-edit', 'ablat', 'unknown key "ablat" in the top level: did you mean "ablate"? It is not applied: the model is computed without it'],
      ['ignored-edit', 'scal', 'unknown key "scal" in the top level: did you mean "scale"? It is not applied: the model is computed without it'],
      ['ignored-edit', 'len', 'unknown key "len" in the top level: did you mean "lens"? It is not applied: the model is computed without it'],
    ]);
    const full = readModel(text, 'm.ffn.json');
    const at = text.indexOf('"ablat"');
    const [fix] = fixesFor(text, full.json.root, full.problems, full.file, at, at + 1);
    assert.equal(fix?.title, 'Rename to "ablate"');
  });

  it('its quick fix renames the key, and the weights are read', () => {
    const text = `{"version": 1, "input": [[1, 2]], "layers": [{"att１ention": {"heads": 1, "Wq": [[1, 0], [0, 1]]}, ${FFN}}]}`;
    const r = readModel(text, 'm.ffn.json');
    const at = text.indexOf('"att１ention"');
    const [fix] = fixesFor(text, r.json.root, r.problems, r.file, at, at + 1);
    assert.equal(fix?.title, 'Rename to "attention"');
    assert.deepEqual(fix.fixes, { code: 'ignored-weights', start: at });
    const e = fix.edits[0];
    const fixed = readModel(text.slice(0, e.start) + e.text + text.slice(e.end), 'm.ffn.json');
    assert.deepEqual(fixed.problems, []);
    assert.ok(fixed.file?.model.params.get('layers.0.attn.Wq'), 'the attention weights are read now');
  });

  it('"fnn" and "laers" at the top level, a matrix under "W_1": each is named, with its suggestion', () => {
    const fnn = read(`{"version": 1, "input": [[1, 2]], ${ATTN}, "fnn": {"W1": [[1, 0]], "W2": [[1], [0]]}}`);
    assert.ok(fnn.model);
    assert.deepEqual(fnn.problems.map((p) => [p.code, p.path, /did you mean "ffn"\? Its weights are not used/.test(p.message)]), [['ignored-weights', 'fnn', true]]);
    const laers = read(`{"version": 1, "input": [[1, 2]], ${FFN}, "laers": [{${ATTN}}]}`);
    assert.ok(laers.model);
    assert.deepEqual(laers.problems.map((p) => [p.code, p.path, /did you mean "layers"\?/.test(p.message)]), [['ignored-weights', 'laers', true]]);
    const w = read('{"version": 1, "input": [[1, 2]], "ffn": {"W_1": [[1, 0], [0, 1]], "W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]], "b_2": [1, 2]}}');
    assert.deepEqual(w.problems.map((p) => [p.code, p.path]), [['ignored-weights', 'ffn.W_1'], ['ignored-weights', 'ffn.b_2']]);
  });

  it('without a likely key, still said; numbers read the slow way count too', () => {
    const r = read(`{"version": 1, "input": [[1, 2]], ${FFN}, "extra_weights": {"deep": [[1, NaN]]}}`);
    assert.deepEqual(r.problems.map((p) => [p.code, p.path]), [['ignored-weights', 'extra_weights']]);
    assert.match(r.problems[0].message, /^unknown key "extra_weights" in the top level: its weights are not used, the model is computed without them \(expected one of: /);
  });

  it('an unknown key holding no numbers (a string, a flag, a lone number, a list of words) stays a plain unknown key', () => {
    const r = read(`{"version": 1, "input": [[1, 2]], ${FFN}, "comment": "x", "lr": 0.001, "flag": true, "words": ["a"], "meta": {"by": "me"}}`);
    assert.deepEqual(r.problems.map((p) => p.code), ['unknown-key', 'unknown-key', 'unknown-key', 'unknown-key', 'unknown-key']);
  });

  it('the worker sends it with its code, as the panel reads it', async () => {
    const text = `{"version": 1, "input": [[1, 2]], "layers": [{"atention": {"Wq": [[1, 0], [0, 1]]}, ${FFN}}]}`;
    const problems = await new Promise<readonly { code: string; line: number }[]>((resolve) => {
      const s = new DocSession('doc', 'm.ffn.json', text, 1, (m: FromWorker) => {
        if (m.type !== 'model') return;
        s.dispose();
        resolve(m.problems);
      }, () => tsKernel, () => 0);
    });
    assert.deepEqual(problems.map((p) => [p.code, p.line]), [['ignored-weights', 1]]);
  });
});
