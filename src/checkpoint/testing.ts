// Test helpers of the checkpoint loader (imported by tests only): a safetensors writer, exact
// float16/bfloat16 encoders, tiny GPT-2 and Llama/Qwen2 checkpoints, and a folder of them in memory.

import { rng } from '../core/rng';
import type { CheckpointFiles } from './files';
import { memoryFiles } from './memoryFiles';
import { layerTensorPrefix } from './tensorNames';

export type WriteDtype = 'F32' | 'F16' | 'BF16';

/** A tensor to write: numbers in a dtype, or raw bytes under any dtype name (to write bad files). */
export type TestTensor =
  | { readonly shape: readonly number[]; readonly data: ArrayLike<number>; readonly dtype?: WriteDtype }
  | { readonly shape: readonly number[]; readonly raw: Uint8Array; readonly dtype: string };

export type TestTensors = Record<string, TestTensor>;

const BYTES: Record<WriteDtype, number> = { F32: 4, F16: 2, BF16: 2 };

/**
 * A safetensors file of these tensors, in the order given, as Hugging Face's writer lays it out
 * (header padded with spaces to a multiple of 8, tensors back to back). `dtype` is the default of
 * tensors that give none.
 */
export function safetensorsBytes(tensors: TestTensors, dtype: WriteDtype = 'F32'): Uint8Array {
  const encoded = Object.entries(tensors).map(([name, t]) => {
    if ('raw' in t) return { name, shape: t.shape, dtype: t.dtype, bytes: t.raw };
    const d = t.dtype ?? dtype;
    return { name, shape: t.shape, dtype: d, bytes: encode(t.data, d) };
  });
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const e of encoded) {
    header[e.name] = { dtype: e.dtype, shape: e.shape, data_offsets: [at, at + e.bytes.length] };
    at += e.bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8);
  const head = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + head.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let p = 8 + head.length;
  for (const e of encoded) {
    out.set(e.bytes, p);
    p += e.bytes.length;
  }
  return out;
}

/**
 * A safetensors file of a header written as given (an object as JSON, text, or raw bytes), not
 * padded, followed by `data` (that many zero bytes, or these bytes): to write bad files.
 */
export function rawSafetensors(header: object | string | Uint8Array, data: number | Uint8Array = 0): Uint8Array {
  const json = header instanceof Uint8Array ? header : new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const tail = typeof data === 'number' ? new Uint8Array(data) : data;
  const out = new Uint8Array(8 + json.length + tail.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(tail, 8 + json.length);
  return out;
}

/** Numbers as little-endian bytes of a dtype (rounded to nearest, ties to even, as torch does). */
export function encode(data: ArrayLike<number>, dtype: WriteDtype): Uint8Array {
  const out = new Uint8Array(data.length * BYTES[dtype]);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < data.length; i++) {
    if (dtype === 'F32') dv.setFloat32(i * 4, data[i], true);
    else dv.setUint16(i * 2, dtype === 'F16' ? toF16Bits(data[i]) : toBf16Bits(data[i]), true);
  }
  return out;
}

function roundHalfEven(v: number): number {
  const f = Math.floor(v);
  const d = v - f;
  return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
}

/** A number → IEEE half-precision bits, rounded to nearest even (overflow → ±∞, NaN → 0x7e00). */
export function toF16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const s = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return s | 0x7c00;
  // subnormals (and zero) are whole multiples of 2^-24; 1024 of them is the smallest normal's bits
  if (a < 2 ** -14) return s | roundHalfEven(a * 2 ** 24);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  if (2 ** (e + 1) <= a) e++;
  let m = roundHalfEven((a / 2 ** e - 1) * 1024); // exact: scaling by a power of two
  if (m === 1024) { m = 0; e++; }
  if (e > 15) return s | 0x7c00;
  return s | ((e + 15) << 10) | m;
}

/** A number → bfloat16 bits: its float32 rounded to nearest even in the top 16 bits (NaN → 0x7fc0). */
export function toBf16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7fc0;
  const u = new Uint32Array(new Float32Array([x]).buffer)[0];
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** `n` seeded numbers in [-1, 1], multiples of 1/64: exact in F32, F16 and BF16 alike. */
export function exactNumbers(n: number, seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => Math.round(r() * 128 - 64) / 64);
}

const prod = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

export interface TinyCheckpoint {
  readonly config: Record<string, unknown>;
  readonly tensors: TestTensors;
}

/** GPT-2 dimensions of the tiny checkpoints (C 8, 2 heads, F 16, 2 layers, 11 words, 6 positions). */
export const TINY_GPT2 = { C: 8, NH: 2, F: 16, L: 2, V: 11, P: 6 } as const;

