// Writes a random-weight checkpoint of Llama-3.2-1B's shape (config.json + one model.safetensors)
// and a model file naming it, to measure a model past one WebAssembly memory (issue 30, "Past 4 GB"):
//   node esbuild.mjs --tests && node scripts/big-checkpoint.mjs /tmp/llama1b [F32|BF16]
//   /usr/bin/time -v node dist/cli.js stages --summary /tmp/llama1b.ffn.json
// F32: 4.9 GB on disk (and as float32: two WebAssembly memories). Delete the folder after: never commit it.
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { checkpointBytes, checkpointChunks } = require('../out/src/checkpoint/presets.js');

const [folder, dtype = 'F32'] = process.argv.slice(2);
if (!folder || !['F32', 'BF16', 'F16'].includes(dtype)) {
  console.error('usage: node scripts/big-checkpoint.mjs FOLDER [F32|BF16|F16]');
  process.exit(2);
}
const C = 2048, L = 16, F = 8192, NH = 32, KVH = 8, HS = 64, V = 128256;
const tensors = [{ name: 'model.embed_tokens.weight', shape: [V, C], fill: 'normal' }];
for (let i = 0; i < L; i++) {
  const h = `model.layers.${i}.`;
  tensors.push(
    { name: `${h}input_layernorm.weight`, shape: [C], fill: 'ones' },
    { name: `${h}self_attn.q_proj.weight`, shape: [NH * HS, C], fill: 'normal' },
    { name: `${h}self_attn.k_proj.weight`, shape: [KVH * HS, C], fill: 'normal' },
    { name: `${h}self_attn.v_proj.weight`, shape: [KVH * HS, C], fill: 'normal' },
    { name: `${h}self_attn.o_proj.weight`, shape: [C, NH * HS], fill: 'normal' },
    { name: `${h}post_attention_layernorm.weight`, shape: [C], fill: 'ones' },
    { name: `${h}mlp.gate_proj.weight`, shape: [F, C], fill: 'normal' },
    { name: `${h}mlp.up_proj.weight`, shape: [F, C], fill: 'normal' },
    { name: `${h}mlp.down_proj.weight`, shape: [C, F], fill: 'normal' },
  );
}
tensors.push({ name: 'model.norm.weight', shape: [C], fill: 'ones' });
const config = {
  architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: C, intermediate_size: F, num_hidden_layers: L,
  num_attention_heads: NH, num_key_value_heads: KVH, head_dim: HS, vocab_size: V, max_position_embeddings: 131072,
  rms_norm_eps: 1e-5, rope_theta: 500000, tie_word_embeddings: true, hidden_act: 'silu',
  torch_dtype: dtype === 'F32' ? 'float32' : dtype === 'F16' ? 'float16' : 'bfloat16',
};
const preset = { id: 'llama-3.2-1b-shape', dtype, config, tensors };

mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, 'config.json'), JSON.stringify(config, null, 2));
const out = createWriteStream(join(folder, 'model.safetensors'));
const t0 = Date.now();
for (const chunk of checkpointChunks(preset, 1, 16 << 20)) if (!out.write(chunk)) await once(out, 'drain');
out.end();
await once(out, 'finish');
const model = join(dirname(folder), `${basename(folder)}.ffn.json`);
writeFileSync(model, JSON.stringify({ version: 1, checkpoint: `./${basename(folder)}`, token_ids: [128000, 791, 6864, 315, 9822, 374, 12366, 13] }, null, 2));
console.log(`${join(folder, 'model.safetensors')}: ${(checkpointBytes(preset) / 1e9).toFixed(2)} GB ${dtype}, written in ${((Date.now() - t0) / 1000).toFixed(1)} s; model file ${model}`);
