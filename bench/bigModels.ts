// Issue 30's rows at 1–8B shapes (random weights, real widths):
//   big      the forward's GFLOP/s on a few layers at Llama-3.2-1B widths vs GPT-2-small's, in turns
//            (Gemma-2-2B and Llama-3.1-8B as information: time per layer, the whole model's memory)
//   memory   peak memory of `ffn-lens stages --summary` on a BF16 / F32 checkpoint ÷ its bytes
//   big1b    a full forward, an ablate in the middle layer and one token appended at 1B (the largest
//            shape that opens today, said so when it is not 1B); the full forward's GFLOP/s vs
//            GPT-2-small's checkpoint forward in the same rounds
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Engine } from '../src/core/engine';
import { createWasmKernel, type WasmMatmulKernel } from '../src/core/wasm';
import type { Model } from '../src/core/model';
import { archThroughput, SHAPES, type Shape } from './archThroughput';
import { bigCheckpoint, dropBigCheckpoint, forwardGflop, type BigDtype, type BigShape } from './bigCheckpoints';
import { checkpointModels } from './checkpointModels';
import { one, r2, stat, type Report } from './report';

const REPO = resolve(__dirname, '..');
const llama3 = { type: 'llama3' as const, factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8192 };

/** Block shapes of the big models (archThroughput's form), with the whole model's layer count and parameters. */
const BIG: Array<Shape & { L: number; params: number }> = [
  { name: 'Llama-3.2-1B', layers: 2, L: 16, params: 1.236e9, C: 2048, F: 8192, NH: 32, KVH: 8, HS: 64, biases: false, layer: { attention: { rope: { theta: 500000, scaling: llama3 } }, ffn: { activation: 'swiglu' } }, spec: { normKind: 'rmsnorm' } },
  { ...SHAPES.find((s) => s.name === 'Gemma-2-2B')!, layers: 1, L: 26, params: 2.614e9 },
  { name: 'Llama-3.1-8B', layers: 1, L: 32, params: 8.03e9, C: 4096, F: 14336, NH: 32, KVH: 8, HS: 128, biases: false, layer: { attention: { rope: { theta: 500000, scaling: { ...llama3, factor: 8 } } }, ffn: { activation: 'swiglu' } }, spec: { normKind: 'rmsnorm' } },
];

/** A kernel of its own as the compute worker makes it here (one thread on 2 cores), so the big weights leave with it. */
function freshKernel(): WasmMatmulKernel {
  const k = createWasmKernel();
  if (!k) throw new Error('no WebAssembly SIMD here');
  return k;
}

export function bigThroughput(report: Report): void {
  const shapes = [SHAPES[0], ...BIG.filter((s) => !report.quick || s.name === 'Llama-3.2-1B')];
  console.log(`\n# the forward's throughput at 1–8B widths: ${shapes.map((s) => `${s.name} ${s.layers ?? 2} layer${s.layers === 1 ? '' : 's'}`).join(', ')} (seq 32, every stage kept, no head; in turns)`);
  const kernel = freshKernel();
  try {
    const rows = archThroughput(kernel, report.quick ? 3 : 7, shapes);
    const base = rows[0];
    const out: Record<string, unknown> = {};
    for (const [i, r] of rows.entries()) {
      const g = stat(r.gflops);
      out[r.name] = { gflop: r.gflop, ms: stat(r.ms), gflops: g };
      if (i === 0) continue;
      const ratio = stat(r.gflops.map((x, j) => x / base.gflops[j]));
      const big = BIG.find((b) => b.name === r.name)!;
      const perLayer = stat(r.ms).median / (big.layers ?? 2);
      const note = `${r2(g.median)} vs ${r2(stat(base.gflops).median)} GFLOP/s; ${r2(perLayer)} ms a layer, ~${r2((perLayer * big.L) / 1000)} s for its ${big.L} layers (the head aside)`;
      // (issue 30: no cliff as the model grows, "≥ 0.9× at GPT-2-small shape")
      if (r.name === 'Llama-3.2-1B') report.target('forward throughput, Llama-3.2-1B block (2 layers at its widths) ÷ GPT-2-small\'s (same run, in turns)', '≥ 0.9×', '×', ratio, ratio.median >= 0.9, note);
      else report.information(`forward throughput, ${r.name} block ÷ GPT-2-small's`, '×', ratio, `${note}; weights ${r2((big.params * 2) / 1e9)} GB in BF16, ${r2((big.params * 4) / 1e9)} GB as float32`);
    }
    report.result('big', out);
  } finally {
    kernel.dispose();
  }
}

