// Random-weight checkpoints of real 0.5–8B shapes, made at bench time by scripts/make-checkpoint.mjs
// in the system's temporary folder and deleted when the bench ends (never committed), and the
// multiply-adds of a forward of a spec (for GFLOP/s rows).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isGated } from '../src/core/activationKinds';
import type { ModelSpec } from '../src/core/spec';

export type BigShape = 'llama-3.2-1b' | 'llama-3.1-8b' | 'gemma-2-2b' | 'qwen2.5-0.5b';
export type BigDtype = 'bf16' | 'f32';

const REPO = resolve(__dirname, '..');
// (FFN_BENCH_BIG_DIR: a folder of them made before, e.g. under /work/big/ on a shared machine: used as they are, kept)
const DIR = process.env.FFN_BENCH_BIG_DIR || join(tmpdir(), `ffn-bench-big-${process.pid}`);
let cleanup = false;

export interface BigCheckpoint { folder: string; modelFile: string; bytes: number; makeMs: number }

/** The checkpoint's folder (config.json + model.safetensors) and the model file beside it, made if missing. */
export function bigCheckpoint(shape: BigShape, dtype: BigDtype): BigCheckpoint {
  const folder = join(DIR, `${shape}-${dtype}`);
  const file = join(folder, 'model.safetensors');
  let makeMs = 0;
  if (!existsSync(file)) {
    if (!cleanup) {
      cleanup = true;
      process.on('exit', () => rmSync(DIR, { recursive: true, force: true }));
    }
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'make-checkpoint.mjs'), '--shape', shape, '--dtype', dtype, folder], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`scripts/make-checkpoint.mjs --shape ${shape} --dtype ${dtype} failed: ${(r.stderr || r.stdout).trim().slice(0, 300)}`);
    makeMs = Date.now() - t0;
  }
  return { folder, modelFile: `${folder}.ffn.json`, bytes: statSync(file).size, makeMs };
}

/** Deletes one checkpoint now (the big F32 ones: 5 GB of disk each). */
export function dropBigCheckpoint(c: BigCheckpoint): void {
  rmSync(c.folder, { recursive: true, force: true });
  rmSync(c.modelFile, { force: true });
}

/** GFLOP of a forward of `spec` at its T: every product's 2·m·k·n, attention's two T×T products per head, the head. */
export function forwardGflop(spec: ModelSpec): number {
  const { T, C } = spec;
  let flop = 0;
  for (const L of spec.layers) {
    const a = L.attention;
    if (a) flop += 2 * T * (C * (a.NH + 2 * a.KVH) * a.HS + a.NH * a.HS * C) + 2 * 2 * a.NH * T * T * a.HS;
    if (L.ffn) flop += 2 * T * C * L.ffn.F * (isGated(L.ffn.activation) ? 3 : 2);
  }
  if (spec.head) flop += 2 * T * C * spec.head.V;
  return flop / 1e9;
}
