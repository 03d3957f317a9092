// Nothing a checkpoint folder names is read from outside it: names that are absolute or climb out
// with "..", links (followed to their end) that lead out, links the host cannot follow; links that
// stay inside, and Hugging Face's cache (a snapshot's links into its repository's blobs/), are read.
import * as assert from 'node:assert/strict';
import type { CheckpointFiles, Located } from './files';
import { checkpointRoot, fileInFolder, pathUnder } from './inside';
import { memoryFiles } from './memoryFiles';

const bytes = new Uint8Array([1, 2, 3]);

describe('checkpoint files inside their folder', () => {
  const files = memoryFiles(
    new Map([
      ['/m/config.json', bytes], ['/m/sub/a.safetensors', bytes], ['/etc/passwd', bytes], ['/other/model.safetensors', bytes],
      ['/hub/models--o--n/blobs/abc123', bytes], ['/hub/models--p--q/blobs/def456', bytes],
    ]),
    new Map([
      ['/m/passwd.json', '/etc/passwd'], ['/m/up', '../other'], ['/m/same.json', 'config.json'], ['/m/loop', 'loop'],
      ['/hub/models--o--n/snapshots/r1/model.safetensors', '../../blobs/abc123'],
      ['/hub/models--o--n/snapshots/r1/stolen.safetensors', '../../../models--p--q/blobs/def456'],
    ]),
  );
  const m = checkpointRoot('/m');

  it('a file of the folder, or a link that stays in it, is read where it is named', async () => {
    assert.deepEqual(await fileInFolder(files, m, 'config.json'), { path: '/m/config.json' });
    assert.deepEqual(await fileInFolder(files, m, 'sub/a.safetensors'), { path: '/m/sub/a.safetensors' });
    assert.deepEqual(await fileInFolder(files, m, 'same.json'), { path: '/m/same.json' });
    assert.equal(await fileInFolder(files, m, 'none.json'), null, 'missing');
    assert.equal(await fileInFolder(files, m, 'loop'), null, 'a loop of links is nothing to read');
  });

  it('an absolute name, a ".." that climbs out, a link that leads out: refused, saying why', async () => {
    assert.deepEqual(await fileInFolder(files, m, '/etc/passwd'), { refused: 'is an absolute path, outside the checkpoint folder' });
    assert.deepEqual(await fileInFolder(files, m, '../../../../etc/passwd'), { refused: 'climbs out of the checkpoint folder with ".."' });
    assert.deepEqual(await fileInFolder(files, m, 'passwd.json'), { refused: 'leads out of the checkpoint folder (a symbolic link to "/etc/passwd")' });
    assert.deepEqual(await fileInFolder(files, m, 'up/model.safetensors'), { refused: 'leads out of the checkpoint folder (a symbolic link to "/other/model.safetensors")' }, 'a linked folder on the way');
  });

  it("Hugging Face's cache: a snapshot's links into its own repository's blobs/ are read; into another's, or with the layout off (Restricted Mode), not", async () => {
    const snap = '/hub/models--o--n/snapshots/r1';
    assert.deepEqual(await fileInFolder(files, checkpointRoot(snap), 'model.safetensors'), { path: `${snap}/model.safetensors` });
    assert.deepEqual(await fileInFolder(files, checkpointRoot(snap), 'stolen.safetensors'), { refused: 'leads out of the checkpoint folder (a symbolic link to "/hub/models--p--q/blobs/def456")' });
    assert.deepEqual(await fileInFolder(files, checkpointRoot(snap, false), 'model.safetensors'), { refused: 'leads out of the checkpoint folder (a symbolic link to "/hub/models--o--n/blobs/abc123")' });
  });

  it('a link the host cannot follow (the web host) is refused: named as the file, or as a folder on the way', async () => {
    const web: CheckpointFiles = { ...files, locate: async (root, name): Promise<Located> => ({ kind: 'link', at: name === 'a.json' ? `${root}/a.json` : `${root}/sub` }) };
    const a = await fileInFolder(web, m, 'a.json');
    assert.match(a && 'refused' in a ? a.refused : '', /^is a symbolic link, which FFN Lens does not follow here \(this host cannot see where a link leads/);
    const b = await fileInFolder(web, m, 'sub/b.json');
    assert.match(b && 'refused' in b ? b.refused : '', /^lies under a symbolic link/);
  });

  it('a path under one of several roots (the workspace folders): outside all of them as written, or led out by a link, refused', async () => {
    const roots = [{ path: '/ws', shown: 'the workspace' }, { path: '/m', shown: 'the workspace' }];
    assert.deepEqual(await pathUnder(files, roots, '/m/config.json'), { path: '/m/config.json' });
    assert.deepEqual(await pathUnder(files, roots, '/m'), { path: '/m' }, 'a root itself');
    assert.deepEqual(await pathUnder(files, roots, '/etc/passwd'), { refused: 'is outside the workspace' });
    assert.deepEqual(await pathUnder(files, roots, '/m/../etc/passwd'), { refused: 'is outside the workspace' });
    assert.deepEqual(await pathUnder(files, roots, '/m/passwd.json'), { refused: 'leads out of the workspace (a symbolic link to "/etc/passwd")' });
  });
});