/** A tiny GPT-2 (Conv1D weights [in][out], c_attn Q|K|V, the attn.bias buffers as the Hub's files have them), tied head. */
export function tinyGpt2(opts: { readonly prefix?: string } = {}): TinyCheckpoint {
  const { C, NH, F, L, V, P } = TINY_GPT2;
  const prefix = opts.prefix ?? '';
  const t: TestTensors = {};
  let seed = 1;
  const add = (n: string, shape: number[], data?: ArrayLike<number>): void => void (t[prefix + n] = { shape, data: data ?? exactNumbers(prod(shape), seed++) });
  add('wte.weight', [V, C]);
  add('wpe.weight', [P, C]);
  for (let i = 0; i < L; i++) {
    const h = layerTensorPrefix('gpt2', i);
    add(`${h}ln_1.weight`, [C]); add(`${h}ln_1.bias`, [C]);
    add(`${h}attn.bias`, [1, 1, P, P], Float32Array.from({ length: P * P }, (_, k) => (k % P <= Math.floor(k / P) ? 1 : 0)));
    add(`${h}attn.c_attn.weight`, [C, 3 * C]); add(`${h}attn.c_attn.bias`, [3 * C]);
    add(`${h}attn.c_proj.weight`, [C, C]); add(`${h}attn.c_proj.bias`, [C]);
    add(`${h}ln_2.weight`, [C]); add(`${h}ln_2.bias`, [C]);
    add(`${h}mlp.c_fc.weight`, [C, F]); add(`${h}mlp.c_fc.bias`, [F]);
    add(`${h}mlp.c_proj.weight`, [F, C]); add(`${h}mlp.c_proj.bias`, [C]);
  }
  add('ln_f.weight', [C]); add('ln_f.bias', [C]);
  return {
    config: { model_type: 'gpt2', n_embd: C, n_layer: L, n_head: NH, n_inner: F, n_positions: P, vocab_size: V, layer_norm_epsilon: 1e-5, activation_function: 'gelu_new' },
    tensors: t,
  };
}

/** Llama/Qwen2 dimensions of the tiny checkpoints: grouped-query attention (4 heads, 2 key/value heads). */
export const TINY_LLAMA = { C: 16, NH: 4, KVH: 2, HS: 4, F: 12, L: 2, V: 13 } as const;

/** A tiny Llama (or Qwen2, with q/k/v biases), Linear weights [out][in], untied unless `tied` (then no lm_head). */
export function tinyLlama(opts: { readonly qwen2?: boolean; readonly tied?: boolean; readonly prefix?: string } = {}): TinyCheckpoint {
  const { C, NH, KVH, HS, F, L, V } = TINY_LLAMA;
  const prefix = opts.prefix ?? 'model.';
  const t: TestTensors = {};
  let seed = 101;
  const add = (n: string, shape: number[]): void => void (t[n] = { shape, data: exactNumbers(prod(shape), seed++) });
  add(`${prefix}embed_tokens.weight`, [V, C]);
  for (let i = 0; i < L; i++) {
    const h = prefix + layerTensorPrefix('llama', i);
    add(`${h}input_layernorm.weight`, [C]);
    add(`${h}self_attn.q_proj.weight`, [NH * HS, C]);
    add(`${h}self_attn.k_proj.weight`, [KVH * HS, C]);
    add(`${h}self_attn.v_proj.weight`, [KVH * HS, C]);
    if (opts.qwen2) {
      add(`${h}self_attn.q_proj.bias`, [NH * HS]); add(`${h}self_attn.k_proj.bias`, [KVH * HS]); add(`${h}self_attn.v_proj.bias`, [KVH * HS]);
    }
    add(`${h}self_attn.o_proj.weight`, [C, NH * HS]);
    add(`${h}post_attention_layernorm.weight`, [C]);
    add(`${h}mlp.gate_proj.weight`, [F, C]);
    add(`${h}mlp.up_proj.weight`, [F, C]);
    add(`${h}mlp.down_proj.weight`, [C, F]);
  }
  add(`${prefix}norm.weight`, [C]);
  if (!opts.tied) add('lm_head.weight', [V, C]);
  return {
    config: {
      model_type: opts.qwen2 ? 'qwen2' : 'llama', hidden_size: C, intermediate_size: F, num_hidden_layers: L, num_attention_heads: NH,
      num_key_value_heads: KVH, vocab_size: V, max_position_embeddings: 64, rms_norm_eps: 1e-6, rope_theta: 10000, tie_word_embeddings: !!opts.tied, hidden_act: 'silu',
    },
    tensors: t,
  };
}

/** The numbers of a test tensor (as written: before any rounding to its dtype). */
export function dataOf(t: TestTensor): ArrayLike<number> {
  if ('raw' in t) throw new Error('a raw tensor has no numbers');
  return t.data;
}

/**
 * A folder `/m` in memory with these files: bytes as they are, strings as UTF-8, objects as JSON.
 * The map is returned too, so a test can change a file afterwards.
 */
export function folderOf(entries: Record<string, Uint8Array | string | object>, folder = '/m'): { files: CheckpointFiles; map: Map<string, Uint8Array>; folder: string } {
  const map = new Map<string, Uint8Array>();
  for (const [name, v] of Object.entries(entries)) {
    const bytes = v instanceof Uint8Array ? v : new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
    map.set(`${folder}/${name}`, bytes);
  }
  return { files: memoryFiles(map), map, folder };
}

/** A tiny checkpoint as a folder in memory: config.json and one model.safetensors. */
export function checkpointFolder(ck: TinyCheckpoint, dtype: WriteDtype = 'F32'): { files: CheckpointFiles; map: Map<string, Uint8Array>; folder: string } {
  return folderOf({ 'config.json': ck.config, 'model.safetensors': safetensorsBytes(ck.tensors, dtype) });
}

/** CheckpointFiles that record every read (path, start, end), to check that reads are ranged. */
export function recordingFiles(inner: CheckpointFiles): { files: CheckpointFiles; reads: Array<{ path: string; start: number; end: number | undefined }> } {
  const reads: Array<{ path: string; start: number; end: number | undefined }> = [];
  return {
    reads,
    files: {
      size: (p) => inner.size(p),
      read: (p, start = 0, end) => {
        reads.push({ path: p, start, end });
        return inner.read(p, start, end);
      },
      join: (f, n) => inner.join(f, n),
      locate: (r, n) => inner.locate(r, n),
    },
  };
}
