// resolve: a checkpoint request applied to a checkpoint's params. Overrides are read in out_in
// terms whatever the checkpoint stores; untouched params stay the checkpoint's objects; an
// unchanged override keeps its copy between resolves (the engine tells params apart by identity);
// what does not exist is an error at the key's place.
import * as assert from 'node:assert/strict';
import type { Param } from '../core/params';
import type { ModelSpec } from '../core/spec';
import { readModel } from '../model/read';
import type { CheckpointRequest } from '../model/checkpointRequest';
import { runBudget, runTooLarge, setRunBudget } from '../core/runSize';
import { CheckpointResolver, type ResolvableCheckpoint } from './resolve';

const C = 4, F = 6, NH = 2, V = 10, L = 2;

function matrix(rows: number, cols: number, layout: 'out_in' | 'in_out', seed: number): Param {
  return { data: Float32Array.from({ length: rows * cols }, (_, i) => seed + i), shape: [rows, cols], layout };
}

/** A gpt2-like checkpoint: W1 stored [in][out] (Conv1D), a tied head. */
function fakeCheckpoint(): ResolvableCheckpoint {
  const params = new Map<string, Param>();
  const embed = matrix(V, C, 'out_in', 0);
  params.set('embed', embed);
  params.set('head.W', embed);
  for (let i = 0; i < L; i++) {
    params.set(`layers.${i}.ffn.W1`, matrix(C, F, 'in_out', 100 * (i + 1)));
    params.set(`layers.${i}.ffn.W2`, matrix(F, C, 'in_out', 1000 * (i + 1)));
    params.set(`layers.${i}.ffn.b1`, { data: new Float32Array(F), shape: [F] });
    params.set(`layers.${i}.attn.Wq`, matrix(C, C, 'out_in', 5000));
  }
  return {
    params, modelType: 'gpt2', maxPositions: 8, dtypes: ['F32'], paramCount: 0,
    specFor: ({ ids, temperature, lens }): ModelSpec => ({
      T: ids.length, C, embedding: { kind: 'tokens', ids: [...ids], positional: 'none' }, norm: 'pre', normKind: 'layernorm',
      eps: new Map(), residual: true, finalNorm: true, head: { V, temperature }, lens,
      layers: Array.from({ length: L }, () => ({ attention: { NH, KVH: NH, HS: C / NH, causal: true, rope: null }, ffn: { F, activation: 'gelu_tanh' as const } })),
    }),
  };
}

function request(body: string): { req: CheckpointRequest; text: string } {
  const text = `{"version": 1, "checkpoint": "./m", ${body}}`;
  const r = readModel(text, 'm.ffn.json');
  assert.deepEqual(r.problems.filter((p) => p.severity === 'error').map((p) => p.message), []);
  assert.ok(r.checkpoint);
  return { req: r.checkpoint, text };
}

