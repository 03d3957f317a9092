// The memory check before a checkpoint is read: what the model needs against what is available,
// said at the model file's `checkpoint` key, with nothing of its weights read.
import * as assert from 'node:assert/strict';
import { readModel } from '../model/read';
import { cannotFit, heldBytesPerWeight, memoryProbe, modelNeeds, setMemoryProbe, weightMemoryLimit, type MemoryProbe } from './memoryFit';
import { archSpec } from './load';
import { parseConfig } from './config';
import { CheckpointResolver } from './resolve';
import { CheckpointStore, resolveReadNow } from './store';
import { checkpointFolder, recordingFiles, tinyLlama } from './testing';
import type { TensorInfo } from './safetensorsHeader';

const probe = (free: number, total = 16e9): MemoryProbe => ({ free: () => free, total: () => total, what: 'the free memory of this machine' });
const tensor = (shape: number[], dtype = 'BF16'): TensorInfo => ({ name: 't', dtype, shape, begin: 0, end: 0 } as unknown as TensorInfo);

describe('checkpoint memory check', () => {
  const was = memoryProbe();
  afterEach(() => setMemoryProbe(was));

  it('without the loader\'s count, every weight as float32 (a bound), and a run of 128 tokens', () => {
    assert.equal(heldBytesPerWeight('BF16'), 4);
    const arch = parseConfig(JSON.stringify(tinyLlama().config), 'config.json');
    const spec = archSpec(arch, { ids: new Array(128).fill(0), temperature: 1, lens: false });
    const needs = modelNeeds([tensor([1000, 16]), tensor([16], 'F32')], spec);
    assert.equal(needs.weights, (16000 + 16) * 4);
    assert.equal(needs.largest, 64000);
    assert.ok(needs.stages > 128 * 16 * 4 * 10, `stages ${needs.stages}`);
  });

  it("takes the loader's count of the weights as held: BF16 matrices at 2 bytes (a 16 GB BF16 model needs 16 GB, not 32)", () => {
    const arch = parseConfig(JSON.stringify(tinyLlama().config), 'config.json');
    const spec = archSpec(arch, { ids: new Array(128).fill(0), temperature: 1, lens: false });
    const tensors = [tensor([1000, 16]), tensor([16], 'F32')];
    const held = modelNeeds(tensors, spec, { bytes: 16000 * 2 + 16 * 4, largest: 40000 });
    assert.deepEqual([held.weights, held.largest, held.float32], [32064, 40000, false]);
    assert.equal(held.stages, modelNeeds(tensors, spec).stages);
    assert.equal(modelNeeds([tensor([16], 'F32')], spec, { bytes: 64, largest: 64 }).float32, true, 'float32 all through');
    const big = { weights: 16.06e9, largest: 1.05e9, stages: 0.5e9, float32: false };
    const limits = { total: Infinity, array: 2 ** 32 };
    assert.equal(cannotFit(big, probe(20e9, 24e9), 0, limits), null, 'Llama-3.1-8B in BF16 on a 24 GB machine with 20 GB free');
    assert.equal(cannotFit(big, probe(10e9, 24e9), 0, limits),
      'this model needs 16.6 GB of memory (its weights 16.1 GB as held (16-bit matrices at 2 bytes a number), a run of 128 tokens 500 MB), available 10 GB (the free memory of this machine, 24 GB in all): close other programs or model files, or open a smaller model');
  });

  it('says what the model needs and what is available', () => {
    const needs = { weights: 6.5e9, largest: 1e9, stages: 0.3e9, float32: true };
    assert.equal(cannotFit({ ...needs, weights: 3e9 }, probe(20e9)), null);
    assert.equal(cannotFit({ ...needs, weights: 3e9 }, probe(2e9)),
      'this model needs 3.3 GB of memory (its weights 3 GB as float32, a run of 128 tokens 300 MB), available 2 GB (the free memory of this machine, 16 GB in all): close other programs or model files, or open a smaller model');
    assert.equal(cannotFit({ ...needs, weights: 3e9 }, probe(2e9), 1.5e9), null, 'what a cancelled read left is taken again');
    // past one WebAssembly memory, whatever the machine has
    const { perMemory, memories } = weightMemoryLimit();
    assert.equal(perMemory * memories, 2 ** 32);
    assert.equal(cannotFit(needs, probe(100e9)),
      'this model needs 6.5 GB for its weights as float32, available 3.8 GB: FFN Lens holds them in one WebAssembly memory, which holds at most 4.3 GB; open a smaller model');
  });

  it('a model that cannot fit is refused at the checkpoint key before a weight is read', async () => {
    setMemoryProbe(probe(50_000, 8e9));
    const { files, folder } = checkpointFolder(tinyLlama());
    const rec = recordingFiles(files);
    const text = `{\n  "version": 1,\n  "checkpoint": "${folder}",\n  "token_ids": [1, 2]\n}`;
    const read = await resolveReadNow(readModel(text, '/x.ffn.json'), '/x.ffn.json', new CheckpointStore(rec.files), new CheckpointResolver());
    assert.equal(read.problems.length, 1);
    const p = read.problems[0];
    assert.equal(p.severity, 'error');
    assert.deepEqual(p.path, ['checkpoint']);
    assert.equal(text.slice(p.start, p.end), `"${folder}"`, 'at the checkpoint key (line 3)');
    assert.match(p.message, /^this model needs [\d.]+ [KM]B of memory \(its weights [\d.]+ KB as float32, a run of 128 tokens [\d.]+ [KM]B\), available 50 KB \(the free memory of this machine, 8 GB in all\)/);
    // the same in BF16: its matrices counted at 2 bytes, as the loader holds them
    const bf16 = checkpointFolder(tinyLlama(), 'BF16');
    const text16 = text.replace(folder, bf16.folder);
    const p16 = (await resolveReadNow(readModel(text16, '/x.ffn.json'), '/x.ffn.json', new CheckpointStore(bf16.files), new CheckpointResolver())).problems[0];
    assert.match(p16?.message ?? '', /^this model needs [\d.]+ [KM]B of memory \(its weights [\d.]+ KB as held \(16-bit matrices at 2 bytes a number\), a run of 128 tokens/);
    const kb = (m: string): number => Number(/its weights ([\d.]+) KB/.exec(m)![1]);
    assert.ok(kb(p16.message) < 0.6 * kb(p.message), `BF16 ${kb(p16.message)} KB vs F32 ${kb(p.message)} KB`);
    // config.json and the header only: no tensor's bytes
    const header = rec.reads.filter((r) => r.path.endsWith('model.safetensors'));
    assert.ok(header.every((r) => r.end !== undefined && r.end < 4096), JSON.stringify(header));
  });
});
