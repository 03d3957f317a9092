// Generation through the worker's session, as a panel drives it: `generate` on posts the start,
// each token with its top-k (the CLI's tokens, which equal PyTorch's), and the end; an edit stops
// it and the edited text's run starts it again on the new model; off (Cancel) stops it; a file
// that does not read as a model says so.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsKernel } from '../core/kernel';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointStore } from '../checkpoint/store';
import type { GenerationMessage } from '../protocol/generation';
import type { FromWorker } from '../protocol/worker';
import { FIXTURES } from '../../test/helpers/fixtures';
import { DocSession } from './session';

const DIR = join(FIXTURES, 'generate-cases');
const FILE = join(DIR, 'case.ffn.json');
const store = new CheckpointStore(nodeFiles);

type Gen = Extract<FromWorker, { type: 'generation' }>;
const isGen = (m: FromWorker): m is Gen => m.type === 'generation';

function open(text: string): { session: DocSession; messages: FromWorker[]; until: (test: (m: FromWorker) => boolean) => Promise<FromWorker> } {
  const messages: FromWorker[] = [];
  let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }> = [];
  const session = new DocSession('doc', FILE, text, 1, (m) => {
    messages.push(m);
    waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
  }, () => tsKernel, () => 0, false, store);
  const until = (test: (m: FromWorker) => boolean): Promise<FromWorker> => {
    const seen = messages.find(test);
    return seen ? Promise.resolve(seen) : new Promise((res) => waiters.push({ test, resolve: res }));
  };
  return { session, messages, until };
}

const ends = (ms: FromWorker[], version: number): Array<Extract<GenerationMessage, { event: 'end' }>> =>
  ms.filter(isGen).filter((m): m is Extract<GenerationMessage, { event: 'end' }> => m.event === 'end' && m.version === version);

describe('generation through the worker session', () => {
  const c = JSON.parse(readFileSync(join(DIR, 'llama_sampled_ablate.json'), 'utf8')) as { model: object; steps: Array<{ id: number; top: Array<{ id: number; p: number; q: number }> }> };
  const text = JSON.stringify(c.model, null, 1);

  it('on: start, every token with its top-k and progress, then the end; PyTorch\'s tokens', async () => {
    const { session, messages, until } = open(text);
    await until((m) => m.type === 'done');
    session.generate(true);
    await until((m) => isGen(m) && m.event === 'end');
    const gen = messages.filter(isGen);
    assert.equal(gen[0].event, 'start');
    const tokens = gen.filter((m): m is Extract<GenerationMessage, { event: 'token' }> => m.event === 'token');
    assert.deepEqual(tokens.map((m) => m.token.id), c.steps.map((s) => s.id));
    assert.deepEqual(tokens.map((m) => m.done), c.steps.map((_, i) => i + 1));
    tokens.forEach((m, i) => m.token.top.forEach((a, j) => assert.ok(Math.abs(a.q! - c.steps[i].top[j].q) < 1e-5)));
    const [end] = ends(messages, 1);
    assert.deepEqual([end.reason, end.message, end.note], ['done', null, null]);
    assert.equal(end.text, c.steps.map((s) => `#${s.id}`).join(''), 'no tokenizer: the labels');
    session.dispose();
  });

  it('an edit stops it and the edited text generates again; off (Cancel) stops it', async () => {
    const { session, messages, until } = open(text);
    await until((m) => m.type === 'done');
    session.generate(true);
    // (its start, posted before its first slice: a tiny model's 24 tokens can all come in one
    // slice, so waiting for a token could find the generation already done)
    await until((m) => isGen(m) && m.event === 'start');
    // the seed changed (same length: a digit): the generation of version 1 ends, version 2's begins
    const at = text.indexOf('12345');
    session.change(2, [{ offset: at, length: 5, text: '54321' }], text.length);
    await until((m) => isGen(m) && m.event === 'end' && m.version === 2);
    assert.equal(ends(messages, 1)[0].reason, 'changed');
    const v2 = messages.filter(isGen).filter((m) => m.version === 2 && m.event === 'token').map((m) => (m as Extract<GenerationMessage, { event: 'token' }>).token.id);
    assert.equal(v2.length, 24);
    assert.notDeepEqual(v2, c.steps.map((s) => s.id), 'another seed, another text');
    session.generate(true);
    await until((m) => isGen(m) && m.event === 'token' && m.version === 2 && m.done === 1 && messages.filter((x) => isGen(x) && x.event === 'start').length === 3);
    session.generate(false);
    const last = ends(messages, 2).at(-1)!;
    assert.equal(last.reason, 'cancelled');
    session.dispose();
  });

  it('a file that does not read as a model says so', async () => {
    const { session, messages, until } = open('{ "version": 1, "checkpoint": "./nowhere" ');
    await until((m) => m.type === 'model');
    session.generate(true);
    const [end] = ends(messages, -1);
    assert.equal(end.reason, 'error');
    assert.match(end.message!, /the file does not read as a model/);
    session.dispose();
  });
});
