// Where a checkpoint's tensors are: model.safetensors, or the shards of
// model.safetensors.index.json; a missing shard, a name its shard does not hold, or a bad index is
// one clear error naming the file (and the tensor).
import * as assert from 'node:assert/strict';
import { CheckpointError } from './errors';
import { openTensors, parseIndex } from './shards';
import { folderOf, safetensorsBytes } from './testing';

const t = (n: number) => ({ shape: [n], data: Array.from({ length: n }, (_, i) => i) });
const A = 'model-00001-of-00002.safetensors';
const B = 'model-00002-of-00002.safetensors';

async function error(entries: Record<string, Uint8Array | string | object>): Promise<CheckpointError> {
  const { files, folder } = folderOf(entries);
  try {
    await openTensors(files, folder);
  } catch (e) {
    assert.ok(e instanceof CheckpointError, String(e));
    assert.ok(!e.message.includes('\n'));
    return e;
  }
  assert.fail('no error');
}

describe('checkpoint shards', () => {
  it('one model.safetensors: its tensors by their stored names', async () => {
    const { files, folder } = folderOf({ 'model.safetensors': safetensorsBytes({ 'transformer.wte.weight': t(4), 'h.0.attn.bias': t(1) }) });
    const ck = await openTensors(files, folder);
    assert.equal(ck.files.length, 1);
    assert.equal(ck.files[0].shown, 'model.safetensors');
    assert.deepEqual([...ck.tensors.keys()], ['transformer.wte.weight', 'h.0.attn.bias']);
    assert.deepEqual(ck.tensors.get('h.0.attn.bias')!.info.shape, [1]);
  });

  it('shards: each name in the shard the index gives; a shard tensor the index forgot is kept', async () => {
    const index = { metadata: { total_size: 40 }, weight_map: { x: A, y: B, z: A } };
    const { files, folder } = folderOf({
      'model.safetensors.index.json': index,
      [A]: safetensorsBytes({ x: t(2), z: t(3) }),
      [B]: safetensorsBytes({ y: t(5), extra: t(1) }),
    });
    const ck = await openTensors(files, folder);
    assert.deepEqual(ck.files.map((f) => f.shown), [A, B]);
    assert.deepEqual([...ck.tensors].map(([n, l]) => [n, l.file.shown, l.info.shape[0]]), [['x', A, 2], ['y', B, 5], ['z', A, 3], ['extra', B, 1]]);
  });

  it('model.safetensors is read when both it and an index are there', async () => {
    const { files, folder } = folderOf({ 'model.safetensors': safetensorsBytes({ x: t(2) }), 'model.safetensors.index.json': '{"weight_map": {"x": "gone.safetensors"}}' });
    assert.deepEqual([...(await openTensors(files, folder)).tensors.keys()], ['x']);
  });

  it('neither file: says what it looks for (and that pytorch_model.bin is not read)', async () => {
    assert.equal((await error({ 'config.json': '{}' })).message, 'no model.safetensors (nor model.safetensors.index.json with its shards) in /m');
    assert.equal((await error({ 'pytorch_model.bin': new Uint8Array(4) })).message,
      'no model.safetensors (nor model.safetensors.index.json with its shards) in /m: pytorch_model.bin is not read, FFN Lens reads safetensors');
  });

  it('a missing shard names it and a tensor it should hold', async () => {
    const e = await error({ 'model.safetensors.index.json': { weight_map: { x: A, y: B } }, [A]: safetensorsBytes({ x: t(2) }) });
    assert.equal(e.message, `${B}, the shard model.safetensors.index.json gives for y, is missing from the checkpoint folder`);
    assert.equal(e.file, B);
    assert.equal(e.tensor, 'y');
  });

  it('a name its shard does not hold', async () => {
    const e = await error({ 'model.safetensors.index.json': { weight_map: { x: A, w: A } }, [A]: safetensorsBytes({ x: t(2) }) });
    assert.equal(e.message, `model.safetensors.index.json puts w in ${A}, which has no such tensor`);
    assert.equal(e.tensor, 'w');
  });

  it('a bad index: not JSON, no weight_map, a shard that is not a file name, nothing in it', async () => {
    assert.equal((await error({ 'model.safetensors.index.json': '{"weight_map": ' })).message, 'model.safetensors.index.json is not JSON (UTF-8 text of an object with a "weight_map")');
    assert.equal((await error({ 'model.safetensors.index.json': { metadata: {} } })).message, 'model.safetensors.index.json has no "weight_map" object (tensor name → shard file)');
    assert.equal((await error({ 'model.safetensors.index.json': { weight_map: [A] } })).message, 'model.safetensors.index.json has no "weight_map" object (tensor name → shard file)');
    assert.equal((await error({ 'model.safetensors.index.json': { weight_map: { x: 3 } } })).message, 'model.safetensors.index.json: weight_map gives x the shard 3, expected a file name');
    assert.equal((await error({ 'model.safetensors.index.json': { weight_map: {} } })).message, 'model.safetensors.index.json: weight_map is empty');
  });

  it('a corrupt shard is named in the error', async () => {
    const e = await error({ 'model.safetensors.index.json': { weight_map: { x: A } }, [A]: new Uint8Array(3) });
    assert.equal(e.message, `${A} is not a safetensors file (it has 3 bytes, fewer than the 8 that give its header's length)`);
    assert.equal(e.file, A);
  });
});

