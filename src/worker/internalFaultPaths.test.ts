// A fault nothing foresaw inside the work the worker does after a load (the forward, a lens,
// activation patching, generation) reaches the user as "internal error in <step>" with the engine's
// text bounded after it and where to report it: never the bare TypeError text, never a stack; and
// the worker goes on (the next run, once the fault is gone, computes). The fault is a kernel whose
// products throw while armed.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointStore } from '../checkpoint/store';
import { ISSUES_URL } from '../common/faultText';
import { tsKernel } from '../core/kernel';
import type { MatmulKernel } from '../core/matmulKernel';
import type { FromWorker, QueryResult } from '../protocol/worker';
import { FIXTURES } from '../../test/helpers/fixtures';
import { DocSession } from './session';

const REPO = resolve(__dirname, '../../..');
const store = new CheckpointStore(nodeFiles);
/** What the armed kernel throws: an engine's text with a line after it, as a stack would have. */
const FAULT = 'Cannot read properties of undefined (reading \'length\')\n    at matmul (kernel.ts:1:1)';

/** tsKernel, whose products throw a TypeError while `armed.on`. */
function faultyKernel(armed: { on: boolean }): MatmulKernel {
  return new Proxy(tsKernel, {
    get(t, k) {
      const v = Reflect.get(t, k) as unknown;
      if (typeof v !== 'function') return v;
      if (k === 'matmul' || k === 'matmulHeads' || k === 'matmulColumns') {
        return (...args: unknown[]) => {
          if (armed.on) throw new TypeError(FAULT);
          return (v as (...a: unknown[]) => unknown).apply(t, args);
        };
      }
      return (v as (...a: unknown[]) => unknown).bind(t);
    },
  });
}

function open(file: string, text: string, armed: { on: boolean }): { session: DocSession; messages: FromWorker[]; until: (test: (m: FromWorker) => boolean) => Promise<FromWorker> } {
  const messages: FromWorker[] = [];
  let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }> = [];
  const kernel = faultyKernel(armed);
  const session = new DocSession('doc', file, text, 1, (m) => {
    messages.push(m);
    waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
  }, () => kernel, () => 0, false, store);
  session.subscribe(true);
  session.want(null);
  const until = (test: (m: FromWorker) => boolean): Promise<FromWorker> => {
    const seen = messages.find(test);
    return seen ? Promise.resolve(seen) : new Promise((res) => waiters.push({ test, resolve: res }));
  };
  return { session, messages, until };
}

/** Our words, the step named, the engine's first line only, where to report it. */
function assertSaidAsOurs(message: string, step: string): void {
  assert.ok(message.includes(`internal error in ${step} (Cannot read properties of undefined (reading 'length')); please report it: ${ISSUES_URL}`), message);
  assert.ok(!/\n|at matmul|kernel\.ts|TypeError/.test(message), `no stack, no error class: ${message}`);
}

const LENS_FILE = join(REPO, 'samples', 'lens.ffn.json');
const LENS_TEXT = '{"version": 1, "checkpoint": "./stories260K", "token_ids": [1, 403, 407, 261, 378], "corrupted_token_ids": [1, 403, 407, 261, 300]}';

describe('a fault of ours after the load, said as one (internal error in <step>)', () => {
  it('in the forward: the model message says so at the file\'s top, and the next edit computes', async () => {
    const armed = { on: true };
    const { session, until } = open(LENS_FILE, LENS_TEXT, armed);
    const m = await until((x) => x.type === 'model' && x.summary === null && x.problems.length > 0);
    assert.equal(m.type, 'model');
    if (m.type !== 'model') return;
    assert.equal(m.problems.length, 1);
    assert.ok(m.problems[0].message.startsWith('FFN Lens could not compute this model: '), m.problems[0].message);
    assertSaidAsOurs(m.problems[0].message, 'its forward');
    armed.on = false;
    const at = LENS_TEXT.indexOf('378');
    session.change(2, [{ offset: at, length: 3, text: '379' }], LENS_TEXT.length);
    await until((x) => x.type === 'done' && x.version === 2);
    session.dispose();
  });

  it('in a lens: the lens\'s answer says so, and the lens answers once the fault is gone', async () => {
    const armed = { on: false };
    const { session, until } = open(LENS_FILE, LENS_TEXT, armed);
    await until((x) => x.type === 'done');
    armed.on = true;
    const r = session.query({ kind: 'lens', request: { kind: 'logitLens', k: 3, target: null } });
    assert.ok(r?.kind === 'lens' && r.result.kind === 'error', JSON.stringify(r));
    if (r?.kind === 'lens' && r.result.kind === 'error') assertSaidAsOurs(r.result.message, 'the logit lens');
    armed.on = false;
    const again = session.query({ kind: 'lens', request: { kind: 'logitLens', k: 3, target: null } });
    assert.equal(again?.kind === 'lens' && again.result.kind, 'logitLens');
    session.dispose();
  });

  it('in activation patching: the job ends with the message (no answer of numbers)', async () => {
    const armed = { on: false };
    const { session, until } = open(LENS_FILE, LENS_TEXT, armed);
    await until((x) => x.type === 'done');
    armed.on = true;
    const r = await new Promise<QueryResult>((res) => session.patch(7, { kind: 'patch', target: null, alt: null, views: 'resid' }, res));
    assert.ok(r?.kind === 'lens' && r.result.kind === 'error', JSON.stringify(r));
    if (r?.kind === 'lens' && r.result.kind === 'error') assertSaidAsOurs(r.result.message, 'activation patching');
    session.dispose();
  });

  it('in generation: it ends as an error with the message', async () => {
    const dir = join(FIXTURES, 'generate-cases');
    const c = JSON.parse(readFileSync(join(dir, 'llama_sampled_ablate.json'), 'utf8')) as { model: object };
    const armed = { on: false };
    const { session, messages, until } = open(join(dir, 'case.ffn.json'), JSON.stringify(c.model, null, 1), armed);
    await until((x) => x.type === 'done');
    armed.on = true;
    session.generate(true);
    const end = await until((x) => x.type === 'generation' && x.event === 'end');
    assert.ok(end.type === 'generation' && end.event === 'end');
    if (end.type === 'generation' && end.event === 'end') {
      assert.equal(end.reason, 'error');
      assertSaidAsOurs(end.message ?? '', 'generating');
    }
    assert.equal(messages.filter((x) => x.type === 'generation' && x.event === 'token').length, 0, 'no token made');
    session.dispose();
  });
});
