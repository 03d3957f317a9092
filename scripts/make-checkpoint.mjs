#!/usr/bin/env node
// A random-weight checkpoint of a real model's shape, for trying FFN Lens at scale without a
// download (and for `npm run bench`'s sections of issue 30):
//
//   node scripts/make-checkpoint.mjs --shape llama-3.2-1b|llama-3.1-8b|gemma-2-2b|qwen2.5-0.5b [--dtype bf16|f32] [--tokens N] DIR
//
// Writes DIR/config.json (the Hub's config of that model), DIR/model.safetensors (the Hub's tensor
// names and shapes; weights normal with σ 0.02, norms' gains 1 (Gemma's stored 0: 1 + w), Qwen's
// q/k/v biases 0; bfloat16 by default), and DIR.ffn.json beside DIR, a model file pointing at it
// with N token ids (default 32). Files are written in 16 MB chunks: a 16 GB checkpoint never sits
// in memory. Standalone (no build needed); the same seed gives the same bytes.
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const llama3Rope = (factor) => ({ factor, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' });

/** Each shape: its config.json and how its tensors are laid out. */
const SHAPES = {
  'llama-3.2-1b': {
    kind: 'llama', C: 2048, F: 8192, L: 16, NH: 32, KVH: 8, HS: 64, V: 128256, tied: true, bos: 128000,
    config: {
      architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 128000, eos_token_id: 128001, head_dim: 64,
      hidden_act: 'silu', hidden_size: 2048, initializer_range: 0.02, intermediate_size: 8192, max_position_embeddings: 131072, mlp_bias: false,
      model_type: 'llama', num_attention_heads: 32, num_hidden_layers: 16, num_key_value_heads: 8, pretraining_tp: 1, rms_norm_eps: 1e-5,
      rope_scaling: llama3Rope(32.0), rope_theta: 500000.0, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_cache: true, vocab_size: 128256,
    },
  },
  'llama-3.1-8b': {
    kind: 'llama', C: 4096, F: 14336, L: 32, NH: 32, KVH: 8, HS: 128, V: 128256, tied: false, bos: 128000,
    config: {
      architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 128000, eos_token_id: 128001, head_dim: 128,
      hidden_act: 'silu', hidden_size: 4096, initializer_range: 0.02, intermediate_size: 14336, max_position_embeddings: 131072, mlp_bias: false,
      model_type: 'llama', num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 8, pretraining_tp: 1, rms_norm_eps: 1e-5,
      rope_scaling: llama3Rope(8.0), rope_theta: 500000.0, tie_word_embeddings: false, torch_dtype: 'bfloat16', use_cache: true, vocab_size: 128256,
    },
  },
  'qwen2.5-0.5b': {
    kind: 'qwen2', C: 896, F: 4864, L: 24, NH: 14, KVH: 2, HS: 64, V: 151936, tied: true, bos: 151643,
    config: {
      architectures: ['Qwen2ForCausalLM'], attention_dropout: 0.0, bos_token_id: 151643, eos_token_id: 151643, hidden_act: 'silu', hidden_size: 896,
      initializer_range: 0.02, intermediate_size: 4864, max_position_embeddings: 32768, max_window_layers: 24, model_type: 'qwen2',
      num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1000000.0, sliding_window: 32768,
      tie_word_embeddings: true, torch_dtype: 'bfloat16', use_cache: true, use_sliding_window: false, vocab_size: 151936,
    },
  },
  'gemma-2-2b': {
    kind: 'gemma2', C: 2304, F: 9216, L: 26, NH: 8, KVH: 4, HS: 256, V: 256000, tied: true, bos: 2,
    config: {
      architectures: ['Gemma2ForCausalLM'], attention_bias: false, attention_dropout: 0.0, attn_logit_softcapping: 50.0, bos_token_id: 2,
      cache_implementation: 'hybrid', eos_token_id: [1, 107], final_logit_softcapping: 30.0, head_dim: 256, hidden_act: 'gelu_pytorch_tanh',
      hidden_activation: 'gelu_pytorch_tanh', hidden_size: 2304, initializer_range: 0.02, intermediate_size: 9216, max_position_embeddings: 8192,
      model_type: 'gemma2', num_attention_heads: 8, num_hidden_layers: 26, num_key_value_heads: 4, pad_token_id: 0, query_pre_attn_scalar: 256,
      rms_norm_eps: 1e-6, rope_theta: 10000.0, sliding_window: 4096, torch_dtype: 'bfloat16', transformers_version: '4.42.4', use_cache: true,
      vocab_size: 256000,
    },
  },
};

/** [name, shape, fill] of every tensor, in the Hub's order of names. */
function tensorsOf(s) {
  const { C, F, L, NH, KVH, HS, V } = s;
  const gain = s.kind === 'gemma2' ? 'zeros' : 'ones';
  const t = [['model.embed_tokens.weight', [V, C], 'normal']];
  for (let i = 0; i < L; i++) {
    const h = `model.layers.${i}.`;
    t.push([`${h}input_layernorm.weight`, [C], gain]);
    t.push([`${h}self_attn.q_proj.weight`, [NH * HS, C], 'normal'], [`${h}self_attn.k_proj.weight`, [KVH * HS, C], 'normal'], [`${h}self_attn.v_proj.weight`, [KVH * HS, C], 'normal']);
    if (s.kind === 'qwen2') t.push([`${h}self_attn.q_proj.bias`, [NH * HS], 'zeros'], [`${h}self_attn.k_proj.bias`, [KVH * HS], 'zeros'], [`${h}self_attn.v_proj.bias`, [KVH * HS], 'zeros']);
    t.push([`${h}self_attn.o_proj.weight`, [C, NH * HS], 'normal'], [`${h}post_attention_layernorm.weight`, [C], gain]);
    if (s.kind === 'gemma2') t.push([`${h}pre_feedforward_layernorm.weight`, [C], gain], [`${h}post_feedforward_layernorm.weight`, [C], gain]);
    t.push([`${h}mlp.gate_proj.weight`, [F, C], 'normal'], [`${h}mlp.up_proj.weight`, [F, C], 'normal'], [`${h}mlp.down_proj.weight`, [C, F], 'normal']);
  }
  t.push(['model.norm.weight', [C], gain]);
  if (!s.tied) t.push(['lm_head.weight', [V, C], 'normal']);
  return t;
}

const count = (shape) => shape.reduce((a, b) => a * b, 1);

function header(tensors, dtype, per) {
  const h = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const [name, shape] of tensors) {
    const n = count(shape) * per;
    h[name] = { dtype, shape, data_offsets: [at, at + n] };
    at += n;
  }
  let json = JSON.stringify(h);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8);
  const out = Buffer.alloc(8 + json.length);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  out.write(json, 8, 'latin1');
  return { bytes: out, dataBytes: at };
}

