// Compare turned off (and on) keeps the panel's numbers right: after "nothing", every stage the
// panel holds is the model's own (not the difference from the baseline it showed a moment ago),
// as the messages build them (stage, cols, same, kept), whatever the stages kept between runs.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tsKernel } from '../core/kernel';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointStore } from '../checkpoint/store';
import type { FromWorker } from '../protocol/worker';
import { DocSession } from './session';

const REPO = resolve(__dirname, '../../..');
const CASES = join(REPO, 'test', 'fixtures', 'arch-cases');

/** The panel's numbers of each stage, built from the messages as the webview builds them. */
function panelOf(messages: readonly FromWorker[]): Map<string, Float32Array> {
  const held = new Map<string, Float32Array>();
  for (const m of messages) {
    if (m.type === 'stage') {
      const cur = m.offset === 0 ? new Float32Array(m.total) : held.get(m.id)!;
      cur.set(new Float32Array(m.data), m.offset);
      held.set(m.id, cur);
    } else if (m.type === 'cols') {
      const cur = held.get(m.id)!.slice();
      const part = new Float32Array(m.data);
      const [rows, width] = m.shape;
      for (let r = 0; r < rows; r++) m.cols.forEach((c, k) => { cur[r * width + c] = part[r * m.cols.length + k]; });
      held.set(m.id, cur);
    } else if (m.type === 'same') held.set(m.id, held.get(m.of)!);
  }
  return held;
}

describe('compare on, then off: the panel holds the model\'s own numbers', () => {
  for (const name of ['neox_parallel', 'qwen3_bf16']) {
    it(name, async () => {
      const c = JSON.parse(readFileSync(join(CASES, `${name}.json`), 'utf8')) as { model: Record<string, unknown> };
      const text = JSON.stringify({ ...c.model, ablate: ['layers.1.ffn.neuron.3'] }, null, 2);
      const messages: FromWorker[] = [];
      let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: () => void }> = [];
      const s = new DocSession('doc', join(CASES, `${name}.ffn.json`), text, 1, (m) => {
        messages.push(m);
        waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(), false) : true));
      }, () => tsKernel, () => 0, false, new CheckpointStore(nodeFiles));
      const nextDone = (): Promise<void> => new Promise((res) => waiters.push({ test: (m) => m.type === 'done', resolve: res }));
      try {
        s.subscribe(true);
        s.want(null);
        let done = nextDone();
        await done;
        const own = new Map(panelOf(messages));
        done = nextDone();
        s.setCompare({ kind: 'plain' });
        await done;
        done = nextDone();
        s.setCompare(null);
        await done;
        const panel = panelOf(messages);
        for (const [id, want] of own) {
          const got = panel.get(id)!;
          assert.deepEqual(Array.from(got), Array.from(want), `${id} after compare off`);
        }
      } finally {
        s.dispose();
      }
    });
  }
});
