// The command line as a process: the built dist/cli.js, as `npx ffn-lens` runs it.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatFloat32 } from '../../../src/common/float32';
import { compareClose } from '../../helpers/compare';
import { goldenCases, REPO } from '../../helpers/fixtures';

const CLI = join(REPO, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'ffn-cli-'));

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('ffn-lens stages (process)', () => {
  const identity = file('identity.ffn.json', `{
  "version": 1,
  "tokens": ["a", "b"],
  "input": [[1, 0, 1.5], [0, 1, 0]],
  "ffn": {
    "W1": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "b1": [0.1, 0, -0.2],
    "W2": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "b2": [-0.2, 0.1, 0.3]
  }
}`);

  it('prints the model and every stage as one JSON object; exit 0', () => {
    const r = cli('stages', identity);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    const j = JSON.parse(r.out);
    assert.deepEqual(j.model, {
      name: 'identity', seq: 2, d_model: 3, d_ff: 3, heads: 0, layers: 1, vocab: 0,
      params: { attention: 0, ffn: 24, norm: 0, head: 0, total: 24 },
    });
    assert.deepEqual(j.stages.map((s: { id: string }) => s.id), ['input', 'layers.0.ffn.up', 'layers.0.ffn.act', 'layers.0.ffn.down', 'layers.0.out', 'output']);
    const out = j.stages.find((s: { id: string }) => s.id === 'output');
    assert.deepEqual(out.shape, [2, 3]);
    // The worked example [[0.9, 0.1, 1.6], [-0.1, 1.1, 0.3]] in float32 arithmetic (PyTorch prints the same), each
    // printed as the shortest decimal that reads back as that float32.
    assert.deepEqual(out.data, [0.90000004, 0.1, 1.5999999, -0.1, 1.1, 0.3]);
  });

  it('--only keeps the named stages, in computation order', () => {
    const r = cli('stages', identity, '--only', 'output,layers.0.ffn.act');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(j.stages.map((s: { id: string }) => s.id), ['layers.0.ffn.act', 'output']);
    assert.deepEqual(j.stages[0].data, [1.1, 0, 1.3, 0.1, 1, 0]);
  });

  it('--summary prints shape and min/max/mean instead of data', () => {
    const r = cli('stages', identity, '--summary', '--only=layers.0.ffn.up');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(j.stages, [{ id: 'layers.0.ffn.up', shape: [2, 3], min: -0.2, max: 1.3, mean: 0.55 }]);
  });

  it('an invalid model: exit 1, nothing on stdout, FILE:LINE:COL: error: PATH: message on stderr', () => {
    const bad = file('bad.ffn.json', '{\n  "version": 1,\n  "input": [[1, 2], [3]],\n  "ffn": {"W1": [[1, 2]], "W2": [[1], [2]], "actvation": "relu"}\n}\n');
    const r = cli('stages', bad);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.deepEqual(r.err.trim().split('\n'), [
      `${bad}:3:21: error: input[1]: has 1 number but input[0] has 2: every row of a matrix has the same length`,
      `${bad}:4:45: warning: ffn.actvation: unknown key "actvation" in ffn: did you mean "activation"?`,
    ]);
  });

  it('a JSON syntax error is reported the same way', () => {
    const bad = file('syntax.ffn.json', '{"version": 1,\n "input": [[1, 2]]\n "ffn": {}}');
    const r = cli('stages', bad);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.match(r.err, new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:2: error: ffn: expected a comma or \\}`));
  });

  it('a reader that stops early (`| head`): no stack trace, exit 0', async () => {
    // enough output that the pipe fills before the reader goes away
    const big = file('big.ffn.json', JSON.stringify({ version: 1, input: Array.from({ length: 64 }, (_, t) => Array.from({ length: 64 }, (_, c) => ((t * 7 + c) % 13) / 13)),
      ffn: { W1: Array.from({ length: 256 }, (_, j) => Array.from({ length: 64 }, (_, c) => ((j + c) % 5) / 5 - 0.4)), W2: Array.from({ length: 64 }, (_, c) => Array.from({ length: 256 }, (_, j) => ((j * c) % 7) / 7 - 0.5)) } }));
    const child = spawn(process.execPath, [CLI, 'stages', big], { cwd: dir });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.once('data', () => child.stdout.destroy()); // as `head -c` does after its bytes
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(err, '');
    assert.equal(code, 0);
  });

  it('wrong usage: exit 2 with the usage text', () => {
    for (const args of [[], ['frobnicate'], ['stages'], ['stages', identity, '--bogus'], ['stages', identity, '--only']]) {
      const r = cli(...args);
      assert.equal(r.code, 2, `args ${JSON.stringify(args)}`);
      assert.equal(r.out, '');
      assert.match(r.err, /Usage: ffn-lens stages FILE/);
    }
  });

  it('an unknown stage id in --only: exit 2, listing the stages there are', () => {
    const r = cli('stages', identity, '--only', 'layers.0.attn.q');
    assert.equal(r.code, 2);
    assert.match(r.err, /no stage "layers.0.attn.q" in this model; its stages are:\n {2}input\n/);
  });

  it('--help prints usage on stdout, exit 0', () => {
    const r = cli('--help');
    assert.equal(r.code, 0);
    assert.match(r.out, /^Usage: ffn-lens stages FILE/);
  });

  it('a missing or unreadable file: exit 1, one clear line, no stack trace', () => {
    let r = cli('stages', join(dir, 'nope.ffn.json'));
    assert.equal(r.code, 1);
    assert.equal(r.err, `ffn-lens: cannot read ${join(dir, 'nope.ffn.json')}: no such file\n`);
    r = cli('stages', dir);
    assert.equal(r.code, 1);
    assert.equal(r.err, `ffn-lens: cannot read ${dir}: it is a directory\n`);
  });

  it('agrees with a PyTorch reference case through the process boundary', () => {
    const c = goldenCases().find((g) => g.name === 'torch_encoder_layer_pre_ln')!;
    const r = cli('stages', file('torch.ffn.json', JSON.stringify(c.model)));
    assert.equal(r.code, 0, r.err);
    const stages: Array<{ id: string; data: number[] }> = JSON.parse(r.out).stages;
    // every stage the reference has, no fewer (an empty list would compare nothing)
    assert.deepEqual(stages.map((s) => s.id).filter((id) => id in c.expected).sort(), Object.keys(c.expected).sort());
    for (const s of stages) {
      if (!(s.id in c.expected)) continue;
      const msg = compareClose(s.data, c.expected[s.id].data, c.tolerance, s.id);
      assert.equal(msg, null, msg ?? '');
    }
  });
});

describe('formatFloat32', () => {
  it('prints the shortest decimal that reads back as the same float32', () => {
    assert.equal(formatFloat32(Math.fround(0.1)), '0.1');
    assert.equal(formatFloat32(Math.fround(1.6)), '1.6');
    assert.equal(formatFloat32(Math.fround(0.90000004)), '0.90000004');
    assert.equal(formatFloat32(16777216), '16777216');
    assert.equal(formatFloat32(Math.fround(1e-45)), '1e-45');
    assert.equal(formatFloat32(NaN), 'null');
  });
});

describe('ffn-lens lens|dla|heads|patch (process)', () => {
  const stories = join(REPO, 'samples', 'stories260K.ffn.json');

  it('lens: the grid of top words per layer and token; the last layer\'s top is the prediction', () => {
    const r = cli('lens', stories, '--k', '3');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out).lens;
    assert.deepEqual([j.layers, j.top.length, j.top[0].length, j.top[0][0].length], [5, 5, 5, 3]);
    assert.equal(j.top[4][4][0][0], 432, 'after "<s> Once upon a time": ","');
    assert.ok(Math.abs(j.top[4][4][0][1] - 0.969) < 1e-3);
  });

  it('dla: the parts and the constant add up to the logit difference', () => {
    const r = cli('dla', stories, '--alt', 'second');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out).dla;
    assert.equal(j.target, 432);
    const sum = Object.values(j.components as Record<string, number>).reduce((a, b) => a + b, j.constant);
    assert.ok(Math.abs(sum - j.logit_diff) < 1e-4, `${sum} vs ${j.logit_diff}`);
    assert.equal(j.heads.length, 5);
    // the panel's default: the runner-up; none: the target's logit alone
    assert.deepEqual(JSON.parse(cli('dla', stories).out), JSON.parse(r.out));
    const alone = JSON.parse(cli('dla', stories, '--alt', 'none').out).dla;
    assert.equal(alone.alt, null);
    assert.notEqual(alone.logit_diff, j.logit_diff);
  });

  it('heads: three scores per layer and head, and the induction test', () => {
    const r = cli('heads', stories, '--repeat', '6');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out).heads;
    // stories260K's BOS (bos_token_id 1) first, then 6 ids twice
    assert.deepEqual([j.prev.length, j.prev[0].length, j.repeat.token_ids.length, j.repeat.token_ids[0]], [5, 8, 13, 1]);
    assert.deepEqual(j.repeat.token_ids.slice(1, 7), j.repeat.token_ids.slice(7));
  });

  it('patch: the share recovered per layer and token (the changed token at layer 0: all of it); without the corrupted ids, one message and exit 1; an unknown option, exit 2', () => {
    const r = cli('patch', stories, '--corrupted-ids', '1,403,407,261,300', '--views', 'resid');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out).patch;
    assert.deepEqual(j.resid[0], [0, 0, 0, 0, 1]);
    assert.equal(j.heads, null);
    const bad = cli('patch', stories);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /^ffn-lens patch: patch needs the corrupted input/);
    assert.doesNotMatch(bad.err, /\n\s+at /, 'no stack trace');
    // the model file's own corrupted input, as the panel patches it
    const own = file('own-corrupted.ffn.json', readFileSync(stories, 'utf8').replace('"token_ids"', '"corrupted_token_ids": [1, 403, 407, 261, 300], "token_ids"').replace('"./stories260K"', JSON.stringify(join(REPO, 'samples', 'stories260K'))));
    const o = cli('patch', own, '--views', 'resid');
    assert.equal(o.code, 0, o.err);
    assert.deepEqual(JSON.parse(o.out).patch, j);
    const usage = cli('lens', stories, '--nope');
    assert.equal(usage.code, 2);
    assert.match(usage.err, /unknown option "--nope" for lens/);
  });

  it('--threads N: every stage the same on 1 thread and on 2 (0: every core); not a whole number, exit 2 saying so', () => {
    const one = cli('stages', stories, '--threads', '1');
    assert.equal(one.code, 0, one.err);
    for (const n of ['2', '0']) {
      const r = cli('stages', stories, `--threads=${n}`);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, one.out, `--threads ${n}`);
    }
    for (const bad of [['--threads', 'all'], ['--threads'], ['--threads=-1']]) {
      const r = cli('stages', stories, ...bad);
      assert.equal(r.code, 2, bad.join(' '));
      assert.match(r.err, /--threads needs a whole number of threads \(0: every core\), got (nothing|"all"|"-1")/);
    }
  });

  it('stages --npy DIR writes each stage as a .npy file numpy reads', () => {
    const out = join(dir, 'npy');
    const r = cli('stages', stories, '--summary', '--only', 'head.logits', '--npy', out);
    assert.equal(r.code, 0, r.err);
    const b = readFileSync(join(out, 'head.logits.npy'));
    assert.deepEqual([...b.subarray(0, 6)], [0x93, 78, 85, 77, 80, 89]);
    assert.match(b.subarray(10, 10 + b[8]).toString('latin1'), /'shape': \(5, 512\)/);
  });

  it('stages --npy into a folder that cannot be made: one line and exit 1, at once (Node\'s recursive mkdir loops forever on /proc)', () => {
    const r = cli('stages', stories, '--summary', '--npy', '/proc/ffn-lens-npy/out');
    assert.equal(r.code, 1);
    assert.equal(r.err, 'ffn-lens: cannot write the .npy files into /proc/ffn-lens-npy/out: ENOENT\n');
  });
});

describe('ffn-lens stages: hostile checkpoints (process)', () => {
  // stories260K's own tensors beside a config.json that lies, and inputs far past what memory holds
  const sample = join(REPO, 'samples', 'stories260K');
  const config = JSON.parse(readFileSync(join(sample, 'config.json'), 'utf8')) as Record<string, unknown>;
  const folder = (name: string, over: Record<string, unknown>): void => {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(join(dir, name, 'config.json'), JSON.stringify({ ...config, ...over }));
    copyFileSync(join(sample, 'model.safetensors'), join(dir, name, 'model.safetensors'));
  };

  it('num_hidden_layers 1e8: one line at the checkpoint key naming both numbers, exit 1 (not the process run out of memory)', () => {
    folder('layers1e8', { num_hidden_layers: 1e8 });
    const f = file('layers1e8.ffn.json', '{"version": 1, "checkpoint": "./layers1e8", "token_ids": [1, 403]}');
    const r = cli('stages', f);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.equal(r.err, `${f}:1:30: error: checkpoint: config.json says num_hidden_layers 100,000,000, but the tensors hold 5 layers (model.layers.0 … model.layers.4)\n`);
  });

  it('20,000 token ids: one line at token_ids, the positions the model has, exit 1 (not an allocation failure)', () => {
    const f = file('long.ffn.json', `{"version": 1, "checkpoint": ${JSON.stringify(sample)}, "token_ids": [${Array.from({ length: 20_000 }, () => 1).join(',')}]}`);
    const r = cli('stages', f);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    // (the positions come first: a RoPE model is bounded by max_position_embeddings too; the bound
    // by memory, for inputs within them, is resolve.test.ts's)
    assert.match(r.err, /^[^\n]+:1:\d+: error: token_ids: the input has 20000 tokens; this llama model has positions for 512\n$/);
  });
});
