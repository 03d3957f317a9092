// `generate` as the reader takes it: defaults filled in, each bad value said at its key.
import * as assert from 'node:assert/strict';
import { readModel } from './read';

const file = (generate: string): string => `{ "version": 1, "checkpoint": "./gpt2", "token_ids": [1, 2], "generate": ${generate} }`;

function problems(generate: string): string[] {
  return readModel(file(generate), 'x.ffn.json').problems.map((p) => `${p.path.join('.')}: ${p.message}`);
}

describe('model file: generate', () => {
  it('reads the settings, defaults filled in', () => {
    const r = readModel(file('{ "tokens": 8, "temperature": 0.7, "top_k": 3, "seed": 42 }'), 'x.ffn.json');
    assert.deepEqual(r.problems, []);
    const g = r.checkpoint!.generate!;
    assert.deepEqual([g.tokens, g.temperature, g.topK, g.seed], [8, 0.7, 3, 42]);
    const text = file('{ "tokens": 8, "temperature": 0.7, "top_k": 3, "seed": 42 }');
    assert.equal(text.slice(g.tokensAt.start, g.tokensAt.end), '8');
    const d = readModel(file('{}'), 'x.ffn.json').checkpoint!.generate!;
    assert.deepEqual([d.tokens, d.temperature, d.topK, d.seed], [24, 0, 5, 1]);
    assert.equal(readModel('{ "version": 1, "checkpoint": "./gpt2", "token_ids": [1] }', 'x.ffn.json').checkpoint!.generate, null);
  });

  it('says each bad value at its key', () => {
    assert.deepEqual(problems('{ "tokens": 0 }'), ['generate.tokens: generate.tokens must be at least 1, found 0']);
    assert.deepEqual(problems('{ "tokens": 2.5 }'), ['generate.tokens: generate.tokens must be a whole number, found 2.5']);
    assert.deepEqual(problems('{ "temperature": -0.5 }'), ['generate.temperature: generate.temperature must be at least 0, found -0.5']);
    assert.deepEqual(problems('{ "temperature": "hot" }'), ['generate.temperature: generate.temperature must be a number, found the string "hot"']);
    assert.deepEqual(problems('{ "top_k": 0 }'), ['generate.top_k: generate.top_k must be at least 1, found 0']);
    assert.deepEqual(problems('{ "seed": 4294967296 }'), ['generate.seed: generate.seed must be at most 4294967295 (the generator takes 32 bits), found 4294967296']);
    assert.deepEqual(problems('{ "seed": -1 }'), ['generate.seed: generate.seed must be at least 0, found -1']);
    assert.deepEqual(problems('24'), ['generate: generate must be an object, e.g. { "tokens": 24, "temperature": 0, "top_k": 5, "seed": 1 }, found the number 24']);
    assert.deepEqual(problems('{ "topk": 3 }'), ['generate.topk: unknown key "topk" in generate: did you mean "top_k"?']);
  });

  it('a written-out model (it reads vectors) gets a warning at the key', () => {
    const r = readModel('{ "version": 1, "input": [[1, 0]], "ffn": { "W1": [[1, 0]], "W2": [[1], [0]] }, "generate": { "tokens": 3 } }', 'x.ffn.json');
    assert.ok(r.file);
    assert.deepEqual(r.problems.map((p) => [p.severity, p.path.join('.'), p.message]), [['warning', 'generate', 'generate needs a model that reads token ids: only a model file that names a "checkpoint" generates (this one reads the vectors of "input"); it is ignored']]);
  });
});
