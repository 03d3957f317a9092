// A Hugging Face checkpoint folder read into the core's params: config.json, then model.safetensors
// or model.safetensors.index.json with its shards. Tensor names are Hugging Face's, with or without
// the model's prefix (`transformer.h.0…` or `h.0…`; `model.layers.0…` or `layers.0…`), and each
// becomes the param id the block graph reads (src/core/params.ts), in the layout it is stored in:
// GPT-2's Conv1D weights are [in][out] (in_out), Llama's and Qwen2's Linear weights [out][in]
// (out_in). GPT-2's c_attn holds Q, K and V side by side and is split. A tied head is the very
// Param of the embedding.

import type { Param, Params } from '../core/params';
import type { ModelSpec } from '../core/spec';
import { parseConfig, type ArchConfig } from './config';
import type { CheckpointFiles } from './files';
import { CheckpointError, readHeader, readTensor, type SafetensorsFile, type TensorInfo } from './safetensors';

export { CheckpointError } from './safetensors';
export type { ArchConfig } from './config';

export interface Checkpoint {
  readonly folder: string;
  readonly arch: ArchConfig;
  readonly params: Params;
  /** The dtypes the weights are stored in (['F32'], ['BF16'], …). */
  readonly dtypes: readonly string[];
  /** Numbers in the checkpoint's tensors that the model uses (a tied head counted once). */
  readonly paramCount: number;
  /** Tensors of the files that are not part of the model (buffers such as GPT-2's attn.bias). */
  readonly ignored: readonly string[];
}

interface Located { readonly file: SafetensorsFile; readonly info: TensorInfo; readonly shown: string }

export async function loadCheckpoint(files: CheckpointFiles, folder: string): Promise<Checkpoint> {
  const name = (f: string): string => files.join(folder, f);
  const configPath = name('config.json');
  const configSize = await files.size(configPath);
  if (configSize === null) throw new CheckpointError(`no config.json in ${folder} (is it the folder of a Hugging Face model?)`, configPath);
  const arch = parseConfig(new TextDecoder().decode(await files.read(configPath)), configPath);

  // the files: one, or shards listed by the index
  const shards: SafetensorsFile[] = [];
  const single = name('model.safetensors');
  const indexPath = name('model.safetensors.index.json');
  if ((await files.size(single)) !== null) shards.push(await readHeader(files, single, 'model.safetensors'));
  else if ((await files.size(indexPath)) !== null) {
    let map: Record<string, unknown>;
    try {
      map = (JSON.parse(new TextDecoder().decode(await files.read(indexPath))) as { weight_map: Record<string, unknown> }).weight_map;
      if (!map || typeof map !== 'object') throw new Error();
    } catch {
      throw new CheckpointError('model.safetensors.index.json has no "weight_map" object', indexPath);
    }
    for (const shard of new Set(Object.values(map).map(String))) {
      if ((await files.size(name(shard))) === null) throw new CheckpointError(`${shard}, a shard model.safetensors.index.json lists, is missing`, name(shard));
      shards.push(await readHeader(files, name(shard), shard));
    }
  } else throw new CheckpointError(`no model.safetensors (nor model.safetensors.index.json with its shards) in ${folder}`, single);

  // every tensor, by its name without the model's prefix
  const byName = new Map<string, Located>();
  const prefix = arch.modelType === 'gpt2' ? /^transformer\./ : /^model\./;
  for (const f of shards) {
    for (const [n, info] of f.tensors) byName.set(n.replace(prefix, ''), { file: f, info, shown: n });
  }
  const used = new Set<string>();
  const dtypes = new Set<string>();
  let paramCount = 0;
  const get = async (n: string, shape: readonly number[], what: string): Promise<Float32Array> => {
    const t = byName.get(n);
    if (!t) throw new CheckpointError(`the checkpoint has no tensor ${n} (${what})`, undefined, n);
    if (t.info.shape.length !== shape.length || t.info.shape.some((d, i) => d !== shape[i])) {
      throw new CheckpointError(`${t.shown} is [${t.info.shape.join(', ')}], expected ${what} = [${shape.join(', ')}]`, t.file.path, t.shown);
    }
    used.add(n);
    dtypes.add(t.info.dtype);
    paramCount += shape.reduce((a, b) => a * b, 1);
    return readTensor(files, t.file, t.info, shownFile(t.file.path));
  };
  const has = (n: string): boolean => byName.has(n);

  const params = new Map<string, Param>();
  if (arch.modelType === 'gpt2') await gpt2Params(arch, get, params);
  else await llamaParams(arch, get, params);
  // the head: tied to the embedding (one Param), or its own matrix
  const headName = 'lm_head.weight';
  if (arch.tied || !has(headName)) {
    if (!arch.tied) throw new CheckpointError(`the checkpoint has no tensor lm_head.weight, and config.json does not tie the head to the embedding (tie_word_embeddings)`, undefined, headName);
    params.set('head.W', params.get('embed')!);
    if (has(headName)) used.add(headName); // (a tied head saved anyway holds the embedding's numbers)
  } else {
    params.set('head.W', mat(await get(headName, [arch.V, arch.C], '[vocab_size, hidden_size]'), [arch.V, arch.C], 'out_in'));
  }
  const ignored = [...byName.keys()].filter((n) => !used.has(n)).map((n) => byName.get(n)!.shown);
  return { folder, arch, params, dtypes: [...dtypes].sort(), paramCount, ignored };
}

