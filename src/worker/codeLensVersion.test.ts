// The code lenses' dead-neuron counts name the run they are of: asked while the run of the
// current text is under way, the answer says it is stale (the host waits for the run), and after
// the run's `runtime` message the counts are the new text's.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tsKernel } from '../core/kernel';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointStore } from '../checkpoint/store';
import type { FromWorker, QueryResult } from '../protocol/worker';
import { DocSession } from './session';

const REPO = resolve(__dirname, '../../..');
const FILE = join(REPO, 'samples', 'michael-jordan.ffn.json');

type Lenses = Extract<QueryResult, { kind: 'codeLenses' }>;
const visualize = (r: QueryResult | null): string => (r as Lenses).codeLenses.map((l) => l.title).find((t) => t.startsWith('Visualize layer 0')) ?? '';

describe('code lenses and the run they are of', () => {
  it('an answer of an earlier run is marked stale; after the new run\'s runtime message, the new counts', async () => {
    const text = readFileSync(FILE, 'utf8');
    const messages: FromWorker[] = [];
    let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: () => void }> = [];
    const session = new DocSession('doc', FILE, text, 1, (m) => {
      messages.push(m);
      waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(), false) : true));
    }, () => tsKernel, () => 0, false, new CheckpointStore(nodeFiles));
    const until = (test: (m: FromWorker) => boolean): Promise<void> => (messages.some(test) ? Promise.resolve() : new Promise((res) => waiters.push({ test, resolve: res })));
    try {
      await until((m) => m.type === 'runtime' && m.version === 1);
      const first = session.query({ kind: 'codeLenses' }) as Lenses;
      assert.equal(first.stale, false);
      assert.equal(visualize(first), 'Visualize layer 0 FFN · 2 of 4 neurons dead');
      const at = text.indexOf('[-3, -1, -1, -0.5]');
      session.change(2, [{ offset: at, length: '[-3, -1, -1, -0.5]'.length, text: '[10, 10, 10, 10]' }], text.length - 2);
      const during = session.query({ kind: 'codeLenses' }) as Lenses;
      assert.equal(during.version, 2);
      assert.equal(during.stale, true, 'the counts are of version 1');
      await until((m) => m.type === 'runtime' && m.version === 2);
      const after = session.query({ kind: 'codeLenses' }) as Lenses;
      assert.equal(after.stale, false);
      assert.equal(visualize(after), 'Visualize layer 0 FFN · 0 of 4 neurons dead');
    } finally {
      session.dispose();
    }
  });
});