describe('the shard index (parseIndex)', () => {
  const enc = (text: string) => new TextEncoder().encode(text);
  function indexError(text: string): CheckpointError {
    try {
      parseIndex(enc(text));
    } catch (e) {
      assert.ok(e instanceof CheckpointError, String(e));
      assert.ok(!/[\u0000-\u001f]/.test(e.message) && e.message.length <= 400 && !e.message.includes('undefined'), e.message);
      assert.equal(e.file, 'model.safetensors.index.json');
      return e;
    }
    assert.fail('no error');
  }

  it('a tensor named twice in weight_map, or two weight_maps: refused (JSON.parse would keep the last)', () => {
    const e = indexError(`{"weight_map": {"x": "${A}", "y": "${A}", "x": "${B}"}}`);
    assert.equal(e.message, 'model.safetensors.index.json: weight_map names x twice');
    assert.equal(e.tensor, 'x');
    assert.equal(indexError(`{"weight_map": {"x": "${A}"}, "weight_map": {"x": "${B}"}}`).message, 'model.safetensors.index.json gives weight_map twice');
    // a key repeated in "metadata" is no tensor's
    assert.deepEqual([...parseIndex(enc(`{"metadata": {"n": 1, "n": 2}, "weight_map": {"x": "${A}"}}`))], [['x', A]]);
  });

  it('a bad shard value is quoted bounded: 100,000 nested brackets, a 10 MB string; a 10 MB name cut short', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    assert.equal(indexError(`{"weight_map": {"x": ${deep}}}`).message, 'model.safetensors.index.json: weight_map gives x the shard [[[[…]]]], expected a file name');
    assert.equal(indexError('{"weight_map": {"x": null}}').message, 'model.safetensors.index.json: weight_map gives x the shard null, expected a file name');
    const name = 'n'.repeat(10_000_000);
    const e = indexError(`{"weight_map": {"${name}": 5}}`);
    assert.equal(e.message, `model.safetensors.index.json: weight_map gives "${'n'.repeat(60)}…" (10,000,000 characters) the shard 5, expected a file name`);
    assert.equal(e.tensor, name);
  });

  it('weight_map is the index\'s own key: not one under "__proto__", not in an array; not UTF-8 is not JSON', () => {
    assert.equal(indexError(`{"__proto__": {"weight_map": {"x": "${A}"}}}`).message, 'model.safetensors.index.json has no "weight_map" object (tensor name → shard file)');
    assert.equal(indexError(`[{"weight_map": {"x": "${A}"}}]`).message, 'model.safetensors.index.json has no "weight_map" object (tensor name → shard file)');
    assert.throws(() => parseIndex(new Uint8Array([0x7b, 0xff, 0x7d])), /^CheckpointError: model\.safetensors\.index\.json is not JSON/);
  });
});