const shownFile = (p: string): string => p.split(/[\\/]/).pop() ?? p;

type Get = (n: string, shape: readonly number[], what: string) => Promise<Float32Array>;
const mat = (data: Float32Array, shape: [number, number], layout: 'out_in' | 'in_out'): Param => ({ data, shape, layout });
const vec = (data: Float32Array): Param => ({ data, shape: [data.length] });

/** GPT-2's tensors (Conv1D weights stored [in][out]; c_attn's Q, K and V side by side, split here). */
async function gpt2Params(arch: ArchConfig, get: Get, params: Map<string, Param>): Promise<void> {
  const { C, F, L, V } = arch;
  params.set('embed', mat(await get('wte.weight', [V, C], '[vocab_size, n_embd]'), [V, C], 'out_in'));
  params.set('pos', mat(await get('wpe.weight', [arch.maxPositions, C], '[n_positions, n_embd]'), [arch.maxPositions, C], 'out_in'));
  for (let i = 0; i < L; i++) {
    const h = `h.${i}.`;
    const p = `layers.${i}.`;
    params.set(`${p}ln1.gamma`, vec(await get(`${h}ln_1.weight`, [C], '[n_embd]')));
    params.set(`${p}ln1.beta`, vec(await get(`${h}ln_1.bias`, [C], '[n_embd]')));
    // c_attn: [in][out] with Q, K, V side by side in out
    const qkv = await get(`${h}attn.c_attn.weight`, [C, 3 * C], '[n_embd, 3·n_embd]');
    const qkvB = await get(`${h}attn.c_attn.bias`, [3 * C], '[3·n_embd]');
    (['q', 'k', 'v'] as const).forEach((k, third) => {
      const w = new Float32Array(C * C);
      for (let r = 0; r < C; r++) w.set(qkv.subarray(r * 3 * C + third * C, r * 3 * C + (third + 1) * C), r * C);
      params.set(`${p}attn.W${k}`, mat(w, [C, C], 'in_out'));
      params.set(`${p}attn.b${k}`, vec(qkvB.slice(third * C, (third + 1) * C)));
    });
    params.set(`${p}attn.Wo`, mat(await get(`${h}attn.c_proj.weight`, [C, C], '[n_embd, n_embd]'), [C, C], 'in_out'));
    params.set(`${p}attn.bo`, vec(await get(`${h}attn.c_proj.bias`, [C], '[n_embd]')));
    params.set(`${p}ln2.gamma`, vec(await get(`${h}ln_2.weight`, [C], '[n_embd]')));
    params.set(`${p}ln2.beta`, vec(await get(`${h}ln_2.bias`, [C], '[n_embd]')));
    params.set(`${p}ffn.W1`, mat(await get(`${h}mlp.c_fc.weight`, [C, F], '[n_embd, n_inner]'), [C, F], 'in_out'));
    params.set(`${p}ffn.b1`, vec(await get(`${h}mlp.c_fc.bias`, [F], '[n_inner]')));
    params.set(`${p}ffn.W2`, mat(await get(`${h}mlp.c_proj.weight`, [F, C], '[n_inner, n_embd]'), [F, C], 'in_out'));
    params.set(`${p}ffn.b2`, vec(await get(`${h}mlp.c_proj.bias`, [C], '[n_embd]')));
  }
  params.set('ln_f.gamma', vec(await get('ln_f.weight', [C], '[n_embd]')));
  params.set('ln_f.beta', vec(await get('ln_f.bias', [C], '[n_embd]')));
}