/** Peak resident memory (VmHWM) of `ffn-lens stages --summary` on a model file, read as the child exits. */
function cliPeak(modelFile: string, hook: string): Promise<{ peak: number; ms: number; ok: boolean; why: string }> {
  return new Promise((done) => {
    const t0 = Date.now();
    const c = spawn(process.execPath, ['--require', hook, join(REPO, 'dist', 'cli.js'), 'stages', '--summary', modelFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    c.on('close', (code) => {
      const m = /VMHWM_KB=(\d+)/.exec(err);
      const why = err.replace(/VMHWM_KB=\d+\s*/, '').trim().split('\n')[0] ?? '';
      done({ peak: m ? Number(m[1]) * 1024 : NaN, ms: Date.now() - t0, ok: code === 0, why });
    });
  });
}

export async function memoryAfterOpen(report: Report): Promise<void> {
  const cases: Array<[BigShape, BigDtype]> = report.quick ? [['qwen2.5-0.5b', 'bf16']] : [['qwen2.5-0.5b', 'bf16'], ['qwen2.5-0.5b', 'f32'], ['llama-3.2-1b', 'bf16'], ['llama-3.2-1b', 'f32']];
  console.log(`\n# memory: peak resident memory of \`ffn-lens stages --summary\` (a process of its own, T = 32) ÷ the checkpoint's bytes: ${cases.map((c) => c.join(' ')).join(', ')}`);
  const hook = join(tmpdir(), `ffn-bench-vmhwm-${process.pid}.cjs`);
  // (the peak as the process ends, whatever way it ends: the kernel's own high-water mark)
  writeFileSync(hook, `process.on('exit', () => { try { const s = require('fs').readFileSync('/proc/self/status', 'utf8'); process.stderr.write('VMHWM_KB=' + /VmHWM:\\s*(\\d+)/.exec(s)[1] + '\\n'); } catch {} });\n`);
  const out: Record<string, unknown> = {};
  for (const [shape, dtype] of cases) {
    const ck = bigCheckpoint(shape, dtype);
    const r = await cliPeak(ck.modelFile, hook);
    const ratio = r.peak / ck.bytes;
    out[`${shape}-${dtype}`] = { fileBytes: ck.bytes, peakBytes: r.peak, ms: r.ms, opened: r.ok, ...(r.ok ? {} : { why: r.why }) };
    const what = `memory after open ÷ checkpoint bytes, ${shape} ${dtype.toUpperCase()} (${r2(ck.bytes / 1e9)} GB): \`ffn-lens stages --summary\`'s peak`;
    const note = `peak ${r2(r.peak / 1e9)} GB in ${r2(r.ms / 1000)} s (the file made in ${r2(ck.makeMs / 1000)} s)`;
    // (issue 30: ≤ 1.15× its bytes; a BF16 file held as float32 reads ~2.1×)
    report.target(what, '≤ 1.15×', '×', one(ratio), r.ok && ratio <= 1.15, r.ok ? note : `did not open (needs 16-bit weights held as they are / memory past 4 GB): ${r.why.slice(0, 200)}; ${note}`);
    if (dtype === 'f32') dropBigCheckpoint(ck); // (5 GB of disk; the BF16 ones serve the next section)
  }
  rmSync(hook, { force: true });
  report.result('memory', out);
}

/** The largest of these that opens in this process today (each tried in a kernel of its own), and why the others did not. */
async function openLargest(ids: number[]): Promise<{ shape: BigShape; model: Model; models: ReturnType<typeof checkpointModels>; kernel: WasmMatmulKernel; skipped: string[] }> {
  const skipped: string[] = [];
  for (const shape of ['llama-3.2-1b', 'qwen2.5-0.5b'] as const) {
    const ck = bigCheckpoint(shape, 'bf16');
    const kernel = freshKernel();
    const models = checkpointModels(ck.folder, kernel);
    try {
      return { shape, model: await models.model(ids), models, kernel, skipped };
    } catch (e) {
      kernel.dispose();
      skipped.push(`${shape} BF16 did not open: ${(e as Error).message.slice(0, 200)}`);
    }
  }
  throw new Error(skipped.join('; '));
}

export async function incremental1b(report: Report, gpt2Folder: string): Promise<void> {
  console.log('\n# at 1B: a full forward, an ablate in the middle layer, one token appended (T 31 → 32), and the full forward\'s GFLOP/s vs GPT-2-small\'s; random BF16 weights, in rounds');
  const ids = Array.from({ length: 32 }, (_, i) => (i * 7919 + 13) % 100000);
  const big = await openLargest(ids);
  for (const s of big.skipped) console.log(`  ${s}`);
  console.log(`  ${big.shape} BF16 opened`);
  const kernel = big.kernel;
  const smallKernel = freshKernel(); // (GPT-2-small's weights in a memory of their own, as another document's worker session)
  try {
    const smallModels = checkpointModels(gpt2Folder, smallKernel);
    const small = await smallModels.model(ids.map((x) => x % 50000));
    const name = big.shape === 'llama-3.2-1b' ? 'Llama-3.2-1B' : 'Qwen2.5-0.5B (in place of 1B)';
    const mid = Math.floor(big.model.spec.layers.length / 2);
    const engine = new Engine(kernel);
    const e2 = new Engine(smallKernel);
    engine.run(big.model);
    e2.run(small);
    const full: number[] = [], abl: number[] = [], app: number[] = [], g2: number[] = [];
    const time = (e: Engine, m: Model): number => {
      const t0 = performance.now();
      e.run(m);
      return performance.now() - t0;
    };
    for (let i = 0; i < (report.quick ? 2 : 5); i++) {
      const other = (x: number[]): number[] => [(x[0] + (i + 1) * 101) % 50000, ...x.slice(1)];
      g2.push(time(e2, await smallModels.model(other(ids).map((x) => x % 50000))));
      full.push(time(engine, await big.models.model(other(ids))));
      engine.run(await big.models.model(ids)); // (back: untimed)
      abl.push(time(engine, await big.models.model(ids, `, "ablate": ["layers.${mid}.ffn.neuron.${i}"]`)));
      engine.run(await big.models.model(ids.slice(0, 31)));
      app.push(time(engine, await big.models.model(ids)));
    }
    engine.dispose();
    e2.dispose();
    const f = stat(full);
    const gBig = forwardGflop(big.model.spec);
    const gSmall = forwardGflop(small.spec);
    const ratioG = stat(full.map((x, i) => (gBig / x) / (gSmall / g2[i])));
    const ra = stat(abl.map((x, i) => x / full[i]));
    const rp = stat(app.map((x, i) => x / full[i]));
    const note = big.shape === 'llama-3.2-1b' ? '' : '; measured at Qwen2.5-0.5B, the largest that opens today: Llama-3.2-1B needs 16-bit weights / memory past 4 GB';
    report.target(`full forward GFLOP/s (T = 32, every stage kept, head included), ${name} ÷ GPT-2-small's checkpoint (same rounds)`, '≥ 0.9×', '×', ratioG, ratioG.median >= 0.9,
      `${r2(gBig / (f.median / 1000))} vs ${r2(gSmall / (stat(g2).median / 1000))} GFLOP/s; ${r2(f.median)} ms for ${r2(gBig)} GFLOP vs ${r2(stat(g2).median)} ms${note}`);
    report.target(`${name}: an ablate in layer ${mid} recomputed ÷ a full forward`, '≤ 0.6×', '×', ra, ra.median <= 0.6, `${r2(stat(abl).median)} ms vs ${r2(f.median)} ms${note}`);
    report.target(`${name}: one token appended (T 31 → 32) ÷ a full forward`, '≤ 0.1×', '×', rp, rp.median <= 0.1, `${r2(stat(app).median)} ms vs ${r2(f.median)} ms${note}`);
    report.result('big1b', { shape: big.shape, skipped: big.skipped, fullMs: f, ablateMs: stat(abl), appendMs: stat(app), gpt2FullMs: stat(g2), gflop: gBig });
  } finally {
    kernel.dispose();
    smallKernel.dispose();
  }
}
