// Files in memory: sizes, ranged reads as views, a missing file or a read past the end as a
// CheckpointError, and a map read live; symbolic links followed, and located.
import * as assert from 'node:assert/strict';
import { CheckpointError } from './errors';
import { memoryFiles } from './memoryFiles';

describe('checkpoint files in memory', () => {
  const bytes = Uint8Array.from({ length: 10 }, (_, i) => i * 3);
  const map = new Map([['/m/a.bin', bytes]]);
  const files = memoryFiles(map);

  it('gives sizes, null for a missing file', async () => {
    assert.equal(await files.size('/m/a.bin'), 10);
    assert.equal(await files.size('/m/b.bin'), null);
  });

  it('reads the whole file, from an offset, or a range, as views of the same bytes', async () => {
    assert.deepEqual(Array.from(await files.read('/m/a.bin')), Array.from(bytes));
    assert.deepEqual(Array.from(await files.read('/m/a.bin', 7)), [21, 24, 27]);
    const r = await files.read('/m/a.bin', 2, 5);
    assert.deepEqual(Array.from(r), [6, 9, 12]);
    assert.equal(r.buffer, bytes.buffer, 'a view');
    assert.equal(r.byteOffset, 2);
  });

  it('a missing file or a range past the end is a CheckpointError naming the file', async () => {
    await assert.rejects(files.read('/m/b.bin'), (e: unknown) => e instanceof CheckpointError && e.message === '/m/b.bin is missing' && e.file === '/m/b.bin');
    await assert.rejects(files.read('/m/a.bin', 4, 12), (e: unknown) => e instanceof CheckpointError && /ended at byte 10, before 12/.test(e.message));
  });

  it('reads the map live, and joins with one slash', async () => {
    const live = new Map<string, Uint8Array>();
    const f = memoryFiles(live);
    assert.equal(await f.size('/x/c'), null);
    live.set('/x/c', new Uint8Array(4));
    assert.equal(await f.size('/x/c'), 4);
    assert.equal(f.join('/x/', 'c'), '/x/c');
    assert.equal(f.join('/x', 'c'), '/x/c');
  });

  it('follows symbolic links (absolute, relative, a folder on the way) when reading, and says where a name really is', async () => {
    const f = memoryFiles(new Map([['/m/a.bin', bytes], ['/x/b.bin', bytes.subarray(0, 4)]]), new Map([['/m/link.bin', 'a.bin'], ['/m/out', '/x'], ['/m/up.bin', '../x/b.bin'], ['/m/loop', 'loop']]));
    assert.equal(await f.size('/m/link.bin'), 10);
    assert.deepEqual(Array.from(await f.read('/m/out/b.bin')), [0, 3, 6, 9]);
    assert.deepEqual(await f.locate('/m', 'link.bin'), { kind: 'found', root: '/m', real: '/m/a.bin' });
    assert.deepEqual(await f.locate('/m', 'up.bin'), { kind: 'found', root: '/m', real: '/x/b.bin' });
    assert.deepEqual(await f.locate('/m', 'out/b.bin'), { kind: 'found', root: '/m', real: '/x/b.bin' });
    assert.deepEqual(await f.locate('/m', 'none.bin'), { kind: 'missing' });
    assert.deepEqual(await f.locate('/m', 'loop'), { kind: 'missing' });
    assert.deepEqual(await f.locate('/none', 'a.bin'), { kind: 'missing' });
  });
});
