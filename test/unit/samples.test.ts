// The sample model files in samples/: each reads cleanly (no errors, no warnings), runs, and
// computes what its comments claim.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { forward } from '../../src/core/forward';
import type { Stage } from '../../src/core/stages';
import { defaultModelName, readModel, type ModelFile } from '../../src/model/read';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';

/** The repository root, from the compiled location out/test/unit/. */
const REPO = resolve(__dirname, '../../..');
const SAMPLES = join(REPO, 'samples');

function sampleText(file: string): string {
  return readFileSync(join(SAMPLES, file), 'utf8');
}

/** Reads a model file text; fails on any problem, errors and warnings alike. */
function load(text: string, file: string): ModelFile {
  const res = readModel(text, file);
  const problems = res.problems.map((p) => `${p.severity} ${p.code} at ${p.start}: ${p.message}`);
  assert.deepEqual(problems, [], `${file}: reads without errors or warnings`);
  assert.ok(res.file, `${file}: gives a model`);
  return res.file;
}

function run(text: string, file: string): { model: ModelFile; stage: (id: string) => Stage } {
  const model = load(text, file);
  const stages = forward(model.model);
  const byId = new Map(stages.map((s) => [s.id, s]));
  return {
    model,
    stage: (id) => {
      const s = byId.get(id);
      assert.ok(s, `${file}: has stage ${id} (has ${[...byId.keys()].join(', ')})`);
      return s;
    },
  };
}

/** Row r of a [rows, cols] stage. */
function row(s: Stage, r: number): number[] {
  const cols = s.shape[s.shape.length - 1];
  return Array.from(s.data.subarray(r * cols, (r + 1) * cols));
}

/** Column c of a [rows, cols] stage. */
function column(s: Stage, c: number): number[] {
  const [rows, cols] = s.shape;
  return Array.from({ length: rows }, (_, r) => s.data[r * cols + c]);
}

function assertClose(got: readonly number[], want: readonly number[], tol: number, what: string): void {
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= tol, `${what}[${i}]: got ${g}, want ${want[i]} (±${tol})\n  got  ${got.join(', ')}\n  want ${want.join(', ')}`));
}

function argmax(v: readonly number[]): number {
  return v.reduce((best, x, i) => (x > v[best] ? i : best), 0);
}

