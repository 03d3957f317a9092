// Hostile SAE paths and steers on a real disk: a 10 KB path in a shard index, in `saes.path`, in
// `checkpoint` is said bounded (its start and its file name); a drive path beside a POSIX model
// file is a name in its folder (no look at the working folder); a contrast prompt past the
// model's positions is refused at the prompt, before a run over it; alpha·v past float32's range
// is refused, not computed as Infinity.
import * as assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tinyTokenizer } from '../../test/helpers/checkpointFuzz/seeds';
import { readModel } from '../model/read';
import type { Problem } from '../model/problems';
import type { CheckpointFiles } from './files';
import { nodeFiles } from './nodeFiles';
import { CheckpointResolver } from './resolve';
import { CheckpointStore, resolveReadNow } from './store';

const CASES = resolve(__dirname, '../../../test/fixtures/sae-cases');

describe('hostile SAE paths and steers', () => {
  let dir = '';
  const touched: string[] = [];
  const files: CheckpointFiles = { ...nodeFiles, size: (p) => (touched.push(p), nodeFiles.size(p)), locate: (r, n) => (touched.push(`${r}/${n}`), nodeFiles.locate(r, n)) };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ffn-hostile-sae-'));
    cpSync(join(CASES, 'gpt2'), join(dir, 'gpt2'), { recursive: true });
    cpSync(join(CASES, 'sae-gpt2-relu'), join(dir, 'sae'), { recursive: true });
    writeFileSync(join(dir, 'gpt2', 'tokenizer.json'), JSON.stringify(tinyTokenizer()));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function errorsOf(model: Record<string, unknown>): Promise<Problem[]> {
    const path = join(dir, 'x.ffn.json');
    const read = await resolveReadNow(readModel(JSON.stringify(model), path), path, new CheckpointStore(files), new CheckpointResolver());
    return read.problems.filter((p) => p.severity === 'error');
  }
  const base = { version: 1, checkpoint: './gpt2', token_ids: [1, 2, 3] };

  it('a 10 KB path is said bounded wherever it is said: its start, its end, its length', async () => {
    const long = `./${'a/'.repeat(5000)}sae`;
    const [sae] = await errorsOf({ ...base, saes: [{ path: long, at: 'layers.0.out' }] });
    assert.deepEqual(sae.path, ['saes', 0, 'path']);
    assert.ok(sae.message.length < 250, sae.message);
    assert.match(sae.message, /^the SAE "\.\/a\/a\/a.*…\/?(a\/)+sae" \(10,005 characters\): no SAE there/);
    const [ck] = await errorsOf({ ...base, checkpoint: `./${'q/'.repeat(5000)}ck` });
    assert.ok(ck.message.length < 250, ck.message);
    assert.match(ck.message, /…(q\/)+ck" \(\d+,\d+ characters\)/);
    const shard = join(dir, 'sharded');
    mkdirSync(shard);
    cpSync(join(dir, 'gpt2', 'config.json'), join(shard, 'config.json'));
    writeFileSync(join(shard, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { 'wte.weight': `${'../'.repeat(3000)}x/model.safetensors` } }));
    const [ix] = await errorsOf({ ...base, checkpoint: './sharded' });
    assert.ok(ix.message.length < 300, ix.message);
    assert.match(ix.message, /puts wte\.weight in "\.\.\/\.\.\/.*….*\/x\/model\.safetensors" \(9,019 characters\), which climbs out of the checkpoint folder/);
  });

  it('a drive path beside a POSIX model file is a name in the model file\'s folder, never the working folder\'s', async () => {
    touched.length = 0;
    const [e] = await errorsOf({ ...base, saes: [{ path: 'C:\\sae', at: 'layers.0.out' }] });
    assert.deepEqual(e.path, ['saes', 0, 'path']);
    assert.ok(touched.length > 0 && touched.every((p) => p.startsWith(dir)), touched.join('\n'));
  });

  it('a contrast prompt past the model\'s positions is refused at it (its BOS and 21 pieces: 22 tokens)', async () => {
    const steer = (a: string): Record<string, unknown> => ({ version: 1, checkpoint: './gpt2', prompt: 'ab c', steer: { 'layers.0.out': { contrast: [a, 'c'], alpha: 2 } } });
    const [e] = await errorsOf(steer('ab '.repeat(20)));
    assert.deepEqual(e.path, ['steer', 'layers.0.out', 'contrast', 0]);
    assert.match(e.message, /^this prompt gives 22 tokens; this gpt2 model has positions for 16: give a shorter one$/);
    assert.deepEqual(await errorsOf(steer('ab ab')), []);
  });

  it('alpha × the vector past float32\'s range is refused at the vector, not computed as Infinity', async () => {
    const vector = Array.from({ length: 16 }, (_, i) => i);
    const [e] = await errorsOf({ ...base, steer: { 'layers.0.out': { vector, alpha: 3e38 } } });
    assert.deepEqual(e.path, ['steer', 'layers.0.out', 'vector']);
    assert.match(e.message, /^alpha 3e\+38 × this direction's number 2 \(at 2\) is past float32's range: the steered stage would be infinite; give a smaller alpha$/);
    assert.deepEqual(await errorsOf({ ...base, steer: { 'layers.0.out': { vector, alpha: 1e36 } } }), []);
  });
});