describe('checkpoint resolve', () => {
  it('token_ids become the spec\'s ids; untouched params are the checkpoint\'s own objects', () => {
    const ck = fakeCheckpoint();
    const { req } = request('"token_ids": [1, 2, 3]');
    const r = new CheckpointResolver().resolve(req, ck, null);
    assert.deepEqual(r.problems, []);
    const m = r.file!.model;
    assert.deepEqual(m.spec.embedding, { kind: 'tokens', ids: [1, 2, 3], positional: 'none' });
    for (const [id, p] of ck.params) assert.equal(m.params.get(id), p, id);
    assert.deepEqual(r.file!.tokens, ['#1', '#2', '#3']);
  });

  it('a row override is neuron j\'s input weights (out_in) even when the checkpoint stores [in][out]', () => {
    const ck = fakeCheckpoint();
    const { req } = request('"token_ids": [1], "weights": {"layers.1.ffn.W1[2]": [9, 8, 7, 6], "layers.0.ffn.W2[1][4]": -1, "layers.0.ffn.b1[5]": 3}');
    const r = new CheckpointResolver().resolve(req, ck, null);
    assert.deepEqual(r.problems, []);
    const W1 = r.file!.model.params.get('layers.1.ffn.W1')!;
    const base = ck.params.get('layers.1.ffn.W1')!;
    assert.notEqual(W1, base);
    // stored [in=C][out=F]: out_in row 2 is column 2
    for (let k = 0; k < C; k++) assert.equal(W1.data![k * F + 2], [9, 8, 7, 6][k]);
    let changed = 0;
    for (let i = 0; i < W1.data!.length; i++) if (W1.data![i] !== base.data![i]) changed++;
    assert.equal(changed, 4, 'only that column');
    assert.equal(base.data![2], 202, 'the checkpoint is not written');
    // W2 stored [in=F][out=C]: out_in [1][4] is stored [4][1]
    assert.equal(r.file!.model.params.get('layers.0.ffn.W2')!.data![4 * C + 1], -1);
    assert.equal(r.file!.model.params.get('layers.0.ffn.b1')!.data![5], 3);
  });

  it('an unchanged override keeps its copy; a changed one makes a new copy; the others stay put', () => {
    const ck = fakeCheckpoint();
    const res = new CheckpointResolver();
    const a = res.resolve(request('"token_ids": [1], "weights": {"layers.1.ffn.W1[2][0]": 5, "layers.0.ffn.b1": [1,2,3,4,5,6]}').req, ck, null).file!.model;
    const b = res.resolve(request('"token_ids": [1], "weights": {"layers.1.ffn.W1[2][0]": 6, "layers.0.ffn.b1": [1,2,3,4,5,6]}').req, ck, null).file!.model;
    assert.equal(b.params.get('layers.0.ffn.b1'), a.params.get('layers.0.ffn.b1'), 'same overrides, same object');
    assert.notEqual(b.params.get('layers.1.ffn.W1'), a.params.get('layers.1.ffn.W1'));
    assert.equal(b.params.get('layers.0.ffn.W1'), ck.params.get('layers.0.ffn.W1'));
    const c = res.resolve(request('"token_ids": [1]').req, ck, null).file!.model;
    assert.equal(c.params.get('layers.1.ffn.W1'), ck.params.get('layers.1.ffn.W1'), 'override removed: the checkpoint\'s own again');
  });

  it('embed[t] changes the input only: a tied head keeps the checkpoint\'s row', () => {
    const ck = fakeCheckpoint();
    const r = new CheckpointResolver().resolve(request('"token_ids": [3], "weights": {"embed[3]": [0, 0, 0, 1]}').req, ck, null);
    const m = r.file!.model;
    assert.deepEqual(Array.from(m.params.get('embed')!.data!.subarray(3 * C, 4 * C)), [0, 0, 0, 1]);
    assert.equal(m.params.get('head.W'), ck.params.get('embed'));
  });

  it('ablate and scale make unit-scale vectors; a unit both ablated and scaled is zero', () => {
    const ck = fakeCheckpoint();
    const r = new CheckpointResolver().resolve(request('"token_ids": [1], "ablate": ["layers.1.ffn.neuron.2", "layers.0.attn.head.1"], "scale": {"layers.1.ffn.neuron.2": 3, "layers.1.ffn.neuron.4": 2.5}').req, ck, null);
    const p = r.file!.model.params;
    assert.deepEqual(Array.from(p.get('layers.1.ffn.units')!.data!), [1, 1, 0, 1, 2.5, 1]);
    assert.deepEqual(Array.from(p.get('layers.0.attn.units')!.data!), [1, 0]);
    assert.equal(p.get('layers.0.ffn.units'), undefined);
  });

  it('an input longer than the positions a RoPE model was trained on: computed, with a warning at the input', () => {
    const ck = { ...fakeCheckpoint(), maxPositions: null, trainedPositions: 3, modelType: 'llama' };
    const { req, text } = request('"token_ids": [1, 2, 3, 4]');
    const r = new CheckpointResolver().resolve(req, ck, null);
    assert.ok(r.file, 'still a model');
    assert.deepEqual(r.problems.map((p) => [p.severity, text.slice(p.start, p.end)]), [['warning', '[1, 2, 3, 4]']]);
    assert.match(r.problems[0].message, /^the input has 4 tokens; this llama model was trained on up to 3 \(max_position_embeddings\)/);
    assert.deepEqual(new CheckpointResolver().resolve(request('"token_ids": [1, 2, 3]').req, ck, null).problems, []);
  });

  it('an input too large for memory: one error at token_ids or prompt with the tokens, what a run needs, what is available and how many fit, before anything is made', () => {
    // (RoPE: no positions limit the input; the run's memory does)
    const ck = { ...fakeCheckpoint(), maxPositions: null, trainedPositions: 3, modelType: 'llama' };
    const before = runBudget();
    try {
      setRunBudget(1e6);
      const ids = Array.from({ length: 5000 }, () => 1);
      const { req, text } = request(`"token_ids": [${ids.join(',')}]`);
      const r = new CheckpointResolver().resolve(req, ck, null);
      assert.equal(r.file, null);
      assert.equal(r.problems.length, 1, 'one error, not the warning besides');
      assert.equal(r.problems[0].severity, 'error');
      assert.equal(text.slice(r.problems[0].start, r.problems[0].end), `[${ids.join(',')}]`);
      const fit = r.problems[0].message.match(/at most ([\d,]+) tokens fit$/);
      assert.ok(fit, r.problems[0].message);
      assert.match(r.problems[0].message, /^the input has 5,000 tokens; a run of this llama model over them needs 1\.0 GB for its stages, available 1 MB \(attention keeps heads × tokens × tokens numbers in every layer\): at most [\d,]+ tokens fit$/);
      // the longest input said to fit does, and one more does not
      const n = Number(fit[1].replace(/,/g, ''));
      const spec = (T: number) => ck.specFor({ ids: Array.from({ length: T }, () => 1), temperature: 1, lens: false });
      assert.equal(runTooLarge(spec(n)), null);
      assert.notEqual(runTooLarge(spec(n + 1)), null);
      assert.ok(new CheckpointResolver().resolve(request(`"token_ids": [${ids.slice(0, n).join(',')}]`).req, ck, null).file, `${n} tokens run`);
      // a short prompt that tokenizes into many tokens: the same bound, at "prompt"
      const tok = { encode: () => ({ ids }), label: (id: number) => `#${id}` };
      const p = new CheckpointResolver().resolve(request('"prompt": "a\u0301\u0301"').req, ck, tok);
      assert.equal(p.file, null);
      assert.deepEqual(p.problems.map((x) => x.path), [['prompt']]);
      assert.match(p.problems[0].message, /^the input has 5,000 tokens; a run of this llama model over them needs/);
    } finally {
      setRunBudget(before);
    }
  });

  it('a unit or weight named with a million-digit number: one bounded message at its entry, not a name quoted whole', () => {
    const digits = '9'.repeat(1_000_000);
    const r = readModel(`{"version": 1, "checkpoint": "./m", "token_ids": [1], "ablate": ["layers.${digits}.ffn.neuron.0"], "weights": {"layers.0.ffn.W1[${digits}]": [1]}}`, 'm.ffn.json');
    const errors = r.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(errors.map((p) => p.path), [['ablate', 0], ['weights', `layers.0.ffn.W1[${digits}]`]]);
    for (const p of errors) assert.ok(p.message.length < 400, `${p.message.length} characters`);
    assert.match(errors[0].message, /^ablate\[0\] is "layers\.9+…" \(1,000,020 characters\): a unit is/);
  });

  it('what does not exist is an error at its key, naming what does', () => {
    const ck = fakeCheckpoint();
    const cases: Array<[string, RegExp, string]> = [
      ['"token_ids": [1, 12]', /token_ids\[1\] is 12, outside the vocabulary: ids go from 0 to 9/, '12'], // (at the entry)
      ['"token_ids": [1,1,1,1,1,1,1,1,1]', /9 tokens; this gpt2 model has positions for 8/, '[1,1,1,1,1,1,1,1,1]'],
      ['"token_ids": [1], "ablate": ["layers.2.ffn.neuron.0"]', /layers 0 to 1/, '"layers.2.ffn.neuron.0"'],
      ['"token_ids": [1], "ablate": ["layers.0.attn.head.2"]', /heads 0 to 1/, '"layers.0.attn.head.2"'],
      ['"token_ids": [1], "weights": {"layers.0.attn.bq": [1,2,3,4]}', /has no layers\.0\.attn\.bq/, '"layers.0.attn.bq": [1,2,3,4]'],
      ['"token_ids": [1], "weights": {"layers.0.ffn.W1[6]": [1,2,3,4]}', /row 6 is outside; layers\.0\.ffn\.W1 is \[6, 4\]/, '"layers.0.ffn.W1[6]": [1,2,3,4]'],
      ['"token_ids": [1], "weights": {"layers.0.ffn.W1[1]": [1,2,3]}', /has 3 numbers; a row of layers\.0\.ffn\.W1 has 4/, '"layers.0.ffn.W1[1]": [1,2,3]'],
      ['"prompt": "hi"', /"prompt" needs a tokenizer/, '"hi"'],
    ];
    for (const [body, re, at] of cases) {
      const { req, text } = request(body);
      const r = new CheckpointResolver().resolve(req, ck, null);
      assert.equal(r.file, null, body);
      assert.equal(r.problems.length, 1, body);
      assert.match(r.problems[0].message, re, body);
      assert.equal(text.slice(r.problems[0].start, r.problems[0].end), at, body);
    }
  });

  it('a tokenizer that fails on the prompt is an error at "prompt", not an exception', () => {
    const ck = fakeCheckpoint();
    const tok = { encode: (): never => { throw new Error('bad input\nat line 3'); }, label: (id: number) => `#${id}` };
    const { req, text } = request('"prompt": "abc"');
    const r = new CheckpointResolver().resolve(req, ck, tok);
    assert.equal(r.file, null);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0].message, 'the tokenizer cannot encode this prompt: bad input');
    assert.equal(text.slice(r.problems[0].start, r.problems[0].end), '"abc"');
  });

  it('a prompt is tokenized; row labels are the tokenizer\'s, vocabulary labels too', () => {
    const ck = fakeCheckpoint();
    const tok = { encode: (s: string) => ({ ids: [...s].map((ch) => ch.charCodeAt(0) - 97) }), label: (id: number) => `·${String.fromCharCode(97 + id)}` };
    const r = new CheckpointResolver().resolve(request('"prompt": "abc"').req, ck, tok);
    assert.deepEqual(r.file!.model.spec.embedding, { kind: 'tokens', ids: [0, 1, 2], positional: 'none' });
    assert.deepEqual(r.file!.tokens, ['·a', '·b', '·c']);
    assert.equal(r.file!.vocab.length, V);
    assert.equal(r.file!.vocab[9], '·j');
  });
});
