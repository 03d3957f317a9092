// `ffn-lens generate` against PyTorch (test/fixtures/generate-cases, made by
// scripts/fixtures/generate_cases.py): greedy and seeded sampling on the tiny GPT-2-, Llama- and
// Qwen2-shaped checkpoints, with and without ablate / scale / weights, token for token, each
// alternative's probabilities within 1e-5; and mulberry32 (src/core/rng.ts) = the Python one.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../core/rng';
import { FIXTURES } from '../../test/helpers/fixtures';
import { run } from './main';

const DIR = join(FIXTURES, 'generate-cases');

interface Alt { id: number; p: number; q?: number }
interface Case { description: string; model: Record<string, unknown>; steps: Array<{ id: number; top: Alt[] }>; tolerance: { p: number; q: number } }
interface Printed { generate: { prompt: Array<{ id: number }>; steps: Array<{ id: number; text: string; top: Alt[] }>; ids: number[]; note: string | null } }

async function cli(argv: string[], text: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s) }, () => text);
  return { code, out, err };
}

describe('ffn-lens generate against PyTorch (test/fixtures/generate-cases)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json') && f !== 'rng.json').sort();
  it('has the cases', () => assert.ok(files.length >= 6, `found ${files.length}`));
  for (const f of files) {
    it(`${f.replace('.json', '')}: every token, its top-k and their probabilities`, async () => {
      const c = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Case;
      const r = await cli(['generate', join(DIR, 'case.ffn.json')], JSON.stringify(c.model));
      assert.equal(r.err, '');
      assert.equal(r.code, 0);
      const g = (JSON.parse(r.out) as Printed).generate;
      assert.deepEqual(g.prompt.map((t) => t.id), c.model.token_ids);
      assert.deepEqual(g.ids, c.steps.map((s) => s.id), `${c.description}: the tokens`);
      assert.equal(g.note, null);
      c.steps.forEach((want, i) => {
        const got = g.steps[i];
        assert.equal(got.id, want.id);
        assert.deepEqual(got.top.map((a) => a.id), want.top.map((a) => a.id), `step ${i}: the top-k in order`);
        want.top.forEach((a, j) => {
          assert.ok(Math.abs(got.top[j].p - a.p) <= c.tolerance.p, `step ${i} #${j} p ${got.top[j].p}, PyTorch ${a.p}`);
          if (a.q === undefined) assert.equal(got.top[j].q, undefined);
          else assert.ok(Math.abs(got.top[j].q! - a.q) <= c.tolerance.q, `step ${i} #${j} q ${got.top[j].q}, PyTorch ${a.q}`);
        });
      });
    });
  }

  it('mulberry32: the same numbers as the Python written from it', () => {
    const want = JSON.parse(readFileSync(join(DIR, 'rng.json'), 'utf8')) as { seeds: Array<{ seed: number; values: number[] }> };
    for (const { seed, values } of want.seeds) {
      const next = rng(seed);
      assert.deepEqual(values.map(() => next()), values, `seed ${seed}`);
    }
  });

  it('options override the file; bad options and models that cannot generate are said plainly', async () => {
    const c = JSON.parse(readFileSync(join(DIR, 'gpt2_greedy.json'), 'utf8')) as Case;
    const path = join(DIR, 'case.ffn.json');
    const text = JSON.stringify(c.model);
    const short = await cli(['generate', path, '--tokens', '3', '--top-k', '2'], text);
    const g = (JSON.parse(short.out) as Printed).generate;
    assert.deepEqual(g.ids, c.steps.slice(0, 3).map((s) => s.id));
    assert.equal(g.steps[0].top.length, 2);
    const bad = await cli(['generate', path, '--temperature', '-1'], text);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^ffn-lens generate: --temperature needs a number from 0, not "-1"\n$/);
    // positions: gpt2-tiny has 32; 5 input tokens leave 28 to generate
    const long = await cli(['generate', path, '--tokens', '40'], text);
    const gl = (JSON.parse(long.out) as Printed).generate;
    assert.equal(gl.ids.length, 28);
    assert.match(gl.note!, /positions for 32 tokens: generation stopped after 28 of the 40/);
    const inFile = await cli(['generate', path], JSON.stringify({ ...c.model, generate: { tokens: 40 } }));
    assert.equal(inFile.code, 0);
    assert.match(inFile.err, /warning: generate\.tokens: asks for 40: after the input's 5 tokens this gpt2 model has positions for 28 more; generation stops there\n$/);
    const written = await cli(['generate', path], JSON.stringify({ version: 1, input: [[1, 0], [0, 1]], ffn: { W1: [[1, 0]], W2: [[1], [0]] } }));
    assert.equal(written.code, 1);
    assert.match(written.err, /generation needs a model that reads token ids \(a checkpoint\)/);
  });
});
