// Each generated token's stages, as the panel is sent them (ToWorker `showGenerated`, once the
// generation ended): a render of the input and the generated tokens whose every stage equals, bit
// for bit, what `ffn-lens stages` prints for a model file whose input is those tokens; nothing of
// them while generating; the input's run again when asked; an edit's run is the input's.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultKernel } from '../core/kernel';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointStore } from '../checkpoint/store';
import type { FromWorker } from '../protocol/worker';
import { FIXTURES, REPO } from '../../test/helpers/fixtures';
import { DocSession } from './session';

const DIR = join(FIXTURES, 'generate-cases');
const CLI = join(REPO, 'dist', 'cli.js');
const store = new CheckpointStore(nodeFiles);
const tmp = mkdtempSync(join(tmpdir(), 'ffn-genseq-'));

type Msg<K extends FromWorker['type']> = Extract<FromWorker, { type: K }>;

function open(text: string): { session: DocSession; messages: FromWorker[]; until: (test: (m: FromWorker) => boolean) => Promise<FromWorker> } {
  const messages: FromWorker[] = [];
  let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }> = [];
  const session = new DocSession('doc', join(DIR, 'case.ffn.json'), text, 1, (m) => {
    messages.push(m);
    waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
  }, () => defaultKernel(), () => 0, false, store);
  const until = (test: (m: FromWorker) => boolean): Promise<FromWorker> => {
    const seen = messages.find(test);
    return seen ? Promise.resolve(seen) : new Promise((res) => waiters.push({ test, resolve: res }));
  };
  return { session, messages, until };
}

/** The stages of the render that begins at `messages[from]` (a model message), as the panel puts them together. */
function rendered(messages: readonly FromWorker[], from: number): { model: Msg<'model'>; stages: Map<string, { shape: readonly number[]; data: Float32Array }> } {
  const model = messages[from] as Msg<'model'>;
  const stages = new Map<string, { shape: readonly number[]; data: Float32Array }>();
  for (const m of messages.slice(from + 1)) {
    if (m.type === 'done') break;
    if (m.type === 'stage') {
      const s = stages.get(m.id) ?? { shape: m.shape, data: new Float32Array(m.total) };
      s.data.set(new Float32Array(m.data), m.offset);
      stages.set(m.id, s);
    } else if (m.type === 'same') stages.set(m.id, stages.get(m.of)!);
    else assert.ok(m.type === 'top' || m.type === 'runtime', `a ${m.type} message in a render of every stage in full`);
  }
  return { model, stages };
}

/** `ffn-lens stages` of the case's model with `ids` as its input. */
function cliStages(model: Record<string, unknown>, ids: readonly number[]): Map<string, { shape: number[]; data: number[] }> {
  const path = join(tmp, 'sequence.ffn.json');
  writeFileSync(path, JSON.stringify({ ...model, checkpoint: join(DIR, model.checkpoint as string), token_ids: ids, generate: undefined }));
  const r = spawnSync(process.execPath, [CLI, 'stages', path], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as { stages: Array<{ id: string; shape: number[]; data: number[] }> };
  return new Map(j.stages.map((s) => [s.id, s]));
}

for (const name of ['llama_sampled_ablate', 'gpt2_greedy']) {
  describe(`each generated token's stages (${name})`, () => {
    const c = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as { model: Record<string, unknown> & { token_ids: number[] }; steps: Array<{ id: number }> };
    const text = JSON.stringify(c.model, null, 1);

    it('once generation ends, asked: a render of the input and the generated tokens, every stage as ffn-lens stages prints it', async () => {
      const { session, messages, until } = open(text);
      session.subscribe(true);
      session.want(null);
      await until((m) => m.type === 'done');
      session.generate(true);
      await until((m) => m.type === 'generation' && m.event === 'end');
      assert.equal(messages.filter((m) => m.type === 'model').length, 1, 'nothing but the generation\'s messages while generating');
      const from = messages.length;
      session.showGenerated(1, true);
      await until((m) => m.type === 'done' && messages.indexOf(m) > from);
      const { model, stages } = rendered(messages, from);
      const ids = [...c.model.token_ids, ...c.steps.map((s) => s.id)];
      assert.equal(model.version, 1);
      assert.deepEqual(model.summary?.generated, { input: c.model.token_ids.length });
      assert.equal(model.summary?.T, ids.length);
      assert.equal(model.summary?.tokens.length, ids.length);
      const cli = cliStages(c.model, ids);
      let compared = 0;
      for (const [id, want] of cli) {
        const got = stages.get(id);
        assert.ok(got, `the render has ${id}`);
        assert.deepEqual(got.shape, want.shape, id);
        for (let i = 0; i < want.data.length; i++) if (Math.fround(want.data[i]) !== got.data[i]) assert.fail(`${id}[${i}]: ${got.data[i]}, ffn-lens stages ${want.data[i]}`);
        compared++;
      }
      assert.ok(compared >= 20 && ['layers.0.attn.q', 'layers.1.attn.weights', 'layers.1.ffn.act', 'head.logits'].every((id) => cli.has(id)), `${compared} stages compared`);
      // the panel says again what it shows (its cards built anew): it holds every stage, nothing goes
      const held = messages.length;
      session.want(null);
      assert.deepEqual(messages.slice(held).map((m) => m.type), []);
      // off: the input's run again, in full
      const back = messages.length;
      session.showGenerated(1, false);
      const again = rendered(messages, back);
      assert.equal(again.model.summary?.generated, undefined);
      assert.equal(again.model.summary?.T, c.model.token_ids.length);
      session.dispose();
    });

    it('asked for a text that changed since, or before the generation ended: nothing', async () => {
      const { session, messages, until } = open(text);
      session.subscribe(true);
      await until((m) => m.type === 'done');
      const n = messages.filter((m) => m.type === 'model').length;
      session.generate(true);
      session.showGenerated(1, true); // (begun, not ended: its first slice comes after this)
      await until((m) => m.type === 'generation' && m.event === 'end');
      session.showGenerated(0, true); // (another version)
      assert.equal(messages.filter((m) => m.type === 'model').length, n);
      session.dispose();
    });
  });
}
