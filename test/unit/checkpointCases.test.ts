// Every PyTorch reference case of a model file that names a checkpoint (test/fixtures/checkpoint-cases,
// made by scripts/fixtures/checkpoint_cases.py): the file read, its checkpoint loaded and resolved,
// every stage within the case's tolerance, with both kernels. The stages and their order are the
// contract's; the real stories260K case keeps a subset, and its greedy continuation.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';
import { forward } from '../../src/core/forward';
import { tsKernel, type MatmulKernel } from '../../src/core/kernel';
import { createWasmKernel } from '../../src/core/wasm';
import { readModel } from '../../src/model/read';
import { compareClose } from '../helpers/compare';
import { REPO } from '../helpers/fixtures';

const DIR = join(REPO, 'test', 'fixtures', 'checkpoint-cases');

interface Case {
  description: string;
  model: Record<string, unknown>;
  expected: Record<string, { shape: number[]; data: number[] }>;
  tolerance: { abs: number; rel: number };
  greedy?: number[];
}

describe('PyTorch reference cases of checkpoints (test/fixtures/checkpoint-cases)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
  const plain = new CheckpointStore(nodeFiles);
  it('has the cases', () => assert.ok(files.length >= 8, `found ${files.length}`));
  const wasm = createWasmKernel();
  // the third: weights loaded into the kernel's memory and multiplied where they lie, as the worker and the CLI do
  const kernels: Array<[string, MatmulKernel | null, CheckpointStore]> = [
    ['ts', tsKernel, plain], ['wasm', wasm, plain],
    ['wasm, weights in its memory,', wasm, new CheckpointStore(nodeFiles, undefined, wasm!)],
  ];
  for (const f of files) {
    for (const [kname, kernel, store] of kernels) {
      it(`${f.replace('.json', '')} (${kname} kernel): every stage matches`, async function () {
        if (!kernel) this.skip();
        const c = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Case;
        const path = join(DIR, f.replace('.json', '.ffn.json'));
        const read = await resolveReadNow(readModel(JSON.stringify(c.model, null, 1), path), path, store, new CheckpointResolver());
        assert.deepEqual(read.problems.map((p) => p.message), []);
        assert.ok(read.file);
        if (store !== plain) {
          // (a matrix a `weights` entry overrides is a copy of the checkpoint's, packed as any other array)
          const overridden = new Set(Object.keys((c.model.weights ?? {}) as object).map((k) => k.replace(/\[.*$/, '')));
          for (const [id, p] of read.file.model.params) if (p.layout && !overridden.has(id)) assert.ok((p.half?.bits ?? p.data!).buffer instanceof SharedArrayBuffer, `${id} in the kernel's memory`);
          // (and multiplied as panels: the PyTorch cases check that form, overrides written into it included)
          for (const [id, p] of read.file.model.params) if (/\.W[qkvo12g]$|^head\.W$/.test(id)) assert.equal(p.layout, 'panels', id);
        }
        const stages = forward(read.file.model, kernel!);
        const subset = f.startsWith('stories260k');
        if (!subset) assert.deepEqual(stages.map((s) => s.id), Object.keys(c.expected), 'the contract\'s stages, in order');
        const byId = new Map(stages.map((s) => [s.id, s]));
        for (const [id, want] of Object.entries(c.expected)) {
          const s = byId.get(id);
          assert.ok(s, id);
          assert.deepEqual(s.shape, want.shape, `${id}: shape`);
          const msg = compareClose(s.data, want.data, c.tolerance, `${f}: ${id}`);
          assert.equal(msg, null, msg ?? '');
        }
      });
    }
  }

  it('stories260K: greedy decoding for 20 steps from BOS gives PyTorch\'s continuation', async () => {
    const c = JSON.parse(readFileSync(join(DIR, 'stories260k_once.json'), 'utf8')) as Case;
    assert.deepEqual(c.greedy!.slice(0, 9), [403, 407, 261, 378, 432, 383, 286, 261, 376]);
    const path = join(DIR, 'x.ffn.json');
    const ids = [1];
    for (let i = 0; i < 20; i++) {
      const text = JSON.stringify({ version: 1, checkpoint: '../../../samples/stories260K', token_ids: ids });
      const read = await resolveReadNow(readModel(text, path), path, plain, new CheckpointResolver());
      const logits = forward(read.file!.model).find((s) => s.id === 'head.logits')!;
      const V = logits.shape[1];
      const last = Array.from(logits.data.subarray((ids.length - 1) * V));
      ids.push(last.indexOf(Math.max(...last)));
    }
    assert.deepEqual(ids.slice(1), c.greedy);
  });
});
