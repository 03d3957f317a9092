// Paths as text: a name inside a folder ('..' and absolute refused), a path under a folder (either
// separator, a drive letter), and Hugging Face's cache layout (a snapshot → its repository's blobs/).
import * as assert from 'node:assert/strict';
import { hfCacheBlobs, isAbsoluteBeside, isAbsolutePath, nameParts, partsBelow } from './paths';

describe('checkpoint paths', () => {
  it('a name inside a folder: its parts; an absolute path or one that climbs out is refused', () => {
    assert.deepEqual(nameParts('model-00001.safetensors'), { parts: ['model-00001.safetensors'] });
    assert.deepEqual(nameParts('./sub/./a.safetensors'), { parts: ['sub', 'a.safetensors'] });
    assert.deepEqual(nameParts('sub/../a.safetensors'), { parts: ['a.safetensors'] }, 'a ".." that stays inside');
    for (const bad of ['../../../../etc/passwd', '../../outside/model.safetensors', 'sub/../../x', '..\\..\\x', '..']) assert.deepEqual(nameParts(bad), { bad: 'climbs' }, bad);
    for (const bad of ['/etc/passwd', '\\\\server\\share\\x', 'C:\\Windows\\x', 'c:/x', 'C:x']) assert.deepEqual(nameParts(bad), { bad: 'absolute' }, bad);
    assert.deepEqual(nameParts('./'), { bad: 'empty' });
    assert.ok(isAbsolutePath('/a') && isAbsolutePath('D:\\a') && !isAbsolutePath('a/b') && !isAbsolutePath('./a'));
  });

  it('a drive path beside a POSIX file is a name in its folder, not absolute (it was resolved against the working folder)', () => {
    assert.equal(isAbsoluteBeside('C:\\sae', '/home/me/m.ffn.json'), false);
    assert.equal(isAbsoluteBeside('\\sae', '/home/me/m.ffn.json'), false);
    assert.equal(isAbsoluteBeside('/sae', '/home/me/m.ffn.json'), true);
    assert.equal(isAbsoluteBeside('C:\\sae', 'D:\\me\\m.ffn.json'), true);
  });

  it('a path under a folder: the parts below it, null when it is not (".." worked out first)', () => {
    assert.deepEqual(partsBelow('/ws', '/ws/m/config.json'), ['m', 'config.json']);
    assert.deepEqual(partsBelow('/ws/', '/ws'), []);
    assert.equal(partsBelow('/ws', '/wsx/config.json'), null, 'a sibling that starts with the same letters');
    assert.equal(partsBelow('/ws', '/ws/../etc/passwd'), null);
    assert.deepEqual(partsBelow('/ws', '/ws/a/../b'), ['b']);
    assert.deepEqual(partsBelow('C:\\Users\\me', 'c:/Users/me/m\\x.json'), ['m', 'x.json'], 'either separator, the drive in either case');
    assert.equal(partsBelow('C:\\Users\\me', 'D:\\Users\\me\\x'), null);
    assert.equal(partsBelow('/ws', 'ws/x'), null, 'relative under absolute');
    assert.deepEqual(partsBelow('.', 'a/b'), ['a', 'b']);
  });

  it("Hugging Face's cache: a snapshot folder (or one below it) → its repository's blobs/, nothing for any other folder", () => {
    assert.equal(hfCacheBlobs('/home/u/.cache/huggingface/hub/models--openai-community--gpt2/snapshots/607a30d'), '/home/u/.cache/huggingface/hub/models--openai-community--gpt2/blobs');
    assert.equal(hfCacheBlobs('/c/models--o--n/snapshots/rev/sub'), '/c/models--o--n/blobs');
    assert.equal(hfCacheBlobs('C:\\hub\\models--o--n\\snapshots\\rev'), 'C:\\hub\\models--o--n\\blobs');
    assert.equal(hfCacheBlobs('/c/models--o--n/snapshots'), null, 'no revision');
    assert.equal(hfCacheBlobs('/c/mine/snapshots/rev'), null, 'not a repository of the cache');
    assert.equal(hfCacheBlobs('/m'), null);
  });
});
