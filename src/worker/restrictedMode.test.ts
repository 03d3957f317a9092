// Workspace Trust through the worker's body: the host's `config` says Restricted Mode (the
// workspace's folders); a model file naming a checkpoint outside them gets the refusal at its
// `checkpoint` key, a hand-written one computes; trust granted (`restrictedTo` null), the same file
// is read again and computed, with no edit.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nodeFiles } from '../checkpoint/nodeFiles';
import type { FromWorker, ToWorker } from '../protocol/worker';
import { unbatch } from './postBatch';
import { runWorker } from './workerMain';

const REPO = resolve(__dirname, '../../..');
const SAMPLES = join(REPO, 'samples');

describe('Restricted Mode in the worker', () => {
  const messages: FromWorker[] = [];
  let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }> = [];
  let send: (m: ToWorker) => void = () => undefined;
  const next = (test: (m: FromWorker) => boolean): Promise<FromWorker> => {
    const seen = messages.find(test);
    return seen ? Promise.resolve(seen) : new Promise((res) => waiters.push({ test, resolve: res }));
  };
  before(() => runWorker({
    post: (b) => {
      for (const m of unbatch(b)) {
        messages.push(m);
        waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
      }
    },
    onMessage: (h) => void (send = h),
    files: nodeFiles,
    readFile: async () => new Uint8Array(),
  }));
  after(() => ['ck', 'hand'].forEach((doc) => send({ type: 'close', doc })));

  it('refuses a checkpoint outside the workspace at its key, computes a hand-written file, and computes the checkpoint once trust is granted', async () => {
    send({ type: 'config', debounceMs: 0, restrictedTo: [join(REPO, 'test')] });
    const text = '{"version": 1, "checkpoint": "./stories260K", "token_ids": [1, 403, 407]}';
    send({ type: 'open', doc: 'ck', fileName: join(SAMPLES, 'restricted.ffn.json'), version: 1, text });
    const refused = await next((m) => m.type === 'model' && m.doc === 'ck' && m.problems.length > 0);
    assert.ok(refused.type === 'model');
    assert.deepEqual(refused.problems.map((p) => [p.path, p.message]), [['checkpoint', `the checkpoint folder "${join(SAMPLES, 'stories260K')}" is outside the workspace: in Restricted Mode FFN Lens reads only files inside the workspace (trust the workspace to open it)`]]);
    assert.equal(refused.summary, null);

    send({ type: 'open', doc: 'hand', fileName: join(SAMPLES, 'identity-weights.ffn.json'), version: 1, text: readFileSync(join(SAMPLES, 'identity-weights.ffn.json'), 'utf8') });
    const hand = await next((m) => m.type === 'model' && m.doc === 'hand');
    assert.ok(hand.type === 'model' && hand.summary !== null && hand.problems.length === 0, 'a hand-written model computes in Restricted Mode');

    messages.length = 0;
    send({ type: 'config', debounceMs: 0, restrictedTo: null });
    const trusted = await next((m) => m.type === 'model' && m.doc === 'ck' && m.summary !== null);
    assert.ok(trusted.type === 'model');
    assert.deepEqual(trusted.problems, []);
    assert.equal(trusted.version, 1, 'the same version, read again');
  });
});
