// The checkpoint fuzzer's seeds: small real checkpoints of the repository (the reference cases'
// folders, stories260K) and tiny ones written by src/checkpoint/testing.ts, each with a model file
// that points at it by `token_ids` or, with a small tokenizer.json, by `prompt`; one laid out as
// the Hugging Face cache lays a download out (snapshots/REV/* linking to ../../blobs/*).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { safetensorsBytes, tinyGpt2, tinyLlama } from '../../../src/checkpoint/testing';

/** A file's bytes, or a symlink: to `target` as written, or (OUTSIDE/…) to the decoy folder outside the case. */
export type Entry = Uint8Array | { readonly link: string; readonly relative?: boolean };

export interface FuzzCase {
  readonly seed: string;
  /** Path relative to the case's root → entry. */
  readonly files: Map<string, Entry>;
  /** The model file's JSON (written as model.ffn.json at the root unless `modelText` is given). */
  model: Record<string, unknown>;
  modelText?: string;
  /** The checkpoint folder relative to the root. */
  readonly ckpt: string;
  /** The SAE's folder relative to the root, where the case has one (saeSeeds.ts). */
  readonly saeDir?: string;
  /** Arguments after the command (the model file's path is added). */
  argv: string[];
  readonly mutations: string[];
}

export interface Seed {
  readonly name: string;
  /** How often it is picked (stories260K is 1 MB: seldom). */
  readonly weight: number;
  make(): FuzzCase;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const json = (v: unknown): Uint8Array => enc(JSON.stringify(v, null, 2));

/** A SentencePiece-style BPE of 11 pieces (ids worked out as in tokenizer.test.ts): "ab ab c" → <s> ▁ab ▁ab ▁ c. */
export function tinyTokenizer(): Record<string, unknown> {
  return {
    version: '1.0',
    added_tokens: [
      { id: 0, content: '<unk>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
      { id: 1, content: '<s>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    ],
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
    post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [], special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }] },
    model: {
      type: 'BPE', unk_token: '<unk>', byte_fallback: true, fuse_unk: true, dropout: null, continuing_subword_prefix: null, end_of_word_suffix: null,
      vocab: { '<unk>': 0, '<s>': 1, '▁': 2, a: 3, b: 4, c: 5, '▁a': 6, '▁ab': 7, '<0x0A>': 8, ab: 9, '<0xE2>': 10 },
      merges: ['▁ a', '▁a b', 'a b'],
    },
  };
}

function folderSeed(name: string, dir: string, ids: number[], weight: number): Seed {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json') || f.endsWith('.safetensors')).map((f) => [f, readFileSync(join(dir, f))] as const);
  return {
    name, weight,
    make: () => ({
      seed: name,
      files: new Map(files.map(([f, b]) => [`ckpt/${f}`, new Uint8Array(b)])),
      model: { version: 1, name, checkpoint: './ckpt', token_ids: ids, lens: true },
      ckpt: 'ckpt',
      argv: ['stages', '--summary'],
      mutations: [],
    }),
  };
}

function tinySeed(name: string, config: Record<string, unknown>, st: Uint8Array, hfCache: boolean): Seed {
  const tok = json(tinyTokenizer());
  return {
    name, weight: 3,
    make: () => {
      const files = new Map<string, Entry>();
      let ckpt = 'ckpt';
      const put = (f: string, b: Uint8Array): void => {
        if (!hfCache) {
          files.set(`${ckpt}/${f}`, b);
          return;
        }
        // the cache's layout: the snapshot's files are links to blobs named by their hash
        files.set(`hub/models--t--m/blobs/${f.replace(/\W/g, '')}0b1e5`, b);
        files.set(`${ckpt}/${f}`, { link: `../../blobs/${f.replace(/\W/g, '')}0b1e5` });
      };
      if (hfCache) ckpt = 'hub/models--t--m/snapshots/3f2c0a1';
      put('config.json', json(config));
      put('model.safetensors', st);
      put('tokenizer.json', tok);
      return { seed: name, files, model: { version: 1, name, checkpoint: `./${ckpt}`, prompt: 'ab ab c', lens: true }, ckpt, argv: ['stages', '--summary'], mutations: [] };
    },
  };
}

/** Every seed, read once (`repo`: the repository's root). */
export function seeds(repo: string): Seed[] {
  const cases = join(repo, 'test/fixtures/checkpoint-cases');
  const g = tinyGpt2();
  const q = tinyLlama({ qwen2: true, tied: true });
  return [
    folderSeed('gpt2-tiny', join(cases, 'gpt2-tiny'), [1, 2, 3, 4], 3),
    folderSeed('gpt2-tiny-f16', join(cases, 'gpt2-tiny-f16'), [0, 5, 2], 2),
    folderSeed('llama-tiny-sharded', join(cases, 'llama-tiny'), [1, 7, 3, 2], 3),
    folderSeed('llama-headdim-sharded', join(cases, 'audit-llama-headdim'), [1, 2, 3], 2),
    folderSeed('qwen2-tiny', join(cases, 'qwen2-tiny'), [3, 1, 4], 2),
    folderSeed('llama-mqa-bf16', join(cases, 'audit-llama-mqa-bf16'), [2, 7], 1),
    folderSeed('stories260K', join(repo, 'samples/stories260K'), [1, 403, 407, 261, 378], 0.3),
    tinySeed('gpt2-prompt', g.config, safetensorsBytes(g.tensors), false),
    tinySeed('qwen2-prompt', { ...q.config, vocab_size: 13 }, safetensorsBytes(q.tensors, 'BF16'), false),
    tinySeed('gpt2-hf-cache', g.config, safetensorsBytes(g.tensors, 'F16'), true),
  ];
}

/** A seed picked by weight with `r`. */
export function pickSeed(all: readonly Seed[], r: () => number): Seed {
  const total = all.reduce((n, s) => n + s.weight, 0);
  let x = r() * total;
  for (const s of all) if ((x -= s.weight) < 0) return s;
  return all[all.length - 1];
}