describe('samples/', () => {
  const all = readdirSync(SAMPLES).filter((f) => f.endsWith('.ffn.json')).sort();
  /** Samples that name a checkpoint (their numbers come from its folder; tested below). */
  const isCheckpoint = (f: string): boolean => /"checkpoint"\s*:/.test(sampleText(f));
  const files = all.filter((f) => !isCheckpoint(f));

  it('has the samples', () => {
    for (const f of ['identity-weights', 'attention-then-ffn', 'michael-jordan', 'xor-relu', 'encoder-block']) {
      assert.ok(files.includes(`${f}.ffn.json`), `samples/${f}.ffn.json exists`);
    }
  });

  for (const file of files) {
    it(`${file}: reads cleanly, names itself and its tokens, and every stage is finite`, () => {
      const text = sampleText(file);
      assert.match(text, /^\s*\/\//, `${file}: begins with a comment`);
      const { model } = run(text, file);
      assert.notEqual(model.name, defaultModelName(file), `${file}: sets "name"`);
      assert.ok(!model.tokens.every((t, i) => t === `t${i}`), `${file}: sets "tokens"`);
      for (const s of forward(model.model)) {
        const bad = s.data.findIndex((x) => !Number.isFinite(x));
        assert.equal(bad, -1, `${file}: stage ${s.id} is finite`);
      }
    });
  }

  describe('stories260K.ffn.json (a real trained model, from its checkpoint folder)', () => {
    it('reads cleanly, names itself, its checkpoint loads and resolves, and the last token predicts "," (id 432) as its comment says', async () => {
      const file = 'stories260K.ffn.json';
      assert.ok(all.includes(file));
      const text = sampleText(file);
      assert.match(text, /^\s*\/\//);
      const read = readModel(text, join(SAMPLES, file));
      assert.deepEqual(read.problems.map((p) => p.message), []);
      const res = await resolveReadNow(read, join(SAMPLES, file), new CheckpointStore(nodeFiles), new CheckpointResolver());
      assert.deepEqual(res.problems.map((p) => p.message), []);
      assert.ok(res.file);
      assert.notEqual(res.file.name, defaultModelName(file));
      const stages = forward(res.file.model);
      for (const s of stages) assert.equal(s.data.findIndex((x) => !Number.isFinite(x)), -1, `stage ${s.id} is finite`);
      const probs = stages.find((s) => s.id === 'head.probs')!;
      const last = row(probs, probs.shape[0] - 1);
      assert.equal(argmax(last), 432);
      assert.ok(stages.some((s) => s.id === 'layers.4.lens.logits'), 'the logit lens is on');
    });
  });

  describe('identity-weights.ffn.json (the identity example)', () => {
    const file = 'identity-weights.ffn.json';
    it('gives the worked example, stage by stage', () => {
      const { stage } = run(sampleText(file), file);
      assertClose(Array.from(stage('layers.0.ffn.up').data), [1.1, 0, 1.3, 0.1, 1, -0.2], 1e-6, 'ffn.up');
      assertClose(Array.from(stage('layers.0.ffn.act').data), [1.1, 0, 1.3, 0.1, 1, 0], 1e-6, 'ffn.act');
      assert.deepEqual(stage('output').shape, [2, 3]);
      assertClose(Array.from(stage('output').data), [0.9, 0.1, 1.6, -0.1, 1.1, 0.3], 1e-6, 'output');
    });
  });

  describe('xor-relu.ffn.json (seed 004)', () => {
    const file = 'xor-relu.ffn.json';
    const RELU = '"activation": "relu"';
    it('is stored in_out, 2 → 4 → 2', () => {
      const { model } = run(sampleText(file), file);
      assert.equal(model.layout, 'in_out');
      assert.equal(model.dims.dModel, 2);
      assert.equal(model.dims.dFf, 4);
      assert.deepEqual(model.tokens, ['(0,0)', '(0,1)', '(1,0)', '(1,1)']);
    });
    it('with ReLU, output dim 0 is XOR and dim 1 is AND', () => {
      const { stage } = run(sampleText(file), file);
      assertClose(column(stage('output'), 0), [0, 1, 1, 0], 1e-6, 'output[:, 0]');
      assertClose(column(stage('output'), 1), [0, 0, 0, 1], 1e-6, 'output[:, 1]');
    });
    it('with "linear" instead, output dim 0 is 2 − x1 − x2, not XOR', () => {
      const text = sampleText(file);
      assert.equal(text.split(RELU).length, 2, `${file}: ${RELU} appears once`);
      const { stage } = run(text.replace(RELU, '"activation": "linear"'), file);
      const y0 = column(stage('output'), 0);
      assertClose(y0, [2, 1, 1, 0], 1e-6, 'output[:, 0] (linear)');
      assert.ok(y0.some((y, i) => Math.abs(y - [0, 1, 1, 0][i]) > 0.5), 'linear is not XOR');
    });
  });

  describe('michael-jordan.ffn.json (seed 001)', () => {
    const file = 'michael-jordan.ffn.json';
    const JORDAN_ROW = /\[[^\]\n]*\],?(\s*\/\/ Jordan\b)/;
    const LAST = 5;

    it('has the sentence and a vocabulary with basketball and distractors', () => {
      const { model } = run(sampleText(file), file);
      assert.deepEqual(model.tokens, ['Michael', 'Jordan', 'plays', 'the', 'sport', 'of']);
      for (const w of ['basketball', 'football', 'tennis', 'chess', 'music']) assert.ok(model.vocab.includes(w), `vocab has ${w}`);
      assert.equal(model.model.spec.layers[0].attention?.causal, true);
    });

    it('neuron 0 (Michael AND Jordan) is silent at "Michael" and fires from "Jordan" on', () => {
      const { stage } = run(sampleText(file), file);
      const up = column(stage('layers.0.ffn.up'), 0);
      const act = column(stage('layers.0.ffn.act'), 0);
      assert.ok(up[0] < -0.5, `before ReLU, "Michael" alone is clearly negative: ${up[0]}`);
      assert.equal(act[0], 0, 'silent at "Michael"');
      for (let t = 1; t <= LAST; t++) assert.ok(act[t] > 0.9, `fires at token ${t}: ${act[t]}`);
    });

    it('the last token predicts basketball by a clear margin', () => {
      const { model, stage } = run(sampleText(file), file);
      const probs = row(stage('head.probs'), LAST);
      const bb = model.vocab.indexOf('basketball');
      assert.equal(argmax(probs), bb, `argmax is basketball: ${probs.join(', ')}`);
      assert.ok(probs[bb] > 0.85, `p(basketball) = ${probs[bb]}`);
      const second = Math.max(...probs.filter((_, i) => i !== bb));
      assert.ok(probs[bb] - second > 0.8, `margin ${probs[bb] - second}`);
    });

    it('replacing Jordan\'s vector by zeros breaks it: neuron 0 stays silent, music wins', () => {
      const text = sampleText(file);
      assert.match(text, JORDAN_ROW, 'the input row of "Jordan" is marked // Jordan');
      const broken = text.replace(JORDAN_ROW, '[0, 0, 0, 0, 0, 0, 0, 0],$1');
      const { model, stage } = run(broken, file);
      assert.deepEqual(row(stage('input'), 1), [0, 0, 0, 0, 0, 0, 0, 0], 'Jordan\'s row is zero');
      assert.deepEqual(column(stage('layers.0.ffn.act'), 0), [0, 0, 0, 0, 0, 0], 'neuron 0 never fires');
      const probs = row(stage('head.probs'), LAST);
      const bb = model.vocab.indexOf('basketball');
      assert.notEqual(argmax(probs), bb, 'basketball is no longer the prediction');
      assert.ok(probs[bb] < 0.1, `p(basketball) = ${probs[bb]}`);
      assert.equal(model.vocab[argmax(probs)], 'music');
    });
  });

  describe('attention-then-ffn.ffn.json (seed 000)', () => {
    const file = 'attention-then-ffn.ffn.json';
    it('is self-attention then a GELU FFN four times wider, 8 → 32 → 8', () => {
      const { model, stage } = run(sampleText(file), file);
      assert.equal(model.dims.dModel, 8);
      assert.equal(model.dims.dFf, 32);
      assert.equal(model.dims.heads, 1);
      assert.equal(model.model.spec.layers[0].ffn?.activation, 'gelu');
      assert.deepEqual(stage('layers.0.attn.weights').shape, [1, model.dims.seq, model.dims.seq]);
      assert.deepEqual(stage('layers.0.ffn.up').shape, [model.dims.seq, 32]);
    });
    it('the two "the" rows are identical at every stage (no positions)', () => {
      const { model, stage } = run(sampleText(file), file);
      const [a, b] = model.tokens.flatMap((t, i) => (t === 'the' ? [i] : []));
      assert.ok(b !== undefined, 'two "the" tokens');
      for (const id of ['input', 'layers.0.attn.out', 'layers.0.ffn.act', 'output']) {
        assert.deepEqual(row(stage(id), a), row(stage(id), b), id);
      }
    });
  });

  describe('encoder-block.ffn.json (seed 003)', () => {
    const file = 'encoder-block.ffn.json';
    it('is a post-LN block: 4 heads, causal, residual, d_model 16, d_ff 64, 6 tokens', () => {
      const { model, stage } = run(sampleText(file), file);
      assert.deepEqual([model.dims.seq, model.dims.dModel, model.dims.dFf, model.dims.heads], [6, 16, 64, 4]);
      assert.equal(model.model.spec.norm, 'post');
      assert.equal(model.model.spec.residual, true);
      const w = stage('layers.0.attn.weights');
      assert.deepEqual(w.shape, [4, 6, 6]);
      for (let h = 0; h < 4; h++) {
        for (let i = 0; i < 6; i++) {
          for (let j = i + 1; j < 6; j++) assert.equal(w.data[(h * 6 + i) * 6 + j], 0, `head ${h}: ${i} does not see ${j}`);
        }
      }
      for (const id of ['layers.0.ln1', 'layers.0.ln2', 'layers.0.ffn.residual']) stage(id);
    });
  });
});
