// Section `sae`: a random SAE of 16k features (d_sae 16384, SAELens' layout written here at bench
// time) attached at `layers.6.out` of a random-weight GPT-2-small (F32, T = 32), in the worker's
// engine, every stage computed again each round (another first token). Issue 31: the SAE's stages
// (acts, recon, error, the splice) ≤ 0.15× the model's own stages of the same walk (the full
// forward), each stage timed as the walk computes it. TopK (k = 64: a sparse decode, the selection
// per token) is the target; ReLU and JumpReLU of the same weights are information (ReLU with a
// negative b_enc: ~2% fire; JumpReLU's threshold likewise).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { nodeFiles } from '../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../src/checkpoint/store';
import { safetensorsBytes } from '../src/checkpoint/testing';
import { Engine } from '../src/core/engine';
import { parseSaeId } from '../src/core/ids';
import type { MatmulKernel } from '../src/core/matmulKernel';
import type { Model } from '../src/core/model';
import { rng } from '../src/core/rng';
import { withTokens } from '../src/lenses/cache';
import { readModel } from '../src/model/read';

interface Stat { median: number; min: number; max: number; n: number }
export interface SaeBenchReport {
  target(what: string, tgt: string, unit: string, value: Stat, pass: boolean, note?: string): void;
  information(what: string, unit: string, value: Stat, note?: string): void;
  stat(xs: number[]): Stat;
  results: Record<string, unknown>;
  quick: boolean;
}

const D_IN = 768;
const D_SAE = 16384;
const K = 64;
const T = 32;
const BOUND = 0.15;

type Kind = 'topk' | 'relu' | 'jumprelu';

/** A random SAE of 16k features in SAELens' layout (written once per kind under the bench's folder). */
function writeSae(dir: string, kind: Kind): string {
  const folder = join(dir, `sae-gpt2-16k-${kind}`);
  if (existsSync(join(folder, 'sae_weights.safetensors'))) return folder;
  mkdirSync(folder, { recursive: true });
  const r = rng(31);
  const normal = (n: number, s: number): Float32Array => Float32Array.from({ length: n }, () => s * (r() + r() + r() - 1.5) * 2);
  const W = normal(D_IN * D_SAE, 1 / Math.sqrt(D_IN));
  // (the decoder: the encoder's transpose, as SAELens initialises it)
  const Wd = new Float32Array(D_SAE * D_IN);
  for (let i = 0; i < D_IN; i++) for (let f = 0; f < D_SAE; f++) Wd[f * D_IN + i] = W[i * D_SAE + f];
  const cfg = { d_in: D_IN, d_sae: D_SAE, architecture: kind === 'relu' ? 'standard' : kind, ...(kind === 'topk' ? { k: K } : {}), apply_b_dec_to_input: true, normalize_activations: 'none', hook_name: 'blocks.6.hook_resid_post' };
  // (a stream of GPT-2-small's random weights has norms of tens: pre-activations of a few units; the bias keeps ~2% firing)
  const tensors: Parameters<typeof safetensorsBytes>[0] = {
    W_enc: { shape: [D_IN, D_SAE], data: W }, W_dec: { shape: [D_SAE, D_IN], data: Wd },
    b_enc: { shape: [D_SAE], data: new Float32Array(D_SAE).fill(kind === 'relu' ? -2 : 0) }, b_dec: { shape: [D_IN], data: normal(D_IN, 0.1) },
    ...(kind === 'jumprelu' ? { threshold: { shape: [D_SAE], data: new Float32Array(D_SAE).fill(2) } } : {}),
  };
  writeFileSync(join(folder, 'cfg.json'), JSON.stringify(cfg));
  writeFileSync(join(folder, 'sae_weights.safetensors'), safetensorsBytes(tensors));
  return folder;
}

