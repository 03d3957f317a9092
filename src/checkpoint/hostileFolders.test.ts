// Hostile checkpoint folders on a real disk (real symbolic links, through nodeFiles): a shard the
// index puts outside ("../", an absolute path, /etc/passwd), config.json, a shard, tokenizer.json
// linked out of the folder, a `tokenizer` key that climbs out, Restricted Mode: each refused at the
// key that named it, without opening the file (no byte of it in the message); Hugging Face's cache
// layout (snapshots/<rev>/… → ../../blobs/<hash>) still loads.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readModel } from '../model/read';
import { CheckpointError } from './errors';
import type { CheckpointFiles } from './files';
import { loadCheckpoint } from './load';
import { nodeFiles } from './nodeFiles';
import { CheckpointResolver } from './resolve';
import { CheckpointStore, resolveReadNow } from './store';
import { safetensorsBytes, tinyGpt2 } from './testing';

const REPO = resolve(__dirname, '../../..');
const SECRET = 'root:x:0:0:root:/root:/bin/bash\n';

/** nodeFiles that record every path asked for its size or bytes (what was opened, or stat'ed). */
function watched(): { files: CheckpointFiles; touched: string[] } {
  const touched: string[] = [];
  return {
    touched,
    files: {
      ...nodeFiles,
      size: (p) => (touched.push(p), nodeFiles.size(p)),
      read: (p, s, e) => (touched.push(p), nodeFiles.read(p, s, e)),
      readInto: (p, s, into) => (touched.push(p), nodeFiles.readInto!(p, s, into)),
    },
  };
}