/** Llama's and Qwen2's tensors (Linear weights stored [out][in]; Qwen2's q/k/v biases). */
async function llamaParams(arch: ArchConfig, get: Get, params: Map<string, Param>): Promise<void> {
  const { C, F, L, NH, KVH, HS, V } = arch;
  params.set('embed', mat(await get('embed_tokens.weight', [V, C], '[vocab_size, hidden_size]'), [V, C], 'out_in'));
  const Q = NH * HS;
  const KV = KVH * HS;
  for (let i = 0; i < L; i++) {
    const h = `layers.${i}.`;
    const p = `layers.${i}.`;
    const lin = async (id: string, n: string, out: number, inp: number, what: string): Promise<void> => {
      params.set(id, mat(await get(`${h}${n}.weight`, [out, inp], what), [out, inp], 'out_in'));
    };
    const bias = async (id: string, n: string, size: number, what: string): Promise<void> => {
      params.set(id, vec(await get(`${h}${n}.bias`, [size], what)));
    };
    params.set(`${p}ln1.gamma`, vec(await get(`${h}input_layernorm.weight`, [C], '[hidden_size]')));
    await lin(`${p}attn.Wq`, 'self_attn.q_proj', Q, C, '[heads·head_dim, hidden_size]');
    await lin(`${p}attn.Wk`, 'self_attn.k_proj', KV, C, '[kv_heads·head_dim, hidden_size]');
    await lin(`${p}attn.Wv`, 'self_attn.v_proj', KV, C, '[kv_heads·head_dim, hidden_size]');
    await lin(`${p}attn.Wo`, 'self_attn.o_proj', C, Q, '[hidden_size, heads·head_dim]');
    if (arch.qkvBias) {
      await bias(`${p}attn.bq`, 'self_attn.q_proj', Q, '[heads·head_dim]');
      await bias(`${p}attn.bk`, 'self_attn.k_proj', KV, '[kv_heads·head_dim]');
      await bias(`${p}attn.bv`, 'self_attn.v_proj', KV, '[kv_heads·head_dim]');
    }
    if (arch.oBias) await bias(`${p}attn.bo`, 'self_attn.o_proj', C, '[hidden_size]');
    params.set(`${p}ln2.gamma`, vec(await get(`${h}post_attention_layernorm.weight`, [C], '[hidden_size]')));
    await lin(`${p}ffn.W1`, 'mlp.up_proj', F, C, '[intermediate_size, hidden_size]');
    await lin(`${p}ffn.Wg`, 'mlp.gate_proj', F, C, '[intermediate_size, hidden_size]');
    await lin(`${p}ffn.W2`, 'mlp.down_proj', C, F, '[hidden_size, intermediate_size]');
    if (arch.mlpBias) {
      await bias(`${p}ffn.b1`, 'mlp.up_proj', F, '[intermediate_size]');
      await bias(`${p}ffn.bg`, 'mlp.gate_proj', F, '[intermediate_size]');
      await bias(`${p}ffn.b2`, 'mlp.down_proj', C, '[hidden_size]');
    }
  }
  params.set('ln_f.gamma', vec(await get('norm.weight', [C], '[hidden_size]')));
}


/** The core's spec of a checkpoint's model for an input: the architecture as checkpoints-v1 says. */
export function archSpec(arch: ArchConfig, o: { readonly ids: readonly number[]; readonly temperature: number; readonly lens: boolean }): ModelSpec {
  const gpt2 = arch.modelType === 'gpt2';
  const eps = new Map<string, number>([['ln_f', arch.eps]]);
  for (let i = 0; i < arch.L; i++) {
    eps.set(`layers.${i}.ln1`, arch.eps);
    eps.set(`layers.${i}.ln2`, arch.eps);
  }
  return {
    T: o.ids.length, C: arch.C,
    embedding: { kind: 'tokens', ids: [...o.ids], positional: gpt2 ? 'learned' : 'none' },
    norm: 'pre', normKind: gpt2 ? 'layernorm' : 'rmsnorm', eps, residual: true,
    layers: Array.from({ length: arch.L }, () => ({
      attention: { NH: arch.NH, KVH: arch.KVH, HS: arch.HS, causal: true, rope: arch.ropeTheta === null ? null : { theta: arch.ropeTheta } },
      ffn: { F: arch.F, activation: gpt2 ? 'gelu_tanh' as const : 'swiglu' as const },
    })),
    finalNorm: true,
    head: { V: arch.V, temperature: o.temperature },
    lens: o.lens,
  };
}
