// Memory of opening a random BF16 checkpoint of a real shape through the CLI (issue 30: weights in
// their own dtype). Writes config.json + model.safetensors (seeded random weights) to a temporary
// folder (never committed), runs `node dist/cli.js stages --summary` on a model file pointing at it
// under /usr/bin/time, and prints its peak resident memory against the checkpoint's bytes.
// Usage: node scripts/memory16.mjs [qwen2.5-0.5b|llama-3.2-1b ...] (needs `node esbuild.mjs --tests` for out/).
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { checkpointChunks, configText } = require('../out/src/checkpoint/presets.js');

// Llama-family tensors (qwen2 with q/k/v biases) of one shape
function llamaLike({ id, type, C, L, NH, KVH, F, V, tied, bias, extra }) {
  const HS = C / NH;
  const t = [{ name: 'model.embed_tokens.weight', shape: [V, C], fill: 'normal' }];
  for (let i = 0; i < L; i++) {
    const p = `model.layers.${i}.`;
    t.push({ name: `${p}input_layernorm.weight`, shape: [C], fill: 'ones' });
    for (const [n, rows] of [['q', NH * HS], ['k', KVH * HS], ['v', KVH * HS]]) {
      t.push({ name: `${p}self_attn.${n}_proj.weight`, shape: [rows, C], fill: 'normal' });
      if (bias) t.push({ name: `${p}self_attn.${n}_proj.bias`, shape: [rows], fill: 'zeros' });
    }
    t.push(
      { name: `${p}self_attn.o_proj.weight`, shape: [C, NH * HS], fill: 'normal' },
      { name: `${p}post_attention_layernorm.weight`, shape: [C], fill: 'ones' },
      { name: `${p}mlp.gate_proj.weight`, shape: [F, C], fill: 'normal' },
      { name: `${p}mlp.up_proj.weight`, shape: [F, C], fill: 'normal' },
      { name: `${p}mlp.down_proj.weight`, shape: [C, F], fill: 'normal' },
    );
  }
  t.push({ name: 'model.norm.weight', shape: [C], fill: 'ones' });
  if (!tied) t.push({ name: 'lm_head.weight', shape: [V, C], fill: 'normal' });
  return {
    id, folder: id, dtype: 'BF16', tensors: t, tokenIds: [1, 2, 3],
    config: {
      architectures: [type === 'qwen2' ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM'], model_type: type, hidden_size: C, intermediate_size: F,
      num_hidden_layers: L, num_attention_heads: NH, num_key_value_heads: KVH, vocab_size: V, max_position_embeddings: 32768,
      rms_norm_eps: 1e-6, rope_theta: 500000, tie_word_embeddings: tied, hidden_act: 'silu', torch_dtype: 'bfloat16', ...extra,
    },
  };
}

const SHAPES = {
  'qwen2.5-0.5b': llamaLike({ id: 'qwen2.5-0.5b', type: 'qwen2', C: 896, L: 24, NH: 14, KVH: 2, F: 4864, V: 151936, tied: true, bias: true, extra: { rope_theta: 1000000 } }),
  'llama-3.2-1b': llamaLike({
    id: 'llama-3.2-1b', type: 'llama', C: 2048, L: 16, NH: 32, KVH: 8, F: 8192, V: 128256, tied: true, bias: false,
    extra: { head_dim: 64, rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
  }),
};

const dir = join(tmpdir(), 'ffn-memory16');
const T = 32;
for (const name of process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SHAPES)) {
  const preset = SHAPES[name];
  const folder = join(dir, preset.folder);
  if (!existsSync(join(folder, 'model.safetensors'))) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'config.json'), configText(preset));
    const fd = openSync(join(folder, 'model.safetensors.part'), 'w');
    for (const c of checkpointChunks(preset)) writeSync(fd, c);
    closeSync(fd);
    execFileSync('mv', [join(folder, 'model.safetensors.part'), join(folder, 'model.safetensors')]);
  }
  const bytes = statSync(join(folder, 'model.safetensors')).size;
  const file = join(dir, `${name}.ffn.json`);
  const ids = Array.from({ length: T }, (_, i) => (i * 7919) % 30000);
  writeFileSync(file, JSON.stringify({ version: 1, checkpoint: `./${preset.folder}`, token_ids: ids }));
  const timeFile = join(dir, 'time.txt');
  let summary = '';
  try {
    summary = execFileSync('/usr/bin/time', ['-f', '%M %e', '-o', timeFile, process.execPath, 'dist/cli.js', 'stages', '--summary', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  } catch (e) {
    console.log(`${name}: the CLI failed: ${String(e.stderr ?? e).trim().split('\n').slice(-3).join(' | ')}`);
  }
  const [peakKB, seconds] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  // the stages kept: every stage's numbers, as the summary lists them (shape [T, …] each, float32)
  const stageBytes = stagesBytes(summary);
  const peak = peakKB * 1024;
  console.log(`${name}: checkpoint ${(bytes / 1e9).toFixed(3)} GB; CLI peak RSS ${(peak / 1e9).toFixed(3)} GB in ${seconds} s; stages ${(stageBytes / 1e9).toFixed(3)} GB; ` +
    `peak / checkpoint ${(peak / bytes).toFixed(3)}; (peak − stages) / checkpoint ${((peak - stageBytes) / bytes).toFixed(3)}`);
}

// Sum of the float32 bytes of every stage the summary lists with a shape like [32, 896] or (32, 14, 32, 32)
function stagesBytes(text) {
  let n = 0;
  for (const m of text.matchAll(/[[(](\d+(?:\s*[,×x]\s*\d+)+)[\])]/g)) n += m[1].split(/[,×x]/).reduce((a, d) => a * Number(d.trim()), 1) * 4;
  return n;
}