/** One walk: ms in the SAE's stages (in all and by part), ms in the model's own, and the features firing per token. */
function timedWalk(engine: Engine, model: Model): { sae: number; rest: number; active: number; parts: Record<string, number> } {
  const parts: Record<string, number> = {};
  let sae = 0;
  let rest = 0;
  let active = 0;
  const walk = engine.walk(model);
  for (;;) {
    const t0 = performance.now();
    const r = walk.next();
    const dt = performance.now() - t0;
    if (r.done) {
      const acts = r.value.find((s) => s.id.endsWith('.sae.acts'));
      if (acts) for (const v of acts.data) if (v !== 0) active++;
      return { sae, rest, active: active / T, parts };
    }
    const name = parseSaeId(r.value);
    if (name && 'part' in name) parts[name.part] = dt;
    if (name) sae += dt;
    else rest += dt;
  }
}

export async function saeBench(kernel: MatmulKernel, gpt2Folder: string, r: SaeBenchReport): Promise<void> {
  console.log(`\n# sae: a random SAE of ${D_SAE} features at layers.6.out of a random-weight GPT-2-small, T = ${T}, in the worker's engine: its stages vs the model's own in the same walk`);
  const dir = join(tmpdir(), 'ffn-bench-checkpoints');
  const store = new CheckpointStore(nodeFiles, undefined, kernel);
  const ids = Array.from({ length: T }, (_, i) => (i * 7919) % 40000);
  const out: Record<string, unknown> = {};
  for (const kind of ['topk', 'relu', 'jumprelu'] as const) {
    const sae = writeSae(dir, kind);
    const file = join(gpt2Folder, '..', `sae-${kind}.ffn.json`);
    const text = JSON.stringify({ version: 1, checkpoint: gpt2Folder, token_ids: ids, saes: [{ path: sae, at: 'layers.6.out' }] });
    const read = await resolveReadNow(readModel(text, file), file, store, new CheckpointResolver());
    if (!read.file) throw new Error(`sae bench: ${read.problems.map((p) => p.message).join('; ')}`);
    const model = read.file.model;
    const engine = new Engine(kernel);
    try {
      timedWalk(engine, model); // (W_enc packed, if it must be, once: as the worker's engine keeps it)
      const ratios: number[] = [];
      const saeMs: number[] = [];
      const restMs: number[] = [];
      const parts: Record<string, number[]> = {};
      let active = 0;
      for (let i = 0; i < (r.quick ? 4 : 10); i++) {
        const w = timedWalk(engine, withTokens(model, [(ids[0] + 1 + i) % 40000, ...ids.slice(1)]));
        ratios.push(w.sae / w.rest);
        saeMs.push(w.sae);
        restMs.push(w.rest);
        active = w.active;
        for (const [p, ms] of Object.entries(w.parts)) (parts[p] ??= []).push(ms);
      }
      const ratio = r.stat(ratios);
      const s = r.stat(saeMs);
      const f = r.stat(restMs);
      const byPart = Object.entries(parts).map(([p, xs]) => `${p} ${r.stat(xs).median.toFixed(1)}`).join(', ');
      const note = `SAE ${s.median.toFixed(1)} ms (${byPart}), forward ${f.median.toFixed(1)} ms; ${active.toFixed(0)} features fire a token; ${kernel.name} on ${kernel.threads} thread${kernel.threads === 1 ? '' : 's'}; load average ${loadavg()[0].toFixed(2)}`;
      const what = `SAE of 16k features (${kind}${kind === 'topk' ? `, k = ${K}` : ''}) at a GPT-2-small stage, T = 32 ÷ the full forward`;
      if (kind === 'topk') r.target(what, `≤ ${BOUND}×`, '×', ratio, ratio.median <= BOUND, note);
      else r.information(what, '×', ratio, note);
      out[kind] = { ratio, saeMs: s, forwardMs: f, activePerToken: active, partMs: Object.fromEntries(Object.entries(parts).map(([p, xs]) => [p, r.stat(xs)])) };
    } finally {
      engine.dispose();
    }
  }
  r.results.sae = out;
}
