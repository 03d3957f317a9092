// The checkpoint fuzzer's mutations of JSON files: config.json (sizes huge, negative, fractional,
// strings, nested, missing; model_type), model.safetensors.index.json (shard paths leading out,
// deep values), tokenizer.json (regexes that backtrack, wrong types, added tokens) and the model
// file's own keys (a tokenizer elsewhere, huge token_ids, long prompts). Each returns the label
// the report shows, or null when it does not apply to the case.

import type { FuzzCase } from './seeds';
import { deep, hostileSize, hostileValue, int, jsonText, pick, Raw, withKey, withoutKey, type Rng } from './values';

const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The case's file at `rel` as a JSON object, or null (not there, a link, not an object). */
function readJson(c: FuzzCase, rel: string): Record<string, unknown> | null {
  const e = c.files.get(rel);
  if (!(e instanceof Uint8Array)) return null;
  try {
    const v = JSON.parse(dec(e)) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The path of a file of the checkpoint (following the HF cache's snapshot links to their blobs). */
export function fileOf(c: FuzzCase, name: string): string | null {
  const rel = `${c.ckpt}/${name}`;
  const e = c.files.get(rel);
  if (e === undefined) return null;
  if (e instanceof Uint8Array) return rel;
  if (e.link.startsWith('../../blobs/')) return `${c.ckpt.replace(/snapshots\/[^/]+$/, 'blobs')}/${e.link.slice('../../blobs/'.length)}`;
  return null;
}

const CONFIG_KEYS = [
  'model_type', 'n_embd', 'n_layer', 'n_head', 'n_inner', 'n_positions', 'vocab_size', 'layer_norm_epsilon', 'activation_function',
  'hidden_size', 'intermediate_size', 'num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'head_dim', 'max_position_embeddings',
  'rms_norm_eps', 'rope_theta', 'rope_scaling', 'rope_parameters', 'tie_word_embeddings', 'hidden_act', 'attention_bias', 'mlp_bias',
  'use_sliding_window', 'bos_token_id', 'scale_attn_weights', 'scale_attn_by_inverse_layer_idx', '__proto__', 'constructor', 'toString',
];

const ROPE = (r: Rng): { value: unknown; label: string } => {
  const h = hostileValue(r);
  const list: Array<[unknown, string]> = [
    [{ type: 'linear', factor: h.value }, `linear, factor ${h.label}`],
    [{ rope_type: 'llama3', factor: 8, low_freq_factor: h.value, high_freq_factor: 4, original_max_position_embeddings: 8192 }, `llama3, low_freq_factor ${h.label}`],
    [{ rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: h.value }, `llama3, original_max_position_embeddings ${h.label}`],
    [{ type: 'dynamic', factor: h.value }, `dynamic, factor ${h.label}`],
    [{ type: h.value }, `type ${h.label}`],
    [{ rope_type: 'yarn', factor: 4 }, 'yarn'],
    [{ rope_theta: h.value }, `rope_theta ${h.label}`],
    [{ type: 'linear', factor: 1e-300 }, 'linear, factor 1e-300'],
  ];
  const [value, label] = pick(r, list);
  return { value, label };
};

/** config.json: one key made hostile, removed, or resized; or the whole file. */
export function mutateConfig(c: FuzzCase, r: Rng): string | null {
  const rel = fileOf(c, 'config.json');
  const cfg = rel && readJson(c, rel);
  if (!rel || !cfg) return null;
  const k = int(r, 10);
  if (k === 0) {
    const whole = pick(r, ['', 'null', '[]', '"x"', '{', '\ufeff' + JSON.stringify(cfg), jsonText(deep(100000, true)), JSON.stringify(cfg) + 'x'.repeat(10)]);
    c.files.set(rel, enc(whole));
    return `config.json is ${JSON.stringify(whole.slice(0, 30))}${whole.length > 30 ? '…' : ''} (${whole.length} chars)`;
  }
  const present = Object.keys(cfg);
  const key = r() < 0.6 ? pick(r, present) : pick(r, CONFIG_KEYS);
  if (k === 1) {
    c.files.set(rel, enc(jsonText(withoutKey(cfg, key))));
    return `config.json without "${key}"`;
  }
  const v = cfg[key];
  const h = key.startsWith('rope') && r() < 0.7 ? ROPE(r) : typeof v === 'number' && Number.isInteger(v) && r() < 0.5 ? hostileSize(r, v) : hostileValue(r);
  let next = withKey(cfg, key, h.value);
  if (k === 2 && r() < 0.5) {
    // two keys at once: a model_type and its sizes that disagree
    next = withKey(next, 'model_type', pick(r, ['gpt2', 'llama', 'qwen2', 'mistral', 'GPT2', '']));
  }
  c.files.set(rel, enc(jsonText(next, 2)));
  return `config.json "${key}": ${h.label}${k === 2 ? ` (and model_type ${JSON.stringify(next.model_type)})` : ''}`;
}

const SHARD_PATHS = (outsideAbs: string): string[] => [
  '../../outside/model.safetensors', '../outside/model.safetensors', `${outsideAbs}/model.safetensors`, '/etc/passwd', '/dev/zero', '/proc/self/environ',
  'sub/../../../outside/model.safetensors', '..', '.', '', 'config.json', 'model.safetensors.index.json', 'a\u0000b', 'x'.repeat(5000),
  'C:\\Windows\\win.ini', '\\\\server\\share\\x.safetensors', 'file:///etc/passwd', '~/x.safetensors', '%2e%2e/outside/model.safetensors',
];

/** model.safetensors.index.json: a shard path that leads out, a hostile value, or a hostile shape of the file. */
export function mutateIndex(c: FuzzCase, r: Rng, outsideAbs: string): string | null {
  const rel = fileOf(c, 'model.safetensors.index.json');
  const idx = rel && readJson(c, rel);
  if (!rel || !idx) return null;
  const map = (idx.weight_map ?? {}) as Record<string, unknown>;
  const names = Object.keys(map);
  const k = int(r, 6);
  let label: string;
  if (k <= 2 && names.length) {
    const name = pick(r, names);
    const all = r() < 0.3;
    const to = pick(r, SHARD_PATHS(outsideAbs));
    const next: Record<string, unknown> = {};
    for (const n of names) next[n] = all || n === name ? to : map[n];
    idx.weight_map = next;
    label = `index: ${all ? 'every tensor' : name} in shard ${JSON.stringify(to.slice(0, 60))}`;
  } else if (k === 3 && names.length) {
    const name = pick(r, names);
    const h = hostileValue(r);
    idx.weight_map = withKey(map, name, h.value);
    label = `index: ${name}'s shard ${h.label}`;
  } else if (k === 4) {
    const h = hostileValue(r);
    idx.weight_map = h.value;
    label = `index: weight_map ${h.label}`;
  } else {
    const n = pick(r, [1000, 1000, 30000]);
    const first = names[0] ?? 'x';
    const next: Record<string, unknown> = { ...map };
    for (let i = 0; i < n; i++) next[`junk.${i}.weight`] = map[first] ?? 'model.safetensors';
    idx.weight_map = next;
    label = `index: ${n} extra tensors in weight_map`;
  }
  c.files.set(rel, enc(jsonText(idx)));
  return label;
}

const REDOS = ['(a+)+$', '(a|a)*$', '(a|aa)+$', '([a-z]+)*$', '(\\w+\\s?)*$', '(.*a){20}'];

/** tokenizer.json: a regex that backtracks, one that does not compile, a wrong type, added tokens. */
export function mutateTokenizer(c: FuzzCase, r: Rng): string | null {
  const rel = fileOf(c, 'tokenizer.json');
  const tok = rel && readJson(c, rel);
  if (!rel || !tok) return null;
  const model = (tok.model ?? {}) as Record<string, unknown>;
  const k = int(r, 12);
  let label: string;
  if (k <= 1) {
    const re = pick(r, REDOS);
    const where = r() < 0.5 ? 'pre_tokenizer' : 'normalizer';
    tok[where] = where === 'pre_tokenizer'
      ? { type: 'Split', pattern: { Regex: re }, behavior: 'Isolated', invert: false }
      : { type: 'Replace', pattern: { Regex: re }, content: 'b' };
    c.model.prompt = 'a'.repeat(pick(r, [24, 30, 40])) + '!';
    label = `tokenizer ${where} regex ${re}, prompt a…a!`;
  } else if (k === 2) {
    const re = pick(r, ['(', '[', '\\', '(?<name', '(?i)a', '\\p{Foo}', 'a{99999999999}', '(?P<x>a)', '[z-a]']);
    tok.pre_tokenizer = { type: 'Split', pattern: { Regex: re }, behavior: pick(r, ['Isolated', 'Removed', 'Bogus']), invert: false };
    label = `tokenizer pre_tokenizer regex ${JSON.stringify(re)}`;
  } else if (k <= 4) {
    const h = hostileValue(r);
    const id = r() < 0.5 ? h.value : pick(r, [2 ** 31, 2 ** 32, 1e9, -1, 1.5, 11, 2 ** 53]);
    const entry = { id, content: r() < 0.3 ? h.value : 'zz', single_word: false, lstrip: false, rstrip: false, normalized: false, special: r() < 0.5 };
    tok.added_tokens = [...(Array.isArray(tok.added_tokens) ? tok.added_tokens : []), entry];
    label = `tokenizer added_tokens entry id ${JSON.stringify(id)?.slice(0, 30)}, content ${typeof entry.content === 'string' ? JSON.stringify(entry.content.slice(0, 20)) : h.label}`;
    if (r() < 0.5) c.model.prompt = 'ab zz ab';
  } else if (k === 5) {
    const h = hostileValue(r);
    tok.added_tokens = h.value;
    label = `tokenizer added_tokens ${h.label}`;
  } else if (k === 6) {
    const key = pick(r, ['type', 'vocab', 'merges', 'unk_token', 'byte_fallback', 'dropout', 'ignore_merges', 'continuing_subword_prefix']);
    const h = key === 'type' && r() < 0.5 ? { value: pick(r, ['WordLevel', 'Foo', 'Unigram', 'WordPiece', 'bpe']), label: 'another model type' } : hostileValue(r);
    tok.model = withKey(model, key, h.value);
    label = `tokenizer model.${key} ${h.label}`;
  } else if (k === 7) {
    const vocab = { ...(model.vocab as Record<string, unknown>) };
    const word = pick(r, Object.keys(vocab));
    const h = r() < 0.5 ? { value: pick(r, [2 ** 31, 2 ** 32 + 1, 1e9, -5, 0.5, 2 ** 53 + 2]), label: 'a hostile id' } : hostileValue(r);
    vocab[word] = h.value;
    tok.model = { ...model, vocab };
    label = `tokenizer vocab "${word}": ${h.label} ${typeof h.value === 'number' ? h.value : ''}`;
  } else if (k === 8) {
    const key = pick(r, ['pre_tokenizer', 'normalizer', 'post_processor', 'decoder', 'model', 'truncation', 'padding']);
    const h = r() < 0.5 ? { value: { type: pick(r, ['Foo', 'Sequence', 'Precompiled', 'Strip', 'TemplateProcessing', 'BertProcessing']) }, label: 'a bare or unknown type' } : hostileValue(r);
    tok[key] = h.value;
    label = `tokenizer ${key} ${h.label}`;
  } else if (k === 9) {
    const ids = pick(r, [[2 ** 31], [1e9], [-1], [1.5], ['1'], [], [99]]);
    tok.post_processor = { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [], special_tokens: { '<s>': { id: '<s>', ids, tokens: ['<s>'] } } };
    label = `tokenizer post_processor <s> ids ${JSON.stringify(ids)}`;
  } else if (k === 10) {
    const whole = pick(r, ['', 'null', '[]', '{}', '{"model":{}}', jsonText(deep(100000, false)), '{"model":' + '['.repeat(5000)]);
    c.files.set(rel, enc(whole));
    return `tokenizer.json is ${JSON.stringify(whole.slice(0, 20))}… (${whole.length} chars)`;
  } else {
    const cfgRel = rel.replace(/tokenizer\.json$/, 'tokenizer_config.json');
    const h = hostileValue(r);
    const key = pick(r, ['add_bos_token', 'add_eos_token', 'bos_token', 'model_max_length', 'chat_template', 'tokenizer_class', 'added_tokens_decoder', 'clean_up_tokenization_spaces']);
    c.files.set(cfgRel, enc(jsonText(withKey({ tokenizer_class: 'LlamaTokenizer', add_bos_token: true }, key, h.value))));
    return `tokenizer_config.json "${key}": ${h.label}`;
  }
  c.files.set(rel, enc(jsonText(tok)));
  return label;
}

/** The model file's keys: a tokenizer or checkpoint path elsewhere, huge token_ids, long prompts. */
export function mutateModelFile(c: FuzzCase, r: Rng, outsideAbs: string): string | null {
  const m = c.model;
  const k = int(r, 9);
  if (k <= 1) {
    const n = pick(r, [300, 300, 5000, 5000, 100000, r() < 0.2 ? 1000000 : 20000]);
    const v = 1 + int(r, 10);
    m.token_ids = Array.from({ length: n }, (_, i) => (i * 7 + v) % 11);
    delete m.prompt;
    return `model token_ids: ${n} ids`;
  }
  if (k === 2) {
    const h = hostileValue(r);
    const at = int(r, 3);
    const ids = Array.isArray(m.token_ids) ? [...(m.token_ids as unknown[])] : [1, 2];
    ids[at] = h.value;
    m.token_ids = ids;
    delete m.prompt;
    return `model token_ids[${at}]: ${h.label}`;
  }
  if (k === 3) {
    const n = pick(r, [10000, 10000, 200000, r() < 0.2 ? 2000000 : 100000]);
    m.prompt = pick(r, ['ab ', 'a', 'abc', '€ ', '\n']).repeat(n / 2);
    delete m.token_ids;
    return `model prompt of ${n / 2} pieces`;
  }
  if (k === 4) {
    const to = pick(r, [`${outsideAbs}/tokenizer.json`, '/dev/zero', '/dev/urandom', '/proc/self/environ', '/', '', `./${c.ckpt}/model.safetensors`, `./${c.ckpt}`, 'a\u0000b', 'x/'.repeat(3000) + 't.json', '/etc/shadow']);
    m.tokenizer = to;
    if (!('prompt' in m)) m.prompt = 'ab c';
    delete m.token_ids;
    return `model tokenizer ${JSON.stringify(to.slice(0, 60))}`;
  }
  if (k === 5) {
    const to = pick(r, ['', '.', '/', `./${c.ckpt}/config.json`, 'a\u0000b', '/dev', '/proc/self', 'x/'.repeat(3000), '..']);
    m.checkpoint = to;
    return `model checkpoint ${JSON.stringify(to.slice(0, 60))}`;
  }
  if (k === 6) {
    const key = pick(r, ['checkpoint', 'tokenizer', 'prompt', 'lens', 'temperature', 'corrupted_token_ids', 'corrupted_prompt', 'tokens', 'ablate', 'scale', 'weights', 'name']);
    const h = hostileValue(r);
    c.model = withKey(m, key, h.value);
    return `model "${key}": ${h.label}`;
  }
  if (k === 7) {
    const what = pick(r, ['ablate', 'scale', 'weights']);
    const unit = pick(r, ['layers.99999999999999999999.ffn.neuron.0', 'layers.0.ffn.neuron.9007199254740993', 'layers.1.attn.head.4294967296', 'layers.0.ffn.W1[99999999999999999999][0]', 'embed[4294967296]', 'layers.0.attn.Wq[0][1e9]']);
    if (what === 'ablate') m.ablate = [unit];
    else if (what === 'scale') m.scale = { [unit]: 2 };
    else m.weights = { [unit.replace(/\.(neuron|head)\.\d+$/, '.W1[0]')]: 1 };
    return `model ${what} ${unit}`;
  }
  // the command: a research lens instead of stages, or the full data
  c.argv = pick(r, [['stages'], ['stages', '--summary'], ['lens'], ['dla'], ['heads'], ['patch', '--corrupted-ids', '1,2,3']]);
  return `command ${c.argv.join(' ')}`;
}

export { Raw };
