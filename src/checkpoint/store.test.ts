// The store of loaded checkpoints: loaded once while it is being asked for; a failure is reported,
// then tried again (a folder downloaded after the error opens without reloading the window).
import * as assert from 'node:assert/strict';
import { readModel } from '../model/read';
import { memoryFiles } from './memoryFiles';
import { CheckpointResolver } from './resolve';
import { CheckpointStore, resolveReadNow, type Loading } from './store';
import { checkpointFolder, tinyLlama } from './testing';

async function settled<T>(get: () => Loading<T>): Promise<Loading<T>> {
  const l = get();
  if (l.state !== 'loading') return l;
  await l.done;
  return get();
}

describe('checkpoint store', () => {
  it('reports a missing folder, then loads it once it is there', async () => {
    const files = new Map<string, Uint8Array>();
    const store = new CheckpointStore(memoryFiles(files), 30);
    const first = await settled(() => store.checkpoint('/m'));
    assert.equal(first.state, 'failed');
    assert.match((first as { message: string }).message, /no config\.json in \/m/);
    files.set('/m/config.json', new TextEncoder().encode('{"model_type": "bert"}'));
    assert.equal(store.checkpoint('/m').state, 'failed', 'at once: from the cache');
    await new Promise((r) => setTimeout(r, 40));
    const second = await settled(() => store.checkpoint('/m'));
    assert.equal(second.state, 'failed');
    assert.match((second as { message: string }).message, /model_type "bert" is not supported/, 'tried again: the new error');
    const cached = new CheckpointStore(memoryFiles(new Map()), 60_000);
    await settled(() => cached.checkpoint('/x'));
    assert.equal(cached.checkpoint('/x').state, 'failed', 'within the retry time: from the cache');
  });

  it('dynamic RoPE holds the input to max_position_embeddings (past it Hugging Face rescales every angle); without it, a Llama input is not held', async () => {
    const open = async (config: Record<string, unknown>, n: number): Promise<string[]> => {
      const ck = tinyLlama();
      const { files, folder } = checkpointFolder({ ...ck, config: { ...ck.config, ...config } });
      const text = `{"version": 1, "checkpoint": "${folder}", "token_ids": [${Array.from({ length: n }, (_, i) => i % 13).join(', ')}]}`;
      const read = await resolveReadNow(readModel(text, '/x.ffn.json'), '/x.ffn.json', new CheckpointStore(files), new CheckpointResolver());
      return read.problems.map((p) => p.message);
    };
    const dynamic = { max_position_embeddings: 4, rope_scaling: { type: 'dynamic', factor: 2 } };
    assert.deepEqual(await open(dynamic, 4), []);
    assert.deepEqual(await open(dynamic, 5), ['the input has 5 tokens; this llama model has positions for 4']);
    // default RoPE: bounded the same way (a model file from a stranger must not run 100,000 positions)
    assert.deepEqual(await open({ max_position_embeddings: 4 }, 5), ['the input has 5 tokens; this llama model has positions for 4']);
  });
});
