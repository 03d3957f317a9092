// config.json's sizes against the tensors, before anything is built from them: a config that claims
// more layers, a wider vocabulary or hidden size, or more positions than the files hold is one
// error naming both numbers, found from the headers alone (no tensor's bytes read, no per-layer
// list made: 100,000,000 layers used to run the process out of memory).
import * as assert from 'node:assert/strict';
import { checkSizes } from './bounds';
import { parseConfig } from './config';
import { CheckpointError } from './errors';
import { loadCheckpoint, MAX_CONFIG_BYTES } from './load';
import { checkpointFolder, folderOf, recordingFiles, safetensorsBytes, tinyGpt2, tinyLlama, type TinyCheckpoint } from './testing';

/** The load's error for `ck` with config.json changed by `over`, and every read it made. */
async function loadError(ck: TinyCheckpoint, over: Record<string, unknown>): Promise<{ e: CheckpointError; reads: Array<{ path: string; start: number; end: number | undefined }> }> {
  const { files, reads } = recordingFiles(folderOf({ 'config.json': { ...ck.config, ...over }, 'model.safetensors': safetensorsBytes(ck.tensors) }).files);
  try {
    await loadCheckpoint(files, '/m');
  } catch (e) {
    assert.ok(e instanceof CheckpointError, String(e));
    assert.ok(!e.message.includes('\n'), 'one line');
    return { e, reads };
  }
  assert.fail('no error');
}

/** The reads of tensors' bytes (the header's two reads, at 0 and 8, are not). */
const tensorReads = (reads: ReadonlyArray<{ path: string; start: number }>): number => reads.filter((r) => r.path.endsWith('.safetensors') && r.start > 8).length;

