// The checkpoint fuzzer's seeds with an SAE beside the checkpoint (issue 31's "saes"): the PyTorch
// reference cases' GPT-2 and Llama folders (test/fixtures/sae-cases/) with SAELens' layout
// (cfg.json + sae_weights.safetensors: relu, topk) or Gemma Scope's (params.npz, jumprelu), at
// `sae/` of the case; some with feature edits, a steer (a vector, a feature, a contrast of two
// prompts through the tiny tokenizer) and the `sae` command.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry, FuzzCase, Seed } from './seeds';
import { tinyTokenizer } from './seeds';

const json = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v, null, 2));

function filesOf(dir: string, to: string): Array<[string, Uint8Array]> {
  return readdirSync(dir).map((f) => [`${to}/${f}`, new Uint8Array(readFileSync(join(dir, f)))]);
}

interface SaeSeedSpec {
  readonly name: string;
  readonly ckpt: string;
  readonly sae: string;
  readonly at: string;
  readonly ids: readonly number[];
  readonly weight: number;
  /** The steer it carries (and a prompt through the tiny tokenizer instead of ids, for a contrast). */
  readonly steer?: 'vector' | 'feature' | 'contrast';
  readonly edits?: boolean;
  readonly argv?: readonly string[];
}

function saeSeed(cases: string, s: SaeSeedSpec): Seed {
  const files: Array<[string, Uint8Array]> = [...filesOf(join(cases, s.ckpt), 'ckpt'), ...filesOf(join(cases, s.sae), 'sae')];
  if (s.steer === 'contrast') files.push(['ckpt/tokenizer.json', json(tinyTokenizer())]);
  const width = 16; // (both reference checkpoints: hidden size 16)
  return {
    name: s.name, weight: s.weight,
    make: (): FuzzCase => {
      const model: Record<string, unknown> = { version: 1, name: s.name, checkpoint: './ckpt', saes: [{ path: './sae', at: s.at }] };
      if (s.steer === 'contrast') model.prompt = 'ab ab c';
      else model.token_ids = [...s.ids];
      if (s.edits) {
        model.sae_ablate = [`${s.at.replace(/\.out$/, '')}.sae.1`];
        model.sae_clamp = { [`${s.at.replace(/\.out$/, '')}.sae.2`]: 2 };
      }
      if (s.steer === 'vector') model.steer = { 'layers.1.out': { vector: Array.from({ length: width }, (_, i) => (i % 5) / 10), alpha: 4 } };
      if (s.steer === 'feature') model.steer = { 'layers.1.out': { feature: `${s.at.replace(/\.out$/, '')}.sae.3`, alpha: 2, positions: 'last' } };
      if (s.steer === 'contrast') model.steer = { 'layers.0.out': { contrast: ['ab ab', 'c'], alpha: 3 } };
      return { seed: s.name, files: new Map<string, Entry>(files), model, ckpt: 'ckpt', saeDir: 'sae', argv: [...(s.argv ?? ['stages', '--summary'])], mutations: [] };
    },
  };
}

/** The SAE seeds (`repo`: the repository's root). */
export function saeSeeds(repo: string): Seed[] {
  const cases = join(repo, 'test/fixtures/sae-cases');
  return [
    saeSeed(cases, { name: 'sae-gpt2-relu', ckpt: 'gpt2', sae: 'sae-gpt2-relu', at: 'layers.0.out', ids: [5, 17, 3, 38], weight: 2, edits: true }),
    saeSeed(cases, { name: 'sae-gpt2-topk', ckpt: 'gpt2', sae: 'sae-gpt2-topk', at: 'layers.1.attn.out', ids: [5, 17, 3], weight: 1.5, argv: ['sae', '--k', '3'] }),
    saeSeed(cases, { name: 'sae-llama-npz', ckpt: 'llama', sae: 'sae-llama-jumprelu', at: 'layers.0.out', ids: [1, 15, 39, 0], weight: 2.5, steer: 'feature' }),
    saeSeed(cases, { name: 'sae-llama-scaled', ckpt: 'llama', sae: 'sae-llama-relu-scaled', at: 'layers.1.ffn.down', ids: [1, 15, 39], weight: 1, steer: 'vector' }),
    saeSeed(cases, { name: 'steer-gpt2-contrast', ckpt: 'gpt2', sae: 'sae-gpt2-relu', at: 'layers.0.out', ids: [], weight: 1.5, steer: 'contrast' }),
  ];
}
