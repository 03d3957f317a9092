// The lenses through the worker's session, as the panel and the patching command use them: a lens
// answered from the document's run; patching as a job of steps with progress, stopped by a cancel
// or by an edit of the document; compare sending differences from the baseline; and a corrupted
// input of the wrong length said at its key.
import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { tsKernel } from '../core/kernel';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointStore } from '../checkpoint/store';
import type { FromWorker, QueryResult } from '../protocol/worker';
import { DocSession } from './session';

const REPO = resolve(__dirname, '../../..');
const FILE = join(REPO, 'samples', 'lens.ffn.json');
const TEXT = `{
  "version": 1,
  "checkpoint": "./stories260K",
  "token_ids": [1, 403, 407, 261, 378],
  "corrupted_token_ids": [1, 403, 407, 261, 300],
  "ablate": []
}`;
const store = new CheckpointStore(nodeFiles);

function open(text = TEXT): { session: DocSession; messages: FromWorker[]; until: (test: (m: FromWorker) => boolean) => Promise<FromWorker> } {
  const messages: FromWorker[] = [];
  let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }> = [];
  const session = new DocSession('doc', FILE, text, 1, (m) => {
    messages.push(m);
    waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
  }, () => tsKernel, () => 0, false, store);
  session.subscribe(true);
  session.want(null); // (a panel that shows every stage)
  const until = (test: (m: FromWorker) => boolean): Promise<FromWorker> => {
    const seen = messages.find(test);
    return seen ? Promise.resolve(seen) : new Promise((res) => waiters.push({ test, resolve: res }));
  };
  return { session, messages, until };
}

function patch(session: DocSession, id: number): Promise<QueryResult> {
  return new Promise((res) => session.patch(id, { kind: 'patch', target: null, alt: null, views: 'resid' }, res));
}

describe('the lenses through the worker session', () => {
  it('answers a lens from the document\'s run (after its checkpoint is in)', async () => {
    const { session, until } = open();
    await until((m) => m.type === 'done');
    const r = session.query({ kind: 'lens', request: { kind: 'logitLens', k: 3, target: null } });
    assert.equal(r?.kind, 'lens');
    const res = (r as Extract<QueryResult, { kind: 'lens' }>).result;
    assert.equal(res.kind, 'logitLens');
    if (res.kind === 'logitLens') assert.deepEqual([res.cells.length, res.cells[0].length, res.cells[0][0].top.length], [5, 5, 3]);
    session.dispose();
  });

  it('the attribution names the heads the file switches off or scales; an ablated head writes nothing', async () => {
    const { session, until } = open(TEXT.replace('"ablate": []', '"ablate": ["layers.2.attn.head.1", "layers.3.ffn.neuron.4"], "scale": {"layers.4.attn.head.0": 2}'));
    await until((m) => m.type === 'done');
    const r = session.query({ kind: 'lens', request: { kind: 'dla', pos: null, target: null, alt: 'second' } });
    const res = (r as Extract<QueryResult, { kind: 'lens' }>).result;
    assert.equal(res.kind, 'dla');
    if (res.kind !== 'dla') return;
    assert.deepEqual(res.editedHeads, { 'layers.2.attn.head.1': 'switched off (ablate)', 'layers.4.attn.head.0': 'scaled by 2 (scale)' });
    assert.equal(res.heads[2][1], 0);
    session.dispose();
  });

  it('patching: progress as it goes, then the grid; the changed token recovers everything at layer 0', async () => {
    const { session, messages, until } = open();
    await until((m) => m.type === 'done');
    const r = await patch(session, 7);
    const res = (r as Extract<QueryResult, { kind: 'lens' }>).result;
    assert.equal(res.kind, 'patch');
    if (res.kind !== 'patch') return;
    assert.deepEqual(res.resid![0], [0, 0, 0, 0, 1]);
    const progress = messages.filter((m) => m.type === 'progress');
    assert.ok(progress.length >= 1 && progress.every((m) => m.type === 'progress' && m.id === 7 && m.total === 2 + 25), JSON.stringify(progress));
    const last = progress[progress.length - 1];
    assert.ok(last.type === 'progress' && last.done === last.total, 'the last progress is the end');
    session.dispose();
  });

  it('patching stops on a cancel, and on an edit of the document, saying why', async () => {
    const { session, until } = open();
    await until((m) => m.type === 'done');
    const p = patch(session, 8);
    session.stopJob('cancelled', 8);
    const r = (await p) as Extract<QueryResult, { kind: 'lens' }>;
    assert.deepEqual(r.result, { kind: 'error', lens: 'patch', message: 'cancelled' });
    const q = patch(session, 9);
    const at = TEXT.indexOf('"ablate": []') + '"ablate": ['.length;
    session.change(2, [{ offset: at, length: 0, text: '"layers.1.ffn.neuron.3"' }], TEXT.length + '"layers.1.ffn.neuron.3"'.length);
    const r2 = (await q) as Extract<QueryResult, { kind: 'lens' }>;
    assert.equal(r2.result.kind, 'error');
    assert.match((r2.result as { message: string }).message, /changed while patching/);
    session.dispose();
  });

  it('compare with the file without its overrides: zero differences with none, the layers after an ablated neuron move', async () => {
    const { session, messages, until } = open(TEXT.replace('"ablate": []', '"ablate": ["layers.3.ffn.neuron.10"]'));
    await until((m) => m.type === 'done');
    messages.length = 0;
    session.setCompare({ kind: 'plain' });
    const c = await until((m) => m.type === 'compare');
    assert.equal(c.type === 'compare' && c.label, 'without ablate, scale and weights');
    await until((m) => m.type === 'done');
    const stage = (id: string): Float32Array => {
      const m = messages.find((x) => x.type === 'stage' && x.id === id);
      assert.ok(m && m.type === 'stage', id);
      return new Float32Array(m.data);
    };
    assert.ok(stage('layers.2.out').every((v) => v === 0), 'before the ablated layer: no difference');
    assert.ok(stage('layers.3.ffn.act').some((v) => v !== 0), 'the ablated neuron: a difference');
    assert.ok(stage('head.logits').some((v) => v !== 0));
    session.setCompare(null);
    await until((m) => m.type === 'compare' && m.label === null);
    session.dispose();
  });

  it('a corrupted input of another length: one error at its key', async () => {
    const { until } = open(TEXT.replace('[1, 403, 407, 261, 300]', '[1, 403, 300]'));
    const m = await until((x) => x.type === 'model');
    assert.ok(m.type === 'model');
    const p = m.problems.find((x) => x.path.includes('corrupted_token_ids'));
    assert.ok(p, JSON.stringify(m.problems));
    assert.match(p.message, /gives 3 tokens, the input 5/);
    assert.equal(p.line, 5);
  });
});
