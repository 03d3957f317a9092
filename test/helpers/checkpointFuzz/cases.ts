// The checkpoint fuzzer's cases: case `i` of seed `s` is a seed checkpoint with one to three
// mutations, the same on every run (its generator is seeded by s and i alone), written to disk as
// a folder: model.ffn.json at its root, the checkpoint under it; and the decoy folder outside it
// that hostile links and shard paths point at (files there hold a valid checkpoint, so a read
// that gets out succeeds and is seen).

import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { safetensorsBytes, tinyGpt2 } from '../../../src/checkpoint/testing';
import { rng } from '../../../src/core/rng';
import { mutateBytes, mutateLink, mutateSafetensors } from './mutateFiles';
import { fileOf, mutateConfig, mutateIndex, mutateModelFile, mutateTokenizer } from './mutateJson';
import { mutateNpz, npy, writeMembers } from './mutateNpz';
import { mutateSaeCfg, mutateSaeKeys, mutateSaeWidth, mutateSteer } from './mutateSae';
import { pickSeed, tinyTokenizer, type FuzzCase, type Seed } from './seeds';
import { int, jsonText, type Rng } from './values';

type Mutation = (c: FuzzCase, r: Rng, outside: string) => string | null;

/** The families of mutation and how often each is drawn. */
export const FAMILIES: ReadonlyArray<readonly [string, number, Mutation]> = [
  ['config', 20, mutateConfig],
  ['safetensors', 24, mutateSafetensors],
  ['index', 8, (c, r, o) => mutateIndex(c, r, o) ?? (toShards(c) ? mutateIndex(c, r, o) : null)],
  ['tokenizer', 12, mutateTokenizer],
  ['model-file', 12, mutateModelFile],
  ['symlink', 12, mutateLink],
  ['bytes', 12, mutateBytes],
  // an SAE beside the checkpoint (saeSeeds.ts; null for a case without one: another family is drawn)
  ['sae-cfg', 6, mutateSaeCfg],
  ['sae-safetensors', 6, (c, r, o) => (c.saeDir ? mutateSafetensors(c, r, o, c.saeDir) : null)],
  ['sae-npz', 6, mutateNpz],
  ['sae-symlink', 4, (c, r, o) => (c.saeDir ? mutateLink(c, r, o, c.saeDir) : null)],
  ['sae-width', 3, mutateSaeWidth],
  ['sae-keys', 5, mutateSaeKeys],
  ['steer', 6, mutateSteer],
];

/** Case `i` of fuzzing seed `seed`: which seed checkpoint, which mutations (labels in c.mutations). */
export function makeCase(all: readonly Seed[], seed: number, i: number, outside: string, families: RegExp | null = null): FuzzCase {
  const r = rng((Math.imul(seed, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0);
  const c = pickSeed(all, r).make();
  if (r() < 0.02) return c; // (a few untouched: each seed must run clean)
  const n = 1 + (r() < 0.3 ? 1 : 0) + (r() < 0.1 ? 1 : 0);
  const drawn = families ? FAMILIES.filter((f) => families.test(f[0])) : FAMILIES;
  const total = drawn.reduce((s, f) => s + f[1], 0);
  for (let done = 0, tries = 0; done < n && tries < 20; tries++) {
    let x = r() * total;
    const fam = drawn.find((f) => (x -= f[1]) < 0) ?? drawn[0];
    let label: string | null;
    try {
      label = fam[2](c, r, outside);
    } catch {
      label = null; // (a mutation that does not fit what an earlier one left: another is drawn)
    }
    if (label === null) continue;
    c.mutations.push(`[${fam[0]}] ${label}`);
    done++;
  }
  return c;
}

/** A single-file checkpoint as one shard and its index (so that index mutations apply); false where it is not one. */
function toShards(c: FuzzCase): boolean {
  const rel = fileOf(c, 'model.safetensors');
  const b = rel && c.files.get(rel);
  if (!rel || !(b instanceof Uint8Array) || rel !== `${c.ckpt}/model.safetensors`) return false;
  const n = Number(new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true));
  let names: string[];
  try {
    names = Object.keys(JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + n))) as object).filter((k) => k !== '__metadata__');
  } catch {
    return false;
  }
  const shard = 'model-00001-of-00001.safetensors';
  c.files.delete(rel);
  c.files.set(`${c.ckpt}/${shard}`, b);
  c.files.set(`${c.ckpt}/model.safetensors.index.json`, new TextEncoder().encode(JSON.stringify({ metadata: { total_size: b.length }, weight_map: Object.fromEntries(names.map((x) => [x, shard])) })));
  c.mutations.push('[index] the checkpoint as one shard and its index');
  return true;
}

/** The model file's path in a case written at `root`. */
export const modelPath = (root: string): string => join(root, 'model.ffn.json');

/** Writes the case at `root` (emptied first); links to OUTSIDE/… point into `outside`. */
export function writeCase(c: FuzzCase, root: string, outside: string): string {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const [rel, e] of c.files) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    if (e instanceof Uint8Array) {
      writeFileSync(p, e);
      continue;
    }
    let target = e.link;
    if (target.startsWith('OUTSIDE')) {
      const abs = join(outside, target.slice('OUTSIDE'.length));
      target = e.relative ? relative(dirname(p), abs) : abs;
    }
    rmSync(p, { force: true });
    symlinkSync(target, p);
  }
  const file = modelPath(root);
  writeFileSync(file, c.modelText ?? jsonText(c.model, 2));
  return file;
}

/** The decoy folder: a valid tiny GPT-2 checkpoint, its tokenizer and a secret, outside every case. */
export function writeOutside(outside: string): void {
  rmSync(outside, { recursive: true, force: true });
  mkdirSync(outside, { recursive: true });
  const g = tinyGpt2();
  const st = safetensorsBytes(g.tensors);
  writeFileSync(join(outside, 'config.json'), JSON.stringify(g.config));
  writeFileSync(join(outside, 'model.safetensors'), st);
  writeFileSync(join(outside, 'tokenizer.json'), JSON.stringify(tinyTokenizer()));
  writeFileSync(join(outside, 'secret.txt'), 'the secret: read outside the checkpoint folder\n');
  writeFileSync(join(outside, 'model.safetensors.index.json'), JSON.stringify({ weight_map: Object.fromEntries(Object.keys(g.tensors).map((k) => [k, 'model.safetensors'])) }));
  // an SAE of both layouts, d_in 16 as the seeds' models
  const sae = join(outside, 'sae');
  mkdirSync(sae);
  const ones = (n: number): number[] => new Array<number>(n).fill(0.1);
  writeFileSync(join(sae, 'cfg.json'), JSON.stringify({ d_in: 16, d_sae: 4 }));
  writeFileSync(join(sae, 'sae_weights.safetensors'), safetensorsBytes({ W_enc: { shape: [16, 4], data: ones(64) }, W_dec: { shape: [4, 16], data: ones(64) } }));
  const arr = (shape: number[]): Uint8Array => npy(`{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`, new Uint8Array(4 * shape.reduce((a, b) => a * b, 1)));
  writeFileSync(join(sae, 'params.npz'), writeMembers([{ name: 'W_enc.npy', data: arr([16, 4]) }, { name: 'W_dec.npy', data: arr([4, 16]) }, { name: 'threshold.npy', data: arr([4]) }]));
}

export { int };
