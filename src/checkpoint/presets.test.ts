// The random-weight checkpoint presets: a well-formed safetensors file (header offsets in order,
// the data exactly as long as the header says), the parameter counts of the real models, and
// bfloat16 rounded to nearest even.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../../test/helpers/fixtures';
import { readModel } from '../model/read';
import { loadTokenizer } from '../tokenizer/tokenizer';
import { CHECKPOINT_PRESETS, checkpointBytes, checkpointChunks, checkpointModelText, configText, safetensorsHeader, toBf16, toF16 } from './presets';
import { parseConfig } from './config';
import { eachExpectedTensor, headTensor, modelPrefix, storedName } from './tensorNames';
import { toF16Bits } from './testing';
import { rng } from '../core/rng';

describe('checkpoint presets', () => {
  it('have the parameter counts of GPT-2 small (124,439,808) and SmolLM2-135M (134,515,008)', () => {
    const n = (id: string): number => CHECKPOINT_PRESETS.find((p) => p.id === id)!.tensors.reduce((s, t) => s + t.shape.reduce((a, b) => a * b, 1), 0);
    assert.equal(n('gpt2-small-checkpoint'), 124_439_808);
    assert.equal(n('smollm2-135m-checkpoint'), 134_515_008);
  });

  it("have the parameter counts of the Hub's Pythia-160M, Qwen3-0.6B, Gemma-3-1B and Gemma-2-2B", () => {
    const n = (id: string): number => CHECKPOINT_PRESETS.find((p) => p.id === id)!.tensors.reduce((s, t) => s + t.shape.reduce((a, b) => a * b, 1), 0);
    assert.equal(n('pythia-160m-checkpoint'), 162_322_944);
    assert.equal(n('qwen3-0.6b-checkpoint'), 596_049_920);
    assert.equal(n('gemma-3-1b-checkpoint'), 999_885_952);
    assert.equal(n('gemma-2-2b-checkpoint'), 2_614_341_888);
  });

  it("each preset's config.json is read by its adapter, and its tensors are exactly the ones the adapter reads, in their shapes", () => {
    for (const p of CHECKPOINT_PRESETS) {
      const arch = parseConfig(configText(p));
      const held = new Map(p.tensors.map((t) => [t.name, t.shape]));
      const used = new Set<string>();
      const expected = [...eachExpectedTensor(arch), ...(arch.tied ? [] : [headTensor(arch)])];
      for (const t of expected) {
        const name = storedName(held, t.name, modelPrefix(arch.modelType));
        assert.ok(name !== null, `${p.id}: ${t.name}`);
        assert.deepEqual(held.get(name), t.shape, `${p.id}: ${name}`);
        used.add(name);
      }
      assert.deepEqual(p.tensors.map((t) => t.name).filter((n) => !used.has(n)), [], p.id);
      assert.equal(arch.modelType, p.config.model_type);
    }
  });

  it('say their size on disk, bfloat16 or float16 where the Hub does, and which are past the weights FFN Lens holds as float32', () => {
    const dtypes = Object.fromEntries(CHECKPOINT_PRESETS.map((p) => [p.id, p.dtype]));
    assert.deepEqual(dtypes, { 'gpt2-small-checkpoint': 'F32', 'smollm2-135m-checkpoint': 'BF16', 'pythia-160m-checkpoint': 'F16', 'qwen3-0.6b-checkpoint': 'BF16', 'gemma-3-1b-checkpoint': 'BF16', 'gemma-2-2b-checkpoint': 'BF16' });
    for (const p of CHECKPOINT_PRESETS) {
      const bytes = checkpointBytes(p);
      const shown = bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
      assert.ok(p.detail.includes(`model.safetensors, ${shown}, `), `${p.id}: ${shown} in ${p.detail}`);
      const f32 = p.tensors.reduce((s, t) => s + t.shape.reduce((a, b) => a * b, 1), 0) * 4;
      // (16-bit weights held as such, over as many memories as they take: no preset is refused for its size)
      assert.ok(!p.detail.includes('refused'), p.id);
      assert.ok(f32 < 16e9, `${p.id}: ${f32} bytes as float32`);
    }
  });

  it('round float32 to float16 to nearest, ties to even, as the test encoder does (normals, subnormals, overflow, zeros)', () => {
    const next = rng(3);
    const xs = [0, -0, 1, -2.5, 65504, 65520, 65519.99, 1e6, -1e6, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -14, 2 ** -14 - 2 ** -25, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 6e-8, 1e-9];
    for (let i = 0; i < 20000; i++) xs.push((next() - 0.5) * 2 ** (Math.floor(next() * 44) - 28));
    const f = Float32Array.from(xs);
    const got = new Uint16Array(toF16(f).buffer);
    f.forEach((x, i) => assert.equal(got[i], toF16Bits(x), `${x}`));
  });

  it('write a header whose offsets tile the data, padded to 8 bytes', () => {
    for (const p of CHECKPOINT_PRESETS) {
      const h = safetensorsHeader(p);
      const len = Number(new DataView(h.buffer).getBigUint64(0, true));
      assert.equal(h.length, 8 + len);
      assert.equal(h.length % 8, 0);
      const json = JSON.parse(new TextDecoder().decode(h.subarray(8))) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
      let at = 0;
      for (const t of p.tensors) {
        const e = json[t.name];
        assert.equal(e.dtype, p.dtype);
        assert.deepEqual(e.data_offsets, [at, at + e.shape.reduce((a, b) => a * b, 1) * (p.dtype === 'F32' ? 4 : 2)]);
        at = e.data_offsets[1];
      }
      assert.equal(checkpointBytes(p), h.length + at);
    }
  });

  it('stream exactly the bytes the header promises (a small preset, same seed same bytes)', () => {
    const base = CHECKPOINT_PRESETS[1];
    const small = { ...base, tensors: base.tensors.slice(0, 4).map((t) => ({ ...t, shape: t.shape.map((d) => Math.min(d, 37)) })) };
    const a = [...checkpointChunks(small, 5, 1000)];
    const total = a.reduce((s, c) => s + c.length, 0);
    assert.equal(total, checkpointBytes(small));
    const b = [...checkpointChunks(small, 5, 1000)];
    assert.deepEqual(Buffer.concat(a), Buffer.concat(b));
    assert.notDeepEqual(Buffer.concat(a), Buffer.concat([...checkpointChunks(small, 6, 1000)]));
    assert.match(checkpointModelText(base), /"checkpoint": "\.\/smollm2-135m-random"/);
  });

  it('GPT-2 small\'s model file takes a prompt (GPT-2\'s tokenizer, carried in media/, is written beside it), SmolLM2\'s token ids', () => {
    const [gpt2, smol] = CHECKPOINT_PRESETS;
    assert.ok(gpt2.tokenizer && !smol.tokenizer);
    for (const p of CHECKPOINT_PRESETS) {
      const read = readModel(checkpointModelText(p), `/w/${p.folder}.ffn.json`);
      assert.deepEqual(read.problems.map((x) => x.message), []);
      assert.equal(read.checkpoint?.prompt ?? null, p.tokenizer?.prompt ?? null);
      if (!p.tokenizer) assert.deepEqual(read.checkpoint?.tokenIds, [...p.tokenIds]);
    }
    const tok = loadTokenizer(readFileSync(join(REPO, 'media', 'tokenizers', gpt2.tokenizer!.name, 'tokenizer.json'), 'utf8'));
    assert.deepEqual([...tok.encode(gpt2.tokenizer!.prompt).ids], [...gpt2.tokenIds], 'the prompt is the ids the preset names');
  });

  it('round float32 to bfloat16 to nearest, ties to even', () => {
    const f = new Float32Array([1, -2.5, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -7 + 2 ** -9]);
    const u = new Uint16Array(toBf16(f).buffer);
    assert.deepEqual(Array.from(u).map((x) => x.toString(16)), ['3f80', 'c020', '3f80', '3f82', '3f81']);
  });
});
