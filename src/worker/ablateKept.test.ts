// An ablate typed into a checkpoint's model file recomputes only what reads the unit's scale: the
// stages before layer 1's FFN come as kept, on every family of the arch cases (16-bit weights too).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultKernel } from '../core/kernel';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointStore } from '../checkpoint/store';
import type { FromWorker } from '../protocol/worker';
import { DocSession } from './session';

const REPO = resolve(__dirname, '../../..');
const CASES = join(REPO, 'test', 'fixtures', 'arch-cases');

describe('an ablate recomputes only what follows it', () => {
  for (const name of ['neox_parallel', 'gemma2_bf16', 'gemma3_f32', 'qwen3_bf16']) {
    it(name, async () => {
      const c = JSON.parse(readFileSync(join(CASES, `${name}.json`), 'utf8')) as { model: Record<string, unknown> };
      const text = JSON.stringify({ ...c.model, ablate: [] }, null, 2);
      const messages: FromWorker[] = [];
      let waiters: Array<{ test: (m: FromWorker) => boolean; resolve: () => void }> = [];
      const kernel = defaultKernel();
      const store = new CheckpointStore(nodeFiles, 2000, kernel);
      const s = new DocSession('doc', join(CASES, `${name}.ffn.json`), text, 1, (m) => {
        messages.push(m);
        waiters = waiters.filter((w) => (w.test(m) ? (w.resolve(), false) : true));
      }, () => kernel, () => 0, false, store);
      const doneOf = (v: number): Promise<void> => new Promise((res) => waiters.push({ test: (m) => m.type === 'done' && m.version === v, resolve: res }));
      try {
        s.subscribe(true);
        s.want(null);
        await doneOf(1);
        const from = messages.length;
        const at = text.indexOf('"ablate": []') + '"ablate": ['.length;
        const add = '"layers.1.ffn.neuron.3"';
        const done = doneOf(2);
        s.change(2, [{ offset: at, length: 0, text: add }], text.length + add.length);
        await done;
        const whole = messages.slice(from).filter((m) => m.type === 'stage').map((m) => (m as { id: string }).id);
        const early = whole.filter((id) => /^(input|layers\.0\.|layers\.1\.(ln1|attn))/.test(id));
        assert.deepEqual([...new Set(early)], [], `sent whole: ${[...new Set(whole)].join(' ')}`);
      } finally {
        s.dispose();
      }
    });
  }
});