/** Approximately normal numbers, σ 1 (a sum of four uniforms of a xorshift, scaled): fast enough for 8 billion. */
function normals(seed) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
  const k = Math.sqrt(3); // (four uniforms: variance 1/3)
  return () => (next() + next() + next() + next() - 2) * k;
}

function write(dir, shapeName, dtype, tokens) {
  const s = SHAPES[shapeName];
  const bf16 = dtype === 'bf16';
  const per = bf16 ? 2 : 4;
  const tensors = tensorsOf(s);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...s.config, torch_dtype: bf16 ? 'bfloat16' : 'float32' }, null, 2) + '\n');
  const { bytes, dataBytes } = header(tensors, bf16 ? 'BF16' : 'F32', per);
  const fd = openSync(join(dir, 'model.safetensors'), 'w');
  writeSync(fd, bytes);
  const normal = normals(1);
  const CHUNK = 4 << 20; // numbers per write (16 MB of float32)
  const f = new Float32Array(CHUNK);
  const u = new Uint32Array(f.buffer);
  const h = new Uint16Array(CHUNK);
  for (const [, shape, fill] of tensors) {
    for (let left = count(shape); left > 0;) {
      const n = Math.min(left, CHUNK);
      if (fill === 'normal') for (let i = 0; i < n; i++) f[i] = 0.02 * normal();
      else f.fill(fill === 'ones' ? 1 : 0, 0, n);
      if (bf16) {
        // the upper half of each float32, rounded to nearest even (as torch rounds)
        for (let i = 0; i < n; i++) h[i] = (u[i] + 0x7fff + ((u[i] >>> 16) & 1)) >>> 16;
        writeSync(fd, new Uint8Array(h.buffer, 0, n * 2));
      } else writeSync(fd, new Uint8Array(f.buffer, 0, n * 4));
      left -= n;
    }
  }
  closeSync(fd);
  const ids = Array.from({ length: tokens }, (_, i) => (i === 0 ? s.bos : (i * 7919 + 13) % Math.min(s.V, 100000)));
  const model = join(dirname(dir), `${basename(dir)}.ffn.json`);
  writeFileSync(model, `{\n  // A random-weight ${shapeName} checkpoint (scripts/make-checkpoint.mjs).\n  "version": 1,\n  "checkpoint": "./${basename(dir)}",\n  "token_ids": [${ids.join(', ')}]\n}\n`);
  return { file: join(dir, 'model.safetensors'), bytes: bytes.length + dataBytes, model };
}

function main(argv) {
  const opt = (name, dflt) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  const flags = new Set(['--shape', '--dtype', '--tokens']);
  const dir = argv.find((a, i) => !a.startsWith('--') && !flags.has(argv[i - 1]));
  const shape = opt('--shape');
  const dtype = opt('--dtype', 'bf16');
  const tokens = Number(opt('--tokens', '32'));
  if (!dir || !SHAPES[shape] || !['bf16', 'f32'].includes(dtype) || !(Number.isInteger(tokens) && tokens >= 1)) {
    console.error(`usage: node scripts/make-checkpoint.mjs --shape ${Object.keys(SHAPES).join('|')} [--dtype bf16|f32] [--tokens N] DIR`);
    process.exit(2);
  }
  const t0 = Date.now();
  const r = write(resolve(dir), shape, dtype, tokens);
  console.log(`${r.file}: ${(r.bytes / 1e9).toFixed(2)} GB (${shape}, ${dtype}) in ${((Date.now() - t0) / 1000).toFixed(1)} s; model file ${r.model}`);
}

main(process.argv.slice(2));