describe('hostile checkpoint folders on disk', () => {
  let dir = '';
  const ck = tinyGpt2();
  const weights = safetensorsBytes(ck.tensors);
  const first = Object.keys(ck.tensors)[0];
  const config = JSON.stringify(ck.config);
  /** A checkpoint folder `name` under the temp dir with these files (strings written, `{ link }` made symbolic links). */
  const folder = (name: string, entries: Record<string, string | Uint8Array | { link: string }>): string => {
    const f = join(dir, name);
    mkdirSync(f, { recursive: true });
    for (const [n, v] of Object.entries(entries)) {
      if (typeof v === 'object' && 'link' in v) symlinkSync(v.link, join(f, n));
      else writeFileSync(join(f, n), v);
    }
    return f;
  };
  const index = (shard: string): string => JSON.stringify({ weight_map: Object.fromEntries(Object.keys(ck.tensors).map((t) => [t, shard])) });
  async function loadError(f: string): Promise<{ message: string; touched: string[] }> {
    const { files, touched } = watched();
    try {
      await loadCheckpoint(files, f);
    } catch (e) {
      assert.ok(e instanceof CheckpointError, String(e));
      assert.ok(!e.message.includes('root:x'), `no byte of the file in the message: ${e.message}`);
      return { message: e.message, touched };
    }
    return assert.fail('it loaded');
  }
  const outsideOf = (f: string, touched: string[]): string[] => touched.filter((p) => !p.startsWith(`${f}/`));

  before(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'ffn-lens-hostile-')));
    writeFileSync(join(dir, 'secret.txt'), SECRET);
    folder('outside', { 'config.json': config, 'model.safetensors': weights });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an index entry that climbs out ("../../outside/…", "../../../../etc/passwd"): refused naming the index, the tensor and the shard, nothing outside touched', async () => {
    const a = folder('dotdot/ck', { 'config.json': config, 'model.safetensors.index.json': index('../../outside/model.safetensors') });
    const e = await loadError(a);
    assert.equal(e.message, `model.safetensors.index.json puts ${first} in "../../outside/model.safetensors", which climbs out of the checkpoint folder with "..": a shard must be a file inside the checkpoint folder`);
    assert.deepEqual(outsideOf(a, e.touched), []);
    const b = folder('passwd', { 'config.json': config, 'model.safetensors.index.json': index('../../../../etc/passwd') });
    const p = await loadError(b);
    assert.match(p.message, /in "\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd", which climbs out of the checkpoint folder/);
    assert.deepEqual(outsideOf(b, p.touched), []);
  });

  it('an absolute shard path: refused, not opened', async () => {
    const shard = join(dir, 'outside', 'model.safetensors');
    const f = folder('absolute', { 'config.json': config, 'model.safetensors.index.json': index(shard) });
    const e = await loadError(f);
    assert.equal(e.message, `model.safetensors.index.json puts ${first} in "${shard}", which is an absolute path, outside the checkpoint folder: a shard must be a file inside the checkpoint folder`);
    assert.deepEqual(outsideOf(f, e.touched), []);
  });

  it('config.json, model.safetensors, a shard linked out of the folder: refused, saying where the link leads, not opened', async () => {
    const secret = join(dir, 'secret.txt');
    const c = folder('link-config', { 'config.json': { link: secret }, 'model.safetensors': weights });
    const e = await loadError(c);
    assert.equal(e.message, `config.json in ${c} leads out of the checkpoint folder (a symbolic link to "${secret}"): FFN Lens reads only files inside the checkpoint folder`);
    assert.deepEqual(e.touched, [], 'nothing opened or stat\'ed');
    const s = folder('link-single', { 'config.json': config, 'model.safetensors': { link: join(dir, 'outside', 'model.safetensors') } });
    assert.match((await loadError(s)).message, /^model\.safetensors in .* leads out of the checkpoint folder \(a symbolic link to ".*\/outside\/model\.safetensors"\)/);
    const sh = folder('link-shard', { 'config.json': config, 'model.safetensors.index.json': index('model-00001-of-00001.safetensors'), 'model-00001-of-00001.safetensors': { link: '../outside/model.safetensors' } });
    const x = await loadError(sh);
    assert.match(x.message, /^model\.safetensors\.index\.json puts \S+ in "model-00001-of-00001\.safetensors", which leads out of the checkpoint folder \(a symbolic link to ".*\/outside\/model\.safetensors"\)/);
    assert.deepEqual(outsideOf(sh, x.touched), []);
    // a folder on the way that is a link out
    const sub = folder('link-sub', { 'config.json': config, 'model.safetensors.index.json': index('w/model.safetensors'), w: { link: join(dir, 'outside') } });
    assert.match((await loadError(sub)).message, /in "w\/model\.safetensors", which leads out of the checkpoint folder/);
  });

  it('links that stay inside the folder are read', async () => {
    const f = folder('link-inside', { 'real-config.json': config, 'config.json': { link: 'real-config.json' }, 'w.safetensors': weights, 'model.safetensors': { link: './w.safetensors' } });
    assert.equal((await loadCheckpoint(nodeFiles, f)).arch.modelType, 'gpt2');
  });

  it("Hugging Face's cache (snapshots/<rev>/… → ../../blobs/<hash>) loads, its tokenizer.json with it; a link into another repository's blobs does not", async () => {
    const repo = join(dir, 'hub', 'models--openai-community--gpt2');
    folder('hub/models--openai-community--gpt2/blobs', { aaa111: config, bbb222: weights, ccc333: readFileSync(join(REPO, 'media', 'tokenizers', 'gpt2', 'tokenizer.json')) });
    const snap = folder('hub/models--openai-community--gpt2/snapshots/607a30d', { 'config.json': { link: '../../blobs/aaa111' }, 'model.safetensors': { link: '../../blobs/bbb222' }, 'tokenizer.json': { link: '../../blobs/ccc333' } });
    const text = JSON.stringify({ version: 1, checkpoint: snap, token_ids: [1, 2, 3] });
    const store = new CheckpointStore(nodeFiles);
    const read = await resolveReadNow(readModel(text, join(dir, 'm.ffn.json')), join(dir, 'm.ffn.json'), store, new CheckpointResolver());
    assert.deepEqual(read.problems.map((p) => p.message), []);
    assert.ok(read.file, 'computed');
    const tok = store.tokenizer({ kind: 'folder', folder: snap });
    assert.ok(tok.state === 'ready' && tok.value !== null, "the snapshot's tokenizer.json");
    folder('hub/models--evil--x/snapshots/r', { 'config.json': config, 'model.safetensors': { link: join(repo, 'blobs', 'bbb222') } });
    assert.match((await loadError(join(dir, 'hub/models--evil--x/snapshots/r'))).message, /model\.safetensors in .* leads out of the checkpoint folder/);
  });

  it("tokenizer.json linked out of the checkpoint folder: refused at the `checkpoint` key, not read", async () => {
    const f = folder('link-tok', { 'config.json': config, 'model.safetensors': weights, 'tokenizer.json': { link: join(dir, 'secret.txt') } });
    const text = `{"version": 1, "checkpoint": ${JSON.stringify(f)}, "token_ids": [1, 2]}`;
    const read = await resolveReadNow(readModel(text, join(dir, 'm.ffn.json')), join(dir, 'm.ffn.json'), new CheckpointStore(nodeFiles), new CheckpointResolver());
    assert.deepEqual(read.problems.map((p) => [p.path.join('.'), p.message]), [['checkpoint', `tokenizer.json in ${f} leads out of the checkpoint folder (a symbolic link to "${join(dir, 'secret.txt')}"): FFN Lens reads only files inside the checkpoint folder`]]);
  });

  describe('the `tokenizer` key, and Restricted Mode', () => {
    let ws = '';
    const modelFile = (): string => join(ws, 'm.ffn.json');
    const problems = async (store: CheckpointStore, keys: Record<string, unknown>): Promise<string[][]> => {
      const text = JSON.stringify({ version: 1, token_ids: [1, 2], ...keys });
      const read = await resolveReadNow(readModel(text, modelFile()), modelFile(), store, new CheckpointResolver());
      for (const p of read.problems) assert.ok(!p.message.includes('root:x'), p.message);
      return read.problems.map((p) => [p.path.join('.'), p.message]);
    };
    before(() => {
      ws = folder('ws', { 'tok.json': readFileSync(join(REPO, 'media', 'tokenizers', 'gpt2', 'tokenizer.json')), 'linked-tok.json': { link: join(dir, 'secret.txt') }, linked: { link: join(dir, 'outside') } });
      folder('ws/ck', { 'config.json': config, 'model.safetensors': weights });
    });

    it('relative: beside the model file or in the checkpoint folder; climbing out, or linked out, refused at the key; absolute: read where it is', async () => {
      const store = new CheckpointStore(nodeFiles);
      assert.deepEqual(await problems(store, { checkpoint: './ck', tokenizer: './tok.json' }), []);
      assert.deepEqual(await problems(store, { checkpoint: './ck', tokenizer: '../secret.txt' }), [['tokenizer',
        `the tokenizer "../secret.txt" is outside the model file's folder and the checkpoint folder: a relative "tokenizer" is read beside the model file or from the checkpoint folder (give an absolute path to read one from elsewhere)`]]);
      assert.deepEqual(await problems(store, { checkpoint: './ck', tokenizer: 'linked-tok.json' }), [['tokenizer',
        `the tokenizer "linked-tok.json" leads out of the model file's folder (a symbolic link to "${join(dir, 'secret.txt')}"): a relative "tokenizer" is read beside the model file or from the checkpoint folder (give an absolute path to read one from elsewhere)`]]);
      assert.deepEqual(await problems(store, { checkpoint: './ck', tokenizer: join(ws, 'tok.json') }), [], 'absolute: as typed');
    });

    it('Restricted Mode: a checkpoint folder or tokenizer outside the workspace (as written, or through a link) refused at its key, saying why; inside, computed; trust granted, all of it', async () => {
      const store = new CheckpointStore(nodeFiles);
      assert.equal(store.restrictTo([ws]), true);
      assert.equal(store.restrictTo([ws]), false, 'the same rule: nothing forgotten');
      const why = 'in Restricted Mode FFN Lens reads only files inside the workspace (trust the workspace to open it)';
      assert.deepEqual(await problems(store, { checkpoint: './ck', tokenizer: './tok.json' }), [], 'inside the workspace');
      assert.deepEqual(await problems(store, { checkpoint: '../outside' }), [['checkpoint', `the checkpoint folder "${join(dir, 'outside')}" is outside the workspace: ${why}`]]);
      assert.deepEqual(await problems(store, { checkpoint: './linked' }), [['checkpoint', `the checkpoint folder "${join(ws, 'linked')}" leads out of the workspace (a symbolic link to "${join(dir, 'outside')}"): ${why}`]]);
      const tok = join(REPO, 'media', 'tokenizers', 'gpt2', 'tokenizer.json');
      assert.deepEqual(await problems(store, { checkpoint: './ck', tokenizer: tok }), [['tokenizer', `the tokenizer "${tok}" is outside the workspace: ${why}`]]);
      assert.equal(store.restrictTo(null), true, 'trusted');
      assert.deepEqual(await problems(store, { checkpoint: '../outside' }), []);
      assert.deepEqual(await problems(store, { checkpoint: './ck', tokenizer: tok }), []);
    });
  });
});