describe('checkpoint bounds: config.json against the tensors', () => {
  it('more layers than the tensors hold: one error with both numbers and the layers there are, before any tensor is read', async () => {
    const llama = await loadError(tinyLlama(), { num_hidden_layers: 1e8 });
    assert.equal(llama.e.message, 'config.json says num_hidden_layers 100,000,000, but the tensors hold 2 layers (model.layers.0 … model.layers.1)');
    assert.equal(llama.e.file, 'config.json');
    assert.equal(tensorReads(llama.reads), 0);
    const gpt2 = await loadError(tinyGpt2({ prefix: 'transformer.' }), { n_layer: 1e7 });
    assert.equal(gpt2.e.message, 'config.json says n_layer 10,000,000, but the tensors hold 2 layers (transformer.h.0 … transformer.h.1)');
    assert.equal((await loadError(tinyGpt2(), { n_layer: 3 })).e.message, 'config.json says n_layer 3, but the tensors hold 2 layers (h.0 … h.1)');
  });

  it('a layer number in a name counts once, however large: one tensor named layers.99999999 does not make room for 10⁸ layers', async () => {
    const ck = tinyLlama();
    const tensors = { ...ck.tensors, 'model.layers.99999999.input_layernorm.weight': { shape: [16], data: new Float32Array(16) } };
    const { files } = folderOf({ 'config.json': { ...ck.config, num_hidden_layers: 1e8 }, 'model.safetensors': safetensorsBytes(tensors) });
    await assert.rejects(loadCheckpoint(files, '/m'), { message: 'config.json says num_hidden_layers 100,000,000, but the tensors hold 3 layers (model.layers.0 … model.layers.99999999)' });
  });

  it('a wider vocabulary or hidden size than the embedding, and more positions than GPT-2\'s wpe: both numbers and the tensor\'s shape', async () => {
    assert.equal((await loadError(tinyLlama(), { vocab_size: 1e9 })).e.message, 'config.json says vocab_size 1,000,000,000, but the tensors hold 13 words (model.embed_tokens.weight is [13, 16])');
    assert.equal((await loadError(tinyLlama(), { vocab_size: 5 })).e.message, 'config.json says vocab_size 5, but the tensors hold 13 words (model.embed_tokens.weight is [13, 16])');
    assert.equal((await loadError(tinyLlama(), { hidden_size: 2 ** 40 })).e.message, 'config.json says hidden_size 1,099,511,627,776, but the tensors hold 16 (model.embed_tokens.weight is [13, 16])');
    assert.equal((await loadError(tinyGpt2(), { n_embd: 1e9, n_head: 1 })).e.message, 'config.json says n_embd 1,000,000,000, but the tensors hold 8 (wte.weight is [11, 8])');
    assert.equal((await loadError(tinyGpt2(), { n_positions: 1e9 })).e.message, 'config.json says n_positions 1,000,000,000, but the tensors hold 6 positions (wpe.weight is [6, 8])');
  });

  it('sizes the embedding does not show (d_ff, heads, head_dim) are checked against each tensor\'s shape, also before any tensor is read', async () => {
    const ff = await loadError(tinyLlama(), { intermediate_size: 1e9 });
    assert.equal(ff.e.message, 'model.layers.0.mlp.gate_proj.weight is [12, 16], expected [intermediate_size, hidden_size] = [1000000000, 16]');
    assert.equal(tensorReads(ff.reads), 0);
    assert.equal((await loadError(tinyLlama(), { head_dim: 1e9 })).e.message, 'model.layers.0.self_attn.q_proj.weight is [16, 16], expected [heads·head_dim, hidden_size] = [4000000000, 16]');
    assert.equal((await loadError(tinyLlama(), { num_attention_heads: 1e9 })).e.message, 'config.json: hidden_size 16 is smaller than num_attention_heads 1000000000');
    // a tensor missing from the last layer: said before the first layer's bytes are read
    const ck = tinyLlama();
    const { ['model.layers.1.mlp.down_proj.weight']: _gone, ...rest } = ck.tensors;
    const { files, reads } = recordingFiles(checkpointFolder({ ...ck, tensors: rest }).files);
    await assert.rejects(loadCheckpoint(files, '/m'), { message: 'the checkpoint has no tensor model.layers.1.mlp.down_proj.weight (nor layers.1.mlp.down_proj.weight), expected [hidden_size, intermediate_size] = [16, 12]' });
    assert.equal(tensorReads(reads), 0);
  });

  it('absurd values are named, bounded, never "undefined": negative, fractional, zero, strings, a 100,000-character string', async () => {
    assert.equal((await loadError(tinyLlama(), { hidden_size: -16 })).e.message, 'config.json: "hidden_size" must be a positive whole number, found -16');
    assert.equal((await loadError(tinyLlama(), { num_hidden_layers: 2.5 })).e.message, 'config.json: "num_hidden_layers" must be a positive whole number, found 2.5');
    assert.equal((await loadError(tinyLlama(), { vocab_size: 0 })).e.message, 'config.json: "vocab_size" must be a positive whole number, found 0');
    assert.equal((await loadError(tinyLlama(), { intermediate_size: 'NaN' })).e.message, 'config.json: "intermediate_size" must be a positive whole number, found "NaN"');
    const long = (await loadError(tinyLlama(), { head_dim: 'x'.repeat(100_000) })).e.message;
    assert.ok(long.length < 200, `${long.length} characters`);
    assert.match(long, /^config\.json: "head_dim" must be a positive whole number, found "x+…" \(100,000 characters\)$/);
    const deep = (await loadError(tinyLlama(), { num_key_value_heads: JSON.parse('['.repeat(1000) + ']'.repeat(1000)) })).e.message;
    assert.equal(deep, 'config.json: "num_key_value_heads" must be a positive whole number, found [[[[…]]]]');
  });

  it('a config.json larger than any model\'s is refused by its size, not read', async () => {
    const big = new Uint8Array(MAX_CONFIG_BYTES + 1).fill(0x20);
    const { files, reads } = recordingFiles(folderOf({ 'config.json': big }).files);
    await assert.rejects(loadCheckpoint(files, '/m'), { message: 'config.json is 16.8 MB; a model\'s config.json is a few KB (FFN Lens reads up to 16.8 MB)' });
    assert.equal(reads.length, 0);
  });

  it('checkSizes alone: no layers at all; fewer layers in config.json than held (the rest are unused, as Hugging Face does); more layers or words than any model has', () => {
    const arch = parseConfig(JSON.stringify(tinyLlama().config));
    const held = (names: string[]) => new Map(names.map((n) => [n, { info: { shape: [1] } }]));
    assert.throws(() => checkSizes(arch, held(['model.norm.weight'])), { message: 'config.json says num_hidden_layers 2, but the tensors hold no layers (no tensor named model.layers.0.…)' });
    assert.doesNotThrow(() => checkSizes(arch, held(['layers.0.a', 'layers.1.a', 'layers.2.a'])));
    // files that agree with config.json, past what any model has
    const deep = parseConfig(JSON.stringify({ ...tinyLlama().config, num_hidden_layers: 5000 }));
    assert.throws(() => checkSizes(deep, held(Array.from({ length: 5000 }, (_, i) => `layers.${i}.a`))), { message: 'config.json says num_hidden_layers 5,000; FFN Lens computes and draws at most 4,096 layers (the deepest models have ~130)' });
    const wide = parseConfig(JSON.stringify({ ...tinyLlama().config, vocab_size: 5e6 }));
    const embed = new Map([...held(['layers.0.a', 'layers.1.a']), ['model.embed_tokens.weight', { info: { shape: [5e6, 16] } }]]);
    assert.throws(() => checkSizes(wide, embed), { message: 'config.json says vocab_size 5,000,000; FFN Lens labels at most 4,194,304 words (the widest vocabularies have ~260,000)' });
  });

  it('weights larger than the kernel\'s memory can hold: refused from the headers, with what they need and what is available', async () => {
    // a consistent checkpoint whose MLPs are 3·10⁷ wide (11.5 GB of float32): its header and sizes only, no bytes behind them
    const ck = tinyLlama({ tied: true });
    const F = 3e7;
    const shapes: Record<string, readonly number[]> = Object.fromEntries(Object.entries(ck.tensors).map(([n, t]) => [n, t.shape]));
    for (const n of Object.keys(shapes)) {
      if (/mlp\.(gate|up)_proj/.test(n)) shapes[n] = [F, 16];
      if (/mlp\.down_proj/.test(n)) shapes[n] = [16, F];
    }
    const header: Record<string, unknown> = {};
    let at = 0;
    for (const [n, shape] of Object.entries(shapes)) {
      const bytes = shape.reduce((a, b) => a * b, 1) * 4;
      header[n] = { dtype: 'F32', shape, data_offsets: [at, at + bytes] };
      at += bytes;
    }
    const head = new TextEncoder().encode(JSON.stringify(header));
    const start = new Uint8Array(8 + head.length);
    new DataView(start.buffer).setBigUint64(0, BigInt(head.length), true);
    start.set(head, 8);
    // (model.safetensors listed, so the folder's own lookup finds it; its size and bytes are these)
    const inner = folderOf({ 'config.json': { ...ck.config, intermediate_size: F }, 'model.safetensors': new Uint8Array(0) }).files;
    const files = {
      ...inner,
      size: async (p: string) => (p === '/m/model.safetensors' ? start.length + at : inner.size(p)),
      read: async (p: string, from = 0, end?: number) => {
        if (p !== '/m/model.safetensors') return inner.read(p, from, end);
        assert.ok(end !== undefined && end <= start.length, `a read of the weights' bytes (${from}…${end})`);
        return start.subarray(from, end);
      },
    };
    const holder = { weightArray: (): never => assert.fail('nothing is allocated'), halfArray: (): never => assert.fail('nothing is allocated'), intoPanels: (): never => assert.fail('nothing is allocated') };
    await assert.rejects(loadCheckpoint(files, '/m', holder), {
      message: 'the checkpoint\'s weights need 11.5 GB as FFN Lens holds them (float32, BF16 and F16 matrices at 2 bytes a number), available 3.8 GB: FFN Lens holds them in a WebAssembly memory, which cannot grow past 4 GiB',
    });
  });
});
