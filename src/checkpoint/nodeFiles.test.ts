// Files on disk: sizes (null for a missing file or a folder), ranged reads into a fresh buffer
// (byteOffset 0, so an F32 tensor can be a view), a missing or truncated file as a CheckpointError,
// where a name really is (links followed).
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from './errors';
import { nodeFiles } from './nodeFiles';

describe('checkpoint files on disk', () => {
  let dir = '';
  const bytes = Uint8Array.from({ length: 100 }, (_, i) => (i * 7) & 0xff);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ffn-lens-files-'));
    writeFileSync(join(dir, 'a.bin'), bytes);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives sizes: null for a missing file and for a folder', async () => {
    assert.equal(await nodeFiles.size(join(dir, 'a.bin')), 100);
    assert.equal(await nodeFiles.size(join(dir, 'none.bin')), null);
    assert.equal(await nodeFiles.size(dir), null);
  });

  it('reads the whole file, from an offset, or a range, each into its own buffer', async () => {
    assert.deepEqual(Array.from(await nodeFiles.read(join(dir, 'a.bin'))), Array.from(bytes));
    assert.deepEqual(Array.from(await nodeFiles.read(join(dir, 'a.bin'), 97)), Array.from(bytes.subarray(97)));
    const r = await nodeFiles.read(join(dir, 'a.bin'), 13, 29);
    assert.deepEqual(Array.from(r), Array.from(bytes.subarray(13, 29)));
    assert.equal(r.byteOffset, 0);
    assert.equal(r.buffer.byteLength, 16, 'only the range is held');
  });

  it('a missing file or a range past the end is a CheckpointError naming the file', async () => {
    const none = join(dir, 'none.bin');
    await assert.rejects(nodeFiles.read(none), (e: unknown) => e instanceof CheckpointError && e.message === `${none} is missing` && e.file === none);
    await assert.rejects(nodeFiles.read(join(dir, 'a.bin'), 90, 120), (e: unknown) => e instanceof CheckpointError && /a\.bin ended at byte 100, before 120/.test(e.message));
  });

  it('reads a range into a given array, a view of shared memory too (where the kernel holds weights)', async () => {
    const into = new Uint8Array(new SharedArrayBuffer(64), 8, 20).fill(0xee);
    await nodeFiles.readInto!(join(dir, 'a.bin'), 40, into);
    assert.deepEqual(Array.from(into), Array.from(bytes.subarray(40, 60)));
    assert.equal(new Uint8Array(into.buffer)[7], 0, 'nothing written before the view');
    await assert.rejects(nodeFiles.readInto!(join(dir, 'a.bin'), 90, new Uint8Array(20)), (e: unknown) => e instanceof CheckpointError && /a\.bin ended at byte 100, before 110/.test(e.message));
    await assert.rejects(nodeFiles.readInto!(join(dir, 'none.bin'), 0, new Uint8Array(2)), (e: unknown) => e instanceof CheckpointError && /is missing/.test(e.message));
  });

  it('joins in the platform style', () => {
    assert.equal(nodeFiles.join(dir, 'config.json'), join(dir, 'config.json'));
  });

  it('locates a name: its real path and the root\'s, links followed to their end; a dangling link or a missing name is missing', async () => {
    const root = realpathSync(dir);
    mkdirSync(join(dir, 'sub'), { recursive: true });
    symlinkSync('a.bin', join(dir, 'link.bin'));
    symlinkSync(join(dir, 'sub'), join(dir, 'dirlink'));
    writeFileSync(join(dir, 'sub', 'c.bin'), bytes);
    symlinkSync('gone.bin', join(dir, 'dangling.bin'));
    assert.deepEqual(await nodeFiles.locate(dir, 'a.bin'), { kind: 'found', root, real: join(root, 'a.bin') });
    assert.deepEqual(await nodeFiles.locate(dir, 'link.bin'), { kind: 'found', root, real: join(root, 'a.bin') });
    assert.deepEqual(await nodeFiles.locate(dir, 'dirlink/c.bin'), { kind: 'found', root, real: join(root, 'sub', 'c.bin') });
    assert.deepEqual(await nodeFiles.locate(dir, 'dangling.bin'), { kind: 'missing' });
    assert.deepEqual(await nodeFiles.locate(dir, 'none.bin'), { kind: 'missing' });
  });
});
