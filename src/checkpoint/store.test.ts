// The store of loaded checkpoints: loaded once while it is being asked for; a failure is reported,
// then tried again (a folder downloaded after the error opens without reloading the window).
import * as assert from 'node:assert/strict';
import { memoryFiles } from './memoryFiles';
import { CheckpointStore, type Loading } from './store';

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
});
