// `npm run bench`: every speed target of the project, measured here and now, with the peers
// measured in the same run. Every speed target is a ratio against a peer of the same run (tfjs's
// kernel or our TS one, JSON.parse, a full recompute or forward, a plain blit), so it holds on a
// slower or busier machine as on ours; absolute figures are printed as information. The two
// budgets a person feels (the editor's thread held, keystroke to pixels) are absolute. Each
// target's comment says what its bar was calibrated on and which regression it fails.
// Prints a table and writes bench/results.json. Benchmarks are not tests: nothing here fails a build.
//
//   node dist/bench.js [--quick] [--only matmul,parse,recompute,edit,draw,checkpoint,archs,sae,onnx,big,memory,big1b,wire,host,open,keystroke,typing,hosts] [--out FILE] [--profile]
//
// Sections:
//   matmul     GFLOPS of naive / TS / WebAssembly SIMD / tfjs-cpu / tfjs-wasm on FFN and attention shapes
//   parse      weight text → Float32Arrays, ours vs JSON.parse + copy, 10 and 50 MB; extra memory
//   recompute  full recompute from text at d = 768, 12 heads (parse + every stage)
//   edit       one number edited in W1, W2 or a bias: from the change message to every stage back from
//              the compute worker (the real dist/worker.js in a worker thread), d = 64…768
//   draw       one 32 × 3072 heatmap drawn in Chromium (Playwright), as the panel draws it
//   checkpoint random-weight GPT-2-small and SmolLM2-135M: an ablate and an appended token vs a full forward
//   generate   32 tokens generated on GPT-2-small with the KV cache vs recomputing every step
//   sae        a random SAE of 16k features at a GPT-2-small stage (T = 32): its stages vs the forward's (bench/saeBench.ts)
//   archs      the forward's GFLOP/s on each architecture's block (Pythia, Qwen3, Gemma 3, Gemma 2 widths) vs GPT-2-small's
//   onnx       GPT-2-small's forward vs the same ONNX graph on onnxruntime-web (and -node, information): bench/onnxPeer.ts
//   big        GFLOP/s of a Llama-3.2-1B-wide block vs GPT-2-small's (Gemma-2-2B, Llama-3.1-8B: information): bench/bigModels.ts
//   memory     peak memory of the CLI on BF16 / F32 checkpoints of 0.5B and 1B shape ÷ the file's bytes (a child process)
//   big1b      ablate / appended token / full forward GFLOP/s at 1B (or the largest shape that opens today)
//   wire       bytes one edit of a GPT-2-small-shaped checkpoint's model file posts: worker → host → webview
//   host       the extension host's thread in a real VS Code (code-server) while a d = 512 block
//              opens and is edited: the longest our code holds it (--profile: and what ran there)
//   open       a GPT-2-small-shaped checkpoint opened in a real VS Code: Quick Open → every stage drawn
//   open8b     (only when named) a Llama-3.1-8B-shaped one (16 GB) opened in a real VS Code, and an ablate
//   webgemma   (only when named) a Gemma-2-2B-shaped one (5.2 GB) in the web worker host: drawn or refused
//   patch1b    (only when named) a Llama-3.2-1B-shaped one in a real VS Code: patching (progress, Cancel, the grid), hover, compare, export
//   keystroke  a digit typed into W1 in a real VS Code (Playwright + Chromium) → the panel's new
//              heatmaps drawn: d = 64, d = 512, and d = 512 handed to VS Code's JSON service
//   typing     " basketball" typed into a GPT-2-small-shaped checkpoint's prompt at 120 ms per key in a
//              real VS Code → the final text's render drawn
import { unbatch } from '../src/worker/postBatch';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FromWorker, ToWorker } from '../src/protocol/worker';
import { Engine } from '../src/core/engine';
import { createWasmKernel, type WasmMatmulKernel } from '../src/core/wasm';
import { nodeMatmulHelper } from '../src/worker/nodeMatmulHelper';
import { enableWasmRelaxedSimd } from '../src/worker/nodeWasmFeatures';
import { generateModelText, estimateBytes, type GenerateOptions } from '../src/model/generate';
import { readModel } from '../src/model/read';
import { CheckpointStore, resolveReadNow } from '../src/checkpoint/store';
import { CheckpointResolver } from '../src/checkpoint/resolve';
import { nodeFiles } from '../src/checkpoint/nodeFiles';
import type { Model } from '../src/core/model';
import { withTokens } from '../src/lenses/cache';
import { activationPatching } from '../src/lenses/patching';
import { benchMatmulKernels, defaultBenchKernels, type BenchKernel, type Row } from './matmulKernels';
import { tfjsKernel, tfjsVersion, tfjsWasm, tfjsWasmHasSimd } from './peers';
import { tfjsGpt2Forward } from './tfjsGpt2';
import { wireBytesOfEdits, type EditBytes } from './wireBytes';
import { archThroughput } from './archThroughput';
import { generationBench } from './generation';
import { saeBench } from './saeBench';
import { threadsForward } from './threadsForward';
import { onnxPeer } from './onnxPeer';
import { bigThroughput, incremental1b, memoryAfterOpen } from './bigModels';
import { checkpointModels, writePreset } from './checkpointModels';
import type { Report } from './report';
import { storedBytes } from '../src/core/params';

const REPO = resolve(__dirname, '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const profile = args.includes('--profile');
const onlyArg = args.find((a) => a.startsWith('--only'));
const only = onlyArg ? new Set((onlyArg.includes('=') ? onlyArg.split('=')[1] : args[args.indexOf(onlyArg) + 1]).split(',')) : null;
const outArg = args.indexOf('--out');
const OUT = outArg >= 0 ? resolve(args[outArg + 1]) : join(REPO, 'bench', 'results.json');
const want = (s: string): boolean => !only || only.has(s);

interface Stat { median: number; min: number; max: number; n: number }
function stat(xs: number[]): Stat {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], n: s.length };
}
const r2 = (x: number): number => Math.round(x * 100) / 100;
const round = (s: Stat): Stat => ({ median: r2(s.median), min: r2(s.min), max: r2(s.max), n: s.n });

/** A row of the table: a target (met or not), or information (pass null: a figure with no target). */
interface Target { what: string; target: string; unit: string; value: Stat; pass: boolean | null; note?: string }
const targets: Target[] = [];
const results: Record<string, unknown> = {};
function target(what: string, tgt: string, unit: string, value: Stat, pass: boolean, note?: string): void {
  targets.push({ what, target: tgt, unit, value: round(value), pass, ...(note ? { note } : {}) });
  console.log(`  ${pass ? 'ok  ' : 'MISS'} ${what}: median ${r2(value.median)} ${unit} (min ${r2(value.min)}, max ${r2(value.max)}) — target ${tgt}${note ? `; ${note}` : ''}`);
}
function information(what: string, unit: string, value: Stat, note?: string): void {
  targets.push({ what, target: 'information', unit, value: round(value), pass: null, ...(note ? { note } : {}) });
  console.log(`  info ${what}: median ${r2(value.median)} ${unit} (min ${r2(value.min)}, max ${r2(value.max)})${note ? `; ${note}` : ''}`);
}

const texts = new Map<string, string>();
function modelTextOf(key: string, opts: GenerateOptions): string {
  let t = texts.get(key);
  if (!t) {
    t = generateModelText({ seed: 7, ...opts });
    texts.set(key, t);
  }
  return t;
}

// --- matmul ---------------------------------------------------------------------------------------

async function matmul(): Promise<void> {
  console.log('\n# matmul (GFLOPS, single thread, weights packed once; same run, round-robin samples)');
  const kernels: BenchKernel[] = defaultBenchKernels();
  const cpu = await tfjsKernel('cpu');
  const wasm = await tfjsKernel('wasm');
  if (cpu) kernels.push(cpu);
  if (wasm) kernels.push(wasm);
  results.peers = { tfjs: await tfjsVersion().catch(() => null), tfjsWasmSimd: await tfjsWasmHasSimd().catch(() => null) };
  const shapes = [
    { M: 8, K: 512, N: 2048 }, { M: 32, K: 768, N: 3072 }, { M: 32, K: 512, N: 2048 }, { M: 128, K: 768, N: 3072 },
    { M: 32, K: 3072, N: 768 }, // the down-projection
    { M: 32, K: 768, N: 768 },  // an attention projection
    { M: 8, K: 64, N: 256 },
  ];
  const rows: Row[] = await benchMatmulKernels({
    shapes: quick ? shapes.slice(0, 2) : shapes, kernels, samples: quick ? 5 : 11, bLayout: 'nk', maxKernelMsPerShape: quick ? 1500 : 3000,
    onRow: (r) => console.log(`  ${r.shape.padEnd(14)} ${r.kernel.padEnd(10)} ${String(r2(r.gflops.median)).padStart(7)} GFLOPS (min ${r2(r.gflops.min)}, max ${r2(r.gflops.max)})${r.relErr !== null ? `  rel.err ${r.relErr.toExponential(1)}` : ''}`),
  });
  results.matmul = rows.map(({ times: _t, ...r }) => r);
  /** Ratios of round-paired samples (peer time / ours: > 1 is faster), their median, min and max. */
  const paired = (ours: Row, peer: Row): Stat => {
    const n = Math.min(ours.times.length, peer.times.length);
    return stat(Array.from({ length: n }, (_, i) => peer.times[i] / ours.times[i]));
  };
  const wasmRows = rows.filter((r) => r.kernel === 'wasm-simd');
  for (const r of wasmRows) {
    const peer = (name: string): Row | undefined => rows.find((x) => x.kernel === name && x.shape === r.shape);
    const w = peer('tfjs-wasm');
    const c = peer('tfjs-cpu');
    const ts = peer('ts');
    const info = [`${r2(r.gflops.median)} GFLOPS`, w ? `tfjs-wasm ${r2(w.gflops.median)}` : 'tfjs-wasm n/a', ts ? `our TS kernel ${r2(ts.gflops.median)}` : '', c ? `tfjs-cpu ${r2(c.gflops.median)}` : ''].filter(Boolean).join(', ');
    if (r.M * r.K * r.N >= 1 << 20) {
      // Shapes of real work (≥ 1M multiply-adds) against tfjs's own WebAssembly SIMD kernel (XNNPACK),
      // the best a browser-safe peer does, on the same shape in the same run. ≥ 35 GFLOPS here, when
      // it was absolute, was ≈ 1.5× it; runs here and on a 1.6× slower host read 1.34–1.97×, so 1.2×
      // keeps a margin. Our TypeScript fallback reads ~0.15× and a kernel that lost its register
      // blocking ~0.8×: both fail.
      if (!w) continue;
      const s = paired(r, w);
      target(`matmul ${r.shape} wasm-simd vs tfjs-wasm`, '≥ 1.2×', '×', s, s.median >= 1.2, info);
    } else if (ts) {
      // A small shape (8×64×256: 131k multiply-adds, in L1) is per-call overhead against arithmetic,
      // where tfjs's ~5 µs per call makes any kernel look fast (25–34×). The peer that still means
      // something is our own TypeScript kernel in the same run: the WebAssembly kernel reads ~10× it
      // here; ≥ 4× fails if the call falls back to TS (1×) or pays ~10 µs more per call (re-packing
      // B, copying the whole memory).
      const s = paired(r, ts);
      target(`matmul ${r.shape} (small) wasm-simd vs our TypeScript kernel`, '≥ 4×', '×', s, s.median >= 4, `${info}; vs tfjs-wasm ${w ? r2(paired(r, w).median) : 'n/a'}×`);
    }
  }
}

// --- parse ----------------------------------------------------------------------------------------

/**
 * Not a target, a check: weights as Python prints a float32 (`str(float(w))`: up to 17 digits,
 * 0.10000000149011612) take the parser's long-number path.
 */
function parseLongNumbers(): void {
  const opts = optionsForSize(10);
  const text = modelTextOf('parse10', opts).replace(/^\s*\/\/.*\n/gm, '').replace(/-?\d+\.\d+(e-?\d+)?/g, (m) => String(Math.fround(Number(m))));
  const bytes = Buffer.from(text, 'utf8');
  const MB = bytes.length / 1e6;
  const identical = sameFloats(oursArrays(bytes), jsonParseCopy(text));
  const [ours, peer] = alternating(9, () => oursArrays(bytes), () => jsonParseCopy(bytes.toString('utf8')));
  const so = rateOf(MB, ours);
  const sp = rateOf(MB, peer);
  const ratio = stat(ours.map((o, i) => peer[i] / o));
  console.log(`  (check) ${MB.toFixed(1)} MB of 17-digit numbers, as Python prints float32 weights: ours ${r2(so.median)} MB/s, decode + JSON.parse + copy ${r2(sp.median)} MB/s: ${r2(ratio.median)}×; bit-identical: ${identical}`);
  results.parseLongNumbers = { mb: r2(MB), oursMBps: round(so), peerMBps: round(sp), ratio: round(ratio), identical };
}

/**
 * The times (ms) of each of `fns` over `reps` rounds, after two rounds of warm-up. They take
 * turns, so all see the same machine (a forced GC before each was tried: it slows the next parse,
 * ours by ~25% and JSON.parse not at all, so it is not done).
 */
function alternating(reps: number, ...fns: Array<() => unknown>): number[][] {
  for (let i = 0; i < 2; i++) for (const f of fns) f();
  const times = fns.map((): number[] => []);
  for (let i = 0; i < reps; i++) {
    fns.forEach((f, k) => {
      const t0 = performance.now();
      f();
      times[k].push(performance.now() - t0);
    });
  }
  return times;
}

/** MB/s for each time (ms) of reading `mb` megabytes. */
function rateOf(mb: number, ms: readonly number[]): Stat {
  return stat(ms.map((x) => mb / (x / 1000)));
}

/** Dims whose generated file is close to `mb` megabytes. */
function optionsForSize(mb: number): GenerateOptions {
  let best: GenerateOptions = { dModel: 64, dFf: 256, heads: 4, seq: 32 };
  for (let d = 64; d <= 1024; d += 32) {
    const o = { dModel: d, dFf: 4 * d, heads: d % 64 === 0 ? d / 64 : 4, seq: 32, seed: 7 };
    if (Math.abs(estimateBytes(o) - mb * 1e6) < Math.abs(estimateBytes(best) - mb * 1e6)) best = o;
  }
  return best;
}

/** JSON.parse of the text, then every array of numbers copied into a Float32Array: the plain way. */
function jsonParseCopy(text: string): Float32Array[] {
  const out: Float32Array[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      if (v.length && Array.isArray(v[0]) && typeof v[0][0] === 'number') {
        const rows = v as number[][];
        const f = new Float32Array(rows.length * rows[0].length);
        rows.forEach((row, i) => f.set(row, i * rows[0].length));
        out.push(f);
      } else if (v.length && typeof v[0] === 'number') out.push(Float32Array.from(v as number[]));
      else v.forEach(walk);
    } else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(JSON.parse(text));
  return out;
}

/** The matrices and vectors the reader made, in file order. */
function oursArrays(src: string | Uint8Array): Float32Array[] {
  const res = readModel(src, 'bench.ffn.json');
  if (!res.file) throw new Error(`the generated file does not read: ${res.problems[0]?.message}`);
  return res.json.numberArrays.map((n) => res.json.arena.subarray(n.offset, n.offset + n.length));
}

/** The same numbers in the same order (ours come a row at a time, the peer's a matrix at a time). */
function sameFloats(a: Float32Array[], b: Float32Array[]): boolean {
  const flat = (xs: Float32Array[]): Float32Array => {
    const out = new Float32Array(xs.reduce((n, x) => n + x.length, 0));
    let i = 0;
    for (const x of xs) {
      out.set(x, i);
      i += x.length;
    }
    return out;
  };
  const fa = flat(a);
  const fb = flat(b);
  if (fa.length !== fb.length) return false;
  const ua = new Uint32Array(fa.buffer);
  const ub = new Uint32Array(fb.buffer);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return false;
  return true;
}

function parse(): void {
  console.log('\n# weight file (bytes as read from disk) → Float32Arrays: ours, one flat loop over the bytes into a preallocated arena; peer: decode + JSON.parse + copy');
  const sizes = quick ? [10] : [10, 50];
  const rows: unknown[] = [];
  for (const mb of sizes) {
    const opts = optionsForSize(mb);
    // plain JSON (the generator's opening comment removed) so that JSON.parse can read it too
    const text = modelTextOf(`parse${mb}`, opts).replace(/^\s*\/\/.*\n/gm, '');
    const bytes = Buffer.from(text, 'utf8');
    const MB = bytes.length / 1e6;
    const identical = sameFloats(oursArrays(bytes), jsonParseCopy(bytes.toString('utf8')));
    const reps = quick ? 5 : mb > 20 ? 9 : 21;
    const [ours, peer, oursStr] = alternating(reps,
      () => oursArrays(bytes),
      () => jsonParseCopy(bytes.toString('utf8')),
      () => oursArrays(text)); // a document's text, as VS Code hands it over
    const so = rateOf(MB, ours);
    const sp = rateOf(MB, peer);
    const ss = rateOf(MB, oursStr);
    const mem = childMemory(bytes, oursArrays(bytes).reduce((n, x) => n + x.length, 0));
    console.log(`  ${MB.toFixed(1)} MB (d_model ${opts.dModel}): ours ${r2(so.median)} MB/s from bytes, ${r2(ss.median)} MB/s from a string; decode + JSON.parse + copy ${r2(sp.median)} MB/s; bit-identical: ${identical}`);
    // the ratio of each pair run back to back, its median over the runs. The bar depends on the size
    // because JSON.parse's own rate does (~220 MB/s at 9 MB, ~140 at 52 MB here: a small heap collects
    // cheaply): runs here read 2.2–2.4× at 9 MB and 2.5–2.9× at 52 MB (2.4–2.6× on a 1.6× slower
    // host). A reader that fell back to JSON.parse (1×), to Number() per number (~1.3×, as the
    // 17-digit check below shows) or from bytes to a string per read (~1.8–2.0×) fails.
    const bar = mb > 20 ? 2.2 : 1.8;
    const ratio = stat(ours.map((o, i) => peer[i] / o));
    target(`parse ${Math.round(MB)} MB file: speed vs JSON.parse + copy`, `≥ ${bar}×`, '×', ratio, ratio.median >= bar && identical, `${r2(so.median)} vs ${r2(sp.median)} MB/s (medians), bit-identical ${identical}; from a string ${r2(ss.median / sp.median)}×`);
    // (memory against the data it holds, not a time: the same on any machine; JSON.parse + copy takes ~7×)
    if (mem) target(`parse ${Math.round(MB)} MB file: extra memory / Float32 data`, '≤ 1.5×', '×', { median: mem.ratio, min: mem.ratio, max: mem.ratio, n: 1 }, mem.ratio <= 1.5, `+${r2(mem.extraMB)} MB RSS for ${r2(mem.floatMB)} MB of float32 (decode + JSON.parse + copy: +${r2(mem.peerExtraMB)} MB)`);
    rows.push({ mb: r2(MB), dModel: opts.dModel, oursMBps: round(so), oursFromStringMBps: round(ss), peerMBps: round(sp), identical, memory: mem });
  }
  results.parse = rows;
  if (!quick) parseLongNumbers();
}

/** Peak extra RSS of each way of reading, each in a fresh process with the file's bytes already loaded. */
function childMemory(bytes: Uint8Array, floats: number): { extraMB: number; floatMB: number; ratio: number; peerExtraMB: number } | null {
  const dir = join(tmpdir(), `ffn-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'model.ffn.json');
  writeFileSync(file, bytes);
  const run = (mode: string): number | null => {
    const got: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = spawnSync(process.execPath, ['--expose-gc', __filename, '--child', mode, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const m = /EXTRA_MB=([\d.]+)/.exec(r.stdout);
      if (m) got.push(Number(m[1]));
    }
    return got.length ? stat(got).median : null;
  };
  const ours = run('ours');
  const peer = run('peer');
  rmSync(dir, { recursive: true, force: true });
  if (ours === null || peer === null) return null;
  const floatMB = (floats * 4) / 1e6;
  return { extraMB: ours, floatMB: r2(floatMB), ratio: r2(ours / floatMB), peerExtraMB: peer };
}

function child(mode: string, file: string): void {
  const bytes = readFileSync(file); // the file in memory, as a worker reads it
  // Warm up on a small model first: the first parse ever also compiles the parser (code memory a
  // running worker has paid long before), which is not memory the file costs.
  const small = Buffer.from(generateModelText({ preset: 'd64', seed: 1 }).replace(/^\s*\/\/.*\n/gm, ''));
  for (let i = 0; i < 5; i++) {
    if (mode === 'ours') oursArrays(small);
    else jsonParseCopy(small.toString('utf8'));
  }
  (globalThis as { gc?: () => void }).gc?.();
  // The peak's growth misses a parse that stays under an earlier peak (start-up, reading the
  // file), so take the resident growth too, and report the larger.
  const peak0 = process.resourceUsage().maxRSS * 1024;
  const rss0 = process.memoryUsage.rss();
  const keep = mode === 'ours' ? oursArrays(bytes) : jsonParseCopy(bytes.toString('utf8'));
  const extra = Math.max(process.resourceUsage().maxRSS * 1024 - peak0, process.memoryUsage.rss() - rss0);
  console.log(`EXTRA_MB=${(extra / 1e6).toFixed(2)} arrays=${keep.length}`);
}

// --- full recompute --------------------------------------------------------------------------------

let workerKernel: WasmMatmulKernel | null = null;

/** The kernel with a helper thread sharing large products (dist/matmulHelper.js), once the helper runs. */
async function threadedKernel(): Promise<WasmMatmulKernel> {
  const k = createWasmKernel(nodeMatmulHelper(join(__dirname, 'matmulHelper.js')));
  if (!k) throw new Error('no WebAssembly SIMD here');
  for (let i = 0; i < 500 && k.threads < 2; i++) await new Promise((r) => setTimeout(r, 10));
  return k;
}

/** The kernel as the compute worker makes it on this machine: a helper thread only with more than 2 cores (src/worker/computeWorker.ts). */
async function startWorkerKernel(): Promise<void> {
  const k = availableParallelism() > 2 ? await threadedKernel() : createWasmKernel();
  if (!k) throw new Error('no WebAssembly SIMD here');
  console.log(`(the worker's kernel here: ${k.name} on ${k.threads} thread${k.threads === 1 ? '' : 's'}, ${availableParallelism()} cores)`);
  workerKernel = k;
}

function recompute(): void {
  console.log('\n# full recompute from text, d = 768, 12 heads, one block, seq 32 (read + every stage, WebAssembly SIMD, as the worker runs it)');
  const text = modelTextOf('gpt2', { preset: 'gpt2-small' });
  const kernel = workerKernel!;
  const times: number[] = [];
  const parse: number[] = [];
  const peer: number[] = [];
  const plain = text.replace(/^\s*\/\/.*\n/gm, ''); // (JSON.parse reads no comments)
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    const t0 = performance.now();
    const res = readModel(text, 'gpt2.ffn.json');
    const t1 = performance.now();
    const e = new Engine(kernel);
    e.run(res.file!.model);
    e.dispose();
    times.push(performance.now() - t0);
    parse.push(t1 - t0);
    // the peer, in turn with ours: what a plain reader does before it can compute anything,
    // JSON.parse of the same text and its numbers copied into Float32Arrays
    const p0 = performance.now();
    jsonParseCopy(plain);
    peer.push(performance.now() - p0);
  }
  const s = stat(times);
  const ratio = stat(times.map((t, i) => t / peer[i]));
  results.recompute = { fileMB: r2(text.length / 1e6), ms: round(s), parseMs: round(stat(parse)), jsonParseMs: round(stat(peer)) };
  // ≤ 350 ms, when it was absolute, was 0.86–1.0× JSON.parse + copy of the same text here (345–408 ms
  // in today's runs): so ≤ 1×. Runs here read 0.73–0.88×. Reading is ~90 % of it; a forward that fell
  // back to the TypeScript kernel adds ~120 ms (≈ 0.35×) and fails, as does a reader going back to JSON.parse.
  target(`full recompute from text (read + every stage), d = 768 (${(text.length / 1e6).toFixed(0)} MB), vs JSON.parse + copy of the same text`, '≤ 1×', '×', ratio, ratio.median <= 1,
    `${r2(s.median)} ms (of which reading ${r2(stat(parse).median)} ms) vs JSON.parse + copy ${r2(stat(peer).median)} ms`);
}

// --- one edit through the real worker -----------------------------------------------------------------------

async function edits(): Promise<void> {
  console.log('\n# one number edited → every stage back from the compute worker (dist/worker.js, a worker thread)');
  const workerJs = join(REPO, 'dist', 'worker.js');
  if (!existsSync(workerJs)) throw new Error('dist/worker.js is missing: run `node esbuild.mjs` first');
  // [label, model, ratio target vs a full recompute from text of the same file in the same run (null: information only:
  // at d ≤ 256 a full recompute takes a few ms and message passing dominates either way)]. The
  // absolute budgets these replace, 33 ms at d = 768 and 25 ms at d = 512, were 0.12× and 0.15× of a
  // full recompute here; runs read 0.03–0.04×. An edit that re-reads or recomputes the whole file
  // reads ≥ 1× and fails.
  const cases: Array<[string, GenerateOptions, number | null]> = [
    ['d = 768', { preset: 'gpt2-small' }, 0.12], ['d = 512', { preset: 'd512' }, 0.15], ['d = 256', { preset: 'd256' }, null], ['d = 64', { preset: 'd64' }, null],
  ];
  const out: Record<string, unknown> = {};
  const kernel = workerKernel!;
  for (const [label, opts, budget] of quick ? cases.slice(2) : cases) {
    const text = modelTextOf(label, opts);
    // the peer: a full recompute from the same text (read + every stage), here, in this run
    const full: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const e = new Engine(kernel!);
      e.run(readModel(text, 'model.ffn.json').file!.model);
      e.dispose();
      full.push(performance.now() - t0);
    }
    const fullMs = stat(full).median;
    const w = new Worker(workerJs);
    const doc = 'bench://model.ffn.json';
    let version = 1;
    const waiters = new Map<number, (stages: number) => void>();
    let stages = 0;
    w.on('message', (b: FromWorker) => {
      for (const m of unbatch(b)) {
        if (m.type === 'stage' && m.offset === 0) stages++;
        if (m.type === 'done') {
          waiters.get(m.version)?.(stages);
          stages = 0;
        }
      }
    });
    const send = (m: ToWorker): void => w.postMessage(m);
    const done = (v: number): Promise<number> => new Promise((res) => waiters.set(v, res));
    send({ type: 'config', debounceMs: 150 });
    send({ type: 'open', doc, fileName: 'model.ffn.json', version, text });
    send({ type: 'subscribe', doc, on: true });
    await done(version);
    // edit targets: a number in a row of W1, of W2, and of b1
    let current = text;
    const at = (key: string, skip: number): number => {
      let i = current.indexOf(`"${key}"`);
      const m = /-?\d+\.\d+/g;
      m.lastIndex = i;
      for (let k = 0; k <= skip; k++) i = m.exec(current)!.index;
      return i;
    };
    const byKind: Record<string, number[]> = { W1: [], W2: [], b1: [] };
    let posted = 0;
    for (let i = 0; i < (quick ? 8 : 20); i++) {
      for (const key of ['W1', 'W2', 'b1']) {
        const off = at(key, 3 + i * 7);
        const old = /-?\d+\.\d+/.exec(current.slice(off))![0];
        const neu = (Number(old) + 0.125).toFixed(4);
        current = current.slice(0, off) + neu + current.slice(off + old.length);
        version++;
        await new Promise((r) => setTimeout(r, 200)); // a quiet spell: the edit runs at once (leading edge)
        const t0 = performance.now();
        const wait = done(version);
        send({ type: 'change', doc, version, changes: [{ offset: off, length: old.length, text: neu }], length: current.length });
        posted = await wait;
        byKind[key].push(performance.now() - t0);
      }
    }
    await w.terminate();
    const all = stat([...byKind.W1, ...byKind.W2, ...byKind.b1]);
    out[label] = { W1: round(stat(byKind.W1)), W2: round(stat(byKind.W2)), b1: round(stat(byKind.b1)), stagesPosted: posted, fileMB: r2(text.length / 1e6), fullRecomputeMs: r2(fullMs) };
    const note = `${r2(all.median)} ms (W1 ${r2(stat(byKind.W1).median)}, W2 ${r2(stat(byKind.W2).median)}, b1 ${r2(stat(byKind.b1).median)}) vs a full recompute ${r2(fullMs)} ms; ${posted} stages posted each time`;
    if (budget === null) console.log(`  (information) edit one number, ${label}: ${note}`);
    else {
      const ratio: Stat = { median: all.median / fullMs, min: all.min / fullMs, max: all.max / fullMs, n: all.n };
      target(`edit one number, ${label} (${(text.length / 1e6).toFixed(1)} MB), through the worker, vs a full recompute of the file`, `≤ ${budget}×`, '×', ratio, ratio.median <= budget, note);
    }
  }
  results.edit = out;
}

// --- drawing in Chromium --------------------------------------------------------------------------------

async function draw(): Promise<void> {
  console.log('\n# one heatmap of 32 × 3072 cells drawn in Chromium (ImageData, one pixel per cell)');
  const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    console.log(`  skipped: no Chromium at ${chromium} (npm run setup:vscode installs it)`);
    return;
  }
  const bundle = join(REPO, 'dist', 'bench-draw.js');
  if (!existsSync(bundle)) throw new Error('dist/bench-draw.js is missing: run `node esbuild.mjs` first');
  const { chromium: pw } = await import('playwright-core');
  const browser = await pw.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.setContent('<!DOCTYPE html><html><body><canvas id="c"></canvas></body></html>');
    await page.addScriptTag({ content: readFileSync(bundle, 'utf8') });
    const r = await page.evaluate(() => (globalThis as unknown as { benchDraw(): Record<string, number[]> }).benchDraw());
    const full = stat(r.full);
    const pooled = stat(r.pooled);
    const blit = stat(r.blit);
    results.draw = { full: round(full), pooled: round(pooled), blit: round(blit) };
    // the peer: one grey-level pass over the same numbers and putImageData, in the same page: what
    // any drawing of them must at least do. The absolute 10 ms this replaced was ~16× it; the bars
    // are tighter (runs read 0.9–1.0× and 2.3–2.4× in batches of five draws, 1.1–1.7× and 1.9–3×
    // one draw at a time) and a draw that went per cell (fillRect, a chart library) is ~50× and fails.
    const vs = (xs: number[]): Stat => stat(xs.map((x, i) => x / r.blit[i])); // (each sample against the baseline's of the same round)
    const rf = vs(r.full);
    const rp = vs(r.pooled);
    target('draw 32 × 3072, one pixel per cell, vs a grey-level pass + putImageData of the same numbers', '≤ 3×', '×', rf, rf.median <= 3, `${r2(full.median)} ms vs ${r2(blit.median)} ms per draw`);
    target('draw 32 × 3072 pooled to 1024 px (max |v| per block), vs the same baseline', '≤ 4×', '×', rp, rp.median <= 4, `${r2(pooled.median)} ms vs ${r2(blit.median)} ms per draw`);
  } finally {
    await browser.close();
  }
}

// --- the extension host's thread, in a real VS Code --------------------------------------------------

type HostTop = Array<{ ms: number; what: string; gcMs: number; withoutGcMs: number; onCoreMs: number | null }>;
interface HostBusy { max: number; what: string; count: number; totalMs: number }
/** bench/host/generation.ts's figures (or why the phase failed). */
type HostGeneration = { error: string } | { tokens: number; reason: string; ms: number; ours: HostBusy; top: HostTop; maxBlockMs: number; pick: { ms: number; ours: HostBusy; top: HostTop; maxBlockMs: number } | null };

/** Issue 31's row: the host's thread while 32 tokens are generated on a GPT-2-small-shaped checkpoint, every message it handles timed. */
function hostGenerating(g: HostGeneration | undefined, heldBy: (top: HostTop, count: number) => number, line: (t: HostTop[number]) => string): void {
  if (!g || 'error' in g) {
    console.log(`  generating: skipped (${g ? g.error.split('\n')[0] : 'no figures'})`);
    return;
  }
  const one = (v: number): Stat => ({ median: v, min: v, max: v, n: 1 });
  const ours = heldBy(g.top, g.ours.count);
  target(`extension host thread held by us, longest, while generating ${g.tokens} tokens on a GPT-2-small-shaped checkpoint (the same exclusions)`, '≤ 10 ms', 'ms', one(ours), ours <= 10 && g.reason === 'done',
    `longest (wall): ${g.top.map(line).join(', ')}; ${g.ours.count} handlers, ${r2(g.ours.totalMs)} ms in all, over ${r2(g.ms)} ms of generation (${g.reason}); the thread's overall longest delay ${r2(g.maxBlockMs)} ms`);
  if (!g.pick) return;
  const p = g.pick;
  information('extension host thread held by us, longest, while the generated tokens\' stages (input + 32 rows, GPT-2-small) are sent and drawn', 'ms', one(heldBy(p.top, p.ours.count)),
    `longest (wall): ${p.top.map(line).join(', ')}; ${p.ours.count} handlers, ${r2(p.ours.totalMs)} ms in all; asked → drawn ${r2(p.ms)} ms; overall longest delay ${r2(p.maxBlockMs)} ms`);
}

function host(): void {
  console.log('\n# the extension host\'s thread while a d = 512 block (37 MB) opens and is edited, in a real VS Code (code-server)');
  const out = join(tmpdir(), `ffn-bench-host-${process.pid}.json`);
  // --profile: V8's profiler on the host's thread too (bench/host/profile.ts); off by default, since it costs the thread a little
  const profileDir = profile ? join(REPO, 'test-results', 'bench') : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'run-integration.mjs'), '--tests', 'out/bench/host/index.js', '--timeout', '900'], {
    encoding: 'utf8', env: { ...process.env, FFN_BENCH_OUT: out, ...(profileDir ? { FFN_BENCH_PROFILE: profileDir } : {}) }, maxBuffer: 1 << 24,
  });
  if (!existsSync(out)) {
    console.log(`  skipped: the VS Code run did not finish (${(r.stdout + r.stderr).trim().split('\n').slice(-3).join(' / ')})`);
    return;
  }
  interface Busy { max: number; what: string; count: number; totalMs: number; top: Array<[number, string, number]> }
  const h = JSON.parse(readFileSync(out, 'utf8')) as { fileMB: number; openMs: number; editSplit?: Record<string, number>; openMaxBlockMs: number; openOurs: Busy; openTop: Array<{ ms: number; what: string; gcMs: number; withoutGcMs: number; onCoreMs: number | null }>; openGcMaxMs: number; editMs: Record<string, number[]>; computedMs: number[]; editMaxBlockMs: number; editP99BlockMs: number; editOurs: Busy; editTop: Array<{ ms: number; what: string; gcMs: number; withoutGcMs: number; onCoreMs: number | null }>; gcPauses: number; gcMaxMs: number; generation?: HostGeneration; vscode: string; profiles?: Record<string, Array<{ what: string; ms: number; samples: number; where: Array<[string, number]> }>> };
  rmSync(out, { force: true });
  results.host = h;
  const all = Object.values(h.editMs).flat();
  const one = (v: number): Stat => ({ median: v, min: v, max: v, n: 1 });
  // Absolute, not a ratio: 10 ms is what a person typing feels as a stall whatever the machine, as
  // the keystroke budget below. What counts is our code's own work: each handler's wall time less
  // the GC pauses inside it (they collect VS Code's garbage too) and less the time the OS ran
  // another process on the thread's core (a busy 2-core machine; the kernel's per-thread run time,
  // bench/host/runClock.ts). Only the five longest handlers (by wall time) are known, so when all
  // five shrink that way, the fifth one's wall time stands as a bound for the rest.
  const heldBy = (top: typeof h.editTop, count: number): number => {
    const own = Math.max(...top.map((t) => t.onCoreMs ?? t.withoutGcMs));
    return top.length === 5 && count > 5 ? Math.max(own, Math.min(...top.map((t) => t.withoutGcMs))) : own;
  };
  const line = (t: (typeof h.editTop)[number]): string => `${t.what} ${t.ms} ms (GC ${t.gcMs}${t.onCoreMs !== null ? `, on a core ${t.onCoreMs}` : ''})`;
  const ours = heldBy(h.editTop, h.editOurs.count);
  target('extension host thread held by us, longest, while editing d = 512 (GC pauses and other processes\' turns on the core excluded)', '≤ 10 ms', 'ms', one(ours), ours <= 10,
    `longest (wall): ${h.editTop.map(line).join(', ')}; ${h.editOurs.count} handlers, ${r2(h.editOurs.totalMs)} ms in all; ${h.gcPauses} GC pauses, longest ${r2(h.gcMaxMs)} ms. The thread's overall longest delay, VS Code's own work included: ${r2(h.editMaxBlockMs)} ms (99th percentile ${r2(h.editP99BlockMs)} ms)`);
  const opening = heldBy(h.openTop, h.openOurs.count);
  target('extension host thread held by us, longest, while opening d = 512 (the same exclusions)', '≤ 10 ms', 'ms', one(opening), opening <= 10,
    `longest (wall): ${h.openTop.map(line).join(', ')}; ${h.openOurs.count} handlers, ${r2(h.openOurs.totalMs)} ms in all; longest GC pause ${r2(h.openGcMaxMs)} ms; open to drawn ${r2(h.openMs)} ms. Overall longest delay, VS Code loading the 37 MB document included: ${r2(h.openMaxBlockMs)} ms`);
  hostGenerating(h.generation, heldBy, line);
  if (h.profiles) {
    for (const [phase, list] of Object.entries(h.profiles)) {
      console.log(`  profile (${phase}; test-results/bench/host-${phase}.cpuprofile): inside our longest handlers`);
      for (const p of list) console.log(`    ${p.what} ${p.ms} ms (${p.samples} samples): ${p.where.map(([w, ms]) => `${w} ${ms} ms`).join('; ')}`);
    }
  }
  const s = stat(all);
  const c = stat(h.computedMs);
  console.log(`  an edit made through the API (editor.edit, d = 512) → every stage back from the worker: median ${r2(c.median)} ms (min ${r2(c.min)}, max ${r2(c.max)}); → the panel's "rendered" back: median ${r2(s.median)} ms (min ${r2(s.min)}, max ${r2(s.max)})`);
  if (h.editSplit) console.log(`  where (medians, this thread's clock): the change event back from the editor ${h.editSplit.toChange} ms, → the worker's model message ${h.editSplit.toModel} ms (the worker's own read ${h.editSplit.workerRead} ms), → its done ${h.editSplit.toDone} ms (its forward ${h.editSplit.workerForward} ms), → the panel's "rendered" ${h.editSplit.toRendered} ms; a trivial query's round trip host ↔ worker when idle ${h.editSplit.idleQueryRoundTrip} ms`);
  results.hostEditSplit = h.editSplit;
  results.hostEditToComputed = round(c);
  results.hostEditToDrawn = round(s);
}

// --- checkpoints ----------------------------------------------------------------------------------------

/** Random-weight checkpoints of GPT-2-small and SmolLM2-135M shape (the presets), written once to a temporary folder. */
async function checkpoints(): Promise<void> {
  console.log(`\n# checkpoints: random-weight GPT-2-small (124M, F32, 12 layers) and SmolLM2-135M (BF16, 30 layers), T = 32, WebAssembly SIMD on ${workerKernel!.threads === 1 ? 'one thread' : `${workerKernel!.threads} threads`} (as the worker runs it here), in this process`);
  const dir = join(tmpdir(), 'ffn-bench-checkpoints');
  const kernel = workerKernel!;
  const out: Record<string, unknown> = {};
  for (const id of ['gpt2-small-checkpoint', 'smollm2-135m-checkpoint'] as const) {
    const folder = writePreset(dir, id);
    collectGarbage();
    const rss0 = process.memoryUsage.rss();
    const t0 = performance.now();
    const store = new CheckpointStore(nodeFiles, undefined, kernel); // as the worker holds them
    const model = (text: string) => resolveReadNow(readModel(text, join(dir, 'm.ffn.json')), join(dir, 'm.ffn.json'), store, resolver);
    const resolver = new CheckpointResolver();
    const ids = Array.from({ length: 32 }, (_, i) => (i * 7919) % 40000);
    const file = (extra: string, n = 32): string => `{"version": 1, "checkpoint": ${JSON.stringify(folder)}, "token_ids": [${ids.slice(0, n).join(', ')}]${extra}}`;
    const first = (await model(file(''))).file!;
    const tLoad = performance.now() - t0;
    const weightsMB = [...new Set(first.model.params.values())].reduce((n, p) => n + storedBytes(p), 0) / 1e6;
    const engine = new Engine(kernel);
    const t1 = performance.now();
    engine.run(first.model);
    const tFirst = performance.now() - t1;
    collectGarbage(); // (what stays: the read buffers of the load are garbage by now)
    const rssMB = (process.memoryUsage.rss() - rss0) / 1e6;
    const cold: number[] = [];
    for (let i = 0; i < 2; i++) {
      const e = new Engine(kernel);
      const s0 = performance.now();
      e.run(first.model);
      cold.push(performance.now() - s0);
      e.dispose();
    }
    // Rounds of three, so each ratio pairs figures taken seconds apart (a busy machine moves both):
    // a full forward, every stage kept and computed again (another first token: nothing is kept),
    // the weights where the worker keeps them (the kernel's memory); an ablate entry in the middle
    // layer; the same file with one token more.
    const mid = Math.floor(first.model.spec.layers.length / 2);
    const full: number[] = [];
    const abl: number[] = [];
    const app: number[] = [];
    for (let i = 0; i < 5; i++) {
      const other = (await model(`{"version": 1, "checkpoint": ${JSON.stringify(folder)}, "token_ids": [${[(ids[0] + (i + 1) * 101) % 40000, ...ids.slice(1)].join(', ')}]}`)).file!;
      let s0 = performance.now();
      engine.run(other.model);
      full.push(performance.now() - s0);
      engine.run((await model(file(''))).file!.model); // (back to the file: untimed)
      const m1 = (await model(file(`, "ablate": ["layers.${mid}.ffn.neuron.${i}"]`))).file!;
      s0 = performance.now();
      engine.run(m1.model);
      abl.push(performance.now() - s0);
      const m0 = (await model(file('', 31))).file!;
      engine.run(m0.model);
      const m2 = (await model(file(''))).file!;
      s0 = performance.now();
      engine.run(m2.model);
      app.push(performance.now() - s0);
    }
    engine.dispose();
    const f = stat(full);
    const a = stat(abl);
    const p = stat(app);
    out[id] = { loadMs: r2(tLoad), firstForwardMs: r2(tFirst), fullForwardMs: round(f), fullForwardPackingMs: round(stat(cold)), ablateMs: round(a), appendMs: round(p), weightsMB: r2(weightsMB), rssGrowthMB: r2(rssMB) };
    console.log(`  ${id}: read ${r2(tLoad)} ms, first forward ${r2(tFirst)} ms, process memory +${r2(rssMB)} MB for ${r2(weightsMB)} MB of float32 weights`);
    const name = id === 'gpt2-small-checkpoint' ? 'GPT-2-small' : 'SmolLM2-135M';
    // (memory against the weights it holds, not a time: the same on any machine. The worker loads
    // them into the kernel's memory and multiplies them there; a packed copy beside them read 2.2×)
    const mem = rssMB / weightsMB;
    target(`${name} checkpoint: process memory after the read and a forward (every stage kept), vs the weights' float32 size`, '≤ 1.3×', '×', { median: mem, min: mem, max: mem, n: 1 }, mem <= 1.3, `+${r2(rssMB)} MB for ${r2(weightsMB)} MB`);
    // (an ablate in the middle layer computes the second half of the layers and the head again:
    // about two thirds of a full forward; a full recompute is 1. An appended token: its row alone.)
    // (runs here read 0.55–0.63× and, for the appended token, 0.19–0.35×: one row reads every
    // weight from memory once, which a second thread hardly speeds, while the full forward is
    // compute-bound and runs 1.5× faster on two; recomputing everything reads 1× and fails)
    const ra = stat(abl.map((x, i) => x / full[i]));
    const rp = stat(app.map((x, i) => x / full[i]));
    target(`${name} checkpoint: an ablate in layer ${mid} recomputed, vs a full forward`, '≤ 0.8×', '×', ra, ra.median <= 0.8, `${r2(a.median)} ms vs ${r2(f.median)} ms`);
    target(`${name} checkpoint: one token appended (T 31 → 32), vs a full forward`, '≤ 0.5×', '×', rp, rp.median <= 0.5, `${r2(p.median)} ms vs ${r2(f.median)} ms`);
    console.log(`  (information) ${name}: full forward with every stage kept, T = 32, weights in the kernel's memory: median ${r2(f.median)} ms (issue 10 asks ≤ ${id.startsWith('gpt2') ? 250 : 300} ms); with a fresh engine (nothing to pack): ${r2(stat(cold).median)} ms`);
    if (id === 'gpt2-small-checkpoint') {
      out.tfjs = await tfjsForwardBench(first.model, engine);
      out.patching = patchingBench(first.model, engine, f.median);
    }
  }
  results.checkpoints = out;
}

/**
 * Bytes posted per edit of a GPT-2-small-shaped checkpoint's model file, worker → host and host →
 * webview (bench/wireBytes.ts). Information, not a target: the figure moves with what the panel
 * shows, not with the machine. The layout (the plan's stage list, ~63 KB of JSON) goes only when
 * it changed: an ablate or a token replaced leaves it as it was, a token appended does not.
 */
async function wire(): Promise<void> {
  console.log('\n# bytes posted per edit: a GPT-2-small-shaped checkpoint (12 layers, 32 tokens), as a new panel shows it');
  const dir = join(tmpdir(), 'ffn-bench-checkpoints');
  const folder = writePreset(dir, 'gpt2-small-checkpoint');
  const byKind = await wireBytesOfEdits(join(REPO, 'dist', 'worker.js'), folder, dir, quick ? 2 : 5);
  const kb = (n: number): number => r2(n / 1024);
  const out: Record<string, unknown> = {};
  const labels: Record<string, string> = { ablate: 'an ablate entry edited', token: 'a token id replaced', append: 'a token appended' };
  for (const [kind, edits] of Object.entries(byKind)) {
    const med = (f: (e: EditBytes) => number): number => stat(edits.map(f)).median;
    const row = { toHostKB: kb(med((e) => e.toHost.total)), toHostJsonKB: kb(med((e) => e.toHost.json)), toWebviewKB: kb(med((e) => e.toWebview.total)), toWebviewJsonKB: kb(med((e) => e.toWebview.json)), summaryJsonKB: kb(med((e) => e.summaryJson)), messages: med((e) => e.toHost.messages) };
    out[kind] = row;
    const both = stat(edits.map((e) => (e.toHost.total + e.toWebview.total) / 1024));
    information(`bytes posted per edit, GPT-2-small-shaped checkpoint, ${labels[kind]}: worker → host + host → webview`, 'KB', both,
      `worker → host ${row.toHostKB} KB (${row.toHostJsonKB} KB of it JSON, ${row.messages} messages), host → webview ${row.toWebviewKB} KB (${row.toWebviewJsonKB} KB JSON); the model summary ${row.summaryJsonKB} KB`);
  }
  results.wire = out;
}

/** A full garbage collection, so a memory figure is what stays (V8's gc, exposed at run time). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

// (after a tfjs forward the next two of ours ran 1.5-2× slower, the other core busy for a second
// with what tfjs left behind: measured 456, 316, 317 then 198 ms, against ~205 before it. And a
// pause alone did not clear it: the garbage of the forward before, ours or theirs, was collected
// during the next one, which paid for it: ours read 317 ms in these rounds against 225 ms back to
// back in the same run. So a full collection first, then the pause, before each of the three.)
const settle = (): Promise<void> => {
  collectGarbage();
  return new Promise((r) => setTimeout(r, 1500));
};

/**
 * The GPT-2-small forward against the same forward written with tfjs-wasm ops (bench/tfjsGpt2.ts),
 * every stage read back, in rounds (ours, then theirs, a round apart by seconds at most).
 */
async function tfjsForwardBench(model: Model, engine: Engine): Promise<object | null> {
  const tf = await tfjsWasm();
  if (!tf) {
    console.log('  skipped: tfjs-wasm did not load');
    return null;
  }
  const peer = tfjsGpt2Forward(tf, model);
  // ours as the compute worker runs it here (`engine`: one thread on 2 cores) and, for the record,
  // with the other choice (a helper thread, as on machines with more cores); tfjs-wasm's threads do
  // not run in Node
  const otherKernel = engine.kernel.threads === 1 ? await threadedKernel() : createWasmKernel()!;
  const one = new Engine(otherKernel);
  try {
    const ids = (model.spec.embedding as { ids: readonly number[] }).ids;
    const other = (i: number): Model => withTokens(model, [(ids[0] + 1 + i) % 40000, ...ids.slice(1)]);
    peer.run(); // (its first run compiles and allocates; ours pack their weights)
    engine.run(other(99));
    one.run(other(98));
    const ours: number[] = [];
    const oneThread: number[] = [];
    const theirs: number[] = [];
    // (8 rounds, not 4: this VM's speed swings by a third within a minute, and a median of four
    // pairs moved by 0.1× between runs of the same code)
    for (let i = 0; i < (quick ? 2 : 8); i++) {
      // ours: every stage computed again (another first token, as the full-forward row above);
      // each forward after a pause, so none runs beside the last one's leftovers (settle)
      await settle();
      let t0 = performance.now();
      engine.run(other(i));
      ours.push(performance.now() - t0);
      await settle();
      t0 = performance.now();
      one.run(other(i + 10));
      oneThread.push(performance.now() - t0);
      await settle();
      t0 = performance.now();
      peer.run();
      theirs.push(performance.now() - t0);
    }
    const o = stat(ours);
    const o1 = stat(oneThread);
    const t = stat(theirs);
    const ratio = stat(ours.map((x, i) => x / theirs[i]));
    const ratio1 = stat(oneThread.map((x, i) => x / theirs[i]));
    const threads = (n: number): string => (n === 1 ? 'one thread' : `${n} threads`);
    // (issue 10 asks ≥ 2× tfjs-wasm's speed: ≤ 0.5× its time)
    target('GPT-2-small full forward (every stage kept), vs the same forward in tfjs-wasm ops', '≤ 0.5×', '×', ratio, ratio.median <= 0.5,
      `${r2(o.median)} ms (${threads(engine.kernel.threads)}, as the worker here) vs ${r2(t.median)} ms (tfjs-wasm ${await tfjsVersion()}, one thread: its threads do not run in Node; every stage read back); ours on ${threads(otherKernel.threads)} ${r2(o1.median)} ms, ${r2(ratio1.median)}×`);
    return { oursMs: round(o), oursThreads: engine.kernel.threads, otherMs: round(o1), otherThreads: otherKernel.threads, tfjsMs: round(t) };
  } finally {
    peer.dispose();
    one.dispose();
    otherKernel.dispose();
  }
}

/**
 * Activation patching on GPT-2-small shape: the residual stream at each of 12 layers × 32 tokens
 * patched from the clean run into a run whose token 2 differs (an early corruption: positions
 * before it recover nothing and are skipped exactly, so a later one would be cheaper), then each of
 * the 144 heads. The peer: the same number of full forwards, which is what patching costs written
 * as a loop of forward passes (TransformerLens' patching functions run one per patch).
 */
function patchingBench(model: Model, engine: Engine, fullMs: number): object {
  const ids = (model.spec.embedding as { ids: readonly number[] }).ids;
  const corrupted = withTokens(model, ids.map((id, t) => (t === 2 ? (id + 1) % model.spec.head!.V : id)));
  const time = (views: 'resid' | 'heads'): { ms: number; runs: number; longestStepMs: number } => {
    const t0 = performance.now();
    const g = activationPatching(engine, model, corrupted, { views });
    let runs = 0;
    let longest = 0;
    let last = performance.now();
    for (;;) {
      const r = g.next();
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (r.done) break;
      runs = r.value.total - 2;
    }
    return { ms: performance.now() - t0, runs, longestStepMs: longest };
  };
  const resid = time('resid');
  const heads = time('heads');
  // (runs here read 0.14–0.17×; patches recomputed in full, each a whole forward, read 1×)
  const ratio = resid.ms / (resid.runs * fullMs);
  target('activation patching, GPT-2-small, residual stream 12 layers × 32 tokens, vs as many full forwards', '≤ 0.3×', '×', { median: ratio, min: ratio, max: ratio, n: 1 }, ratio <= 0.3,
    `${r2(resid.ms / 1000)} s for ${resid.runs} patched runs (issue 11 asks ≤ 30 s); the worker answers other messages between steps: the longest step ${r2(resid.longestStepMs)} ms`);
  information('activation patching, GPT-2-small, each of the 144 heads (every token)', 'ms', { median: heads.ms, min: heads.ms, max: heads.ms, n: 1 },
    `${heads.runs} patched runs, ${r2(heads.ms / heads.runs)} ms each (${r2(heads.ms / (heads.runs * fullMs))}× a full forward); the longest step ${r2(heads.longestStepMs)} ms`);
  return { residMs: r2(resid.ms), residRuns: resid.runs, headsMs: r2(heads.ms), headsRuns: heads.runs, ratio: r2(ratio) };
}

// --- in a real VS Code ------------------------------------------------------------------------------------

/**
 * Runs one bench/e2e file in a real VS Code (scripts/run-e2e.mjs: code-server + Chromium) with these
 * user settings: the figures it wrote to $FFN_BENCH_OUT (null if it did not finish), and what it printed.
 */
function runInVsCode<T>(file: string, timeoutS: number, settings: Record<string, unknown>, tag: string): { figures: T | null; stdout: string; stderr: string } {
  const out = join(tmpdir(), `ffn-bench-${tag}-${process.pid}.json`);
  const settingsFile = join(tmpdir(), `ffn-bench-${tag}-settings-${process.pid}.json`);
  writeFileSync(settingsFile, JSON.stringify(settings));
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'run-e2e.mjs'), '--files', `out/bench/e2e/${file}`, '--timeout', String(timeoutS), '--settings', settingsFile], {
    encoding: 'utf8', env: { ...process.env, FFN_BENCH_OUT: out }, maxBuffer: 1 << 24,
  });
  rmSync(settingsFile, { force: true });
  if (!existsSync(out)) return { figures: null, stdout: r.stdout, stderr: r.stderr };
  const figures = JSON.parse(readFileSync(out, 'utf8')) as T;
  rmSync(out, { force: true });
  return { figures, stdout: r.stdout, stderr: r.stderr };
}

/** The last lines a run printed, for a section skipped because it did not finish. */
const lastLines = (r: { stdout: string; stderr: string }): string => (r.stdout + r.stderr).trim().split('\n').slice(-3).join(' / ');

// --- the two extension hosts ------------------------------------------------------------------------------

/**
 * The compute worker in the Node extension host and in the web worker host (vscode.dev's), the same
 * VS Code on the same machine: the d = 512 block opened (read + full forward: matmul-bound) and an
 * edit of W1 (parse + recompute), on the worker's clock as the panel reports it.
 */
function hosts(): void {
  console.log('\n# extension hosts: the compute worker in the Node host and in the web worker host (code-server + Chromium), d = 512');
  const runOne = (web: boolean): { host: string; openMs: number; fullMs: number[]; editMs: number[]; fileMB: number; gflops: number; kernel: string } | null => {
    const r = runInVsCode<ReturnType<typeof runOne>>('hosts.js', 900, { 'files.autoSave': 'off', ...(web ? { 'remote.extensionKind': { 'ffn-lens.ffn-lens': ['web'] } } : {}) }, `hosts-${web ? 'web' : 'node'}`);
    if (!r.figures) console.log(`  skipped (${web ? 'web' : 'Node'} host): the VS Code run did not finish (${lastLines(r)})`);
    return r.figures;
  };
  const node = runOne(false);
  const web = runOne(true);
  if (!node || !web) return;
  const e = (x: { editMs: number[] }) => stat(x.editMs);
  const one = (v: number) => ({ median: v, min: v, max: v, n: 1 });
  const f = (x: { fullMs: number[] }) => stat(x.fullMs);
  information('matmul 32×768×3072 in the compute worker (FFN Lens: Measure Compute Speed), Node host', 'GFLOPS', one(node.gflops), `kernel ${node.kernel}`);
  information('matmul 32×768×3072 in the compute worker, web worker host', 'GFLOPS', one(web.gflops), `kernel ${web.kernel}; ${r2(web.gflops / node.gflops)}× the Node host's`);
  information(`d = 512 (${node.fileMB} MB) read and computed in full (its name edited): the worker's parse + forward, Node host`, 'ms', f(node), `the host: ${node.host}`);
  information('d = 512 read and computed in full: the worker\'s parse + forward, web worker host', 'ms', f(web), `the host: ${web.host}; ${r2(f(web).median / f(node).median)}× the Node host's`);
  information('an edit of W1 in d = 512: the worker\'s parse + recompute, Node host', 'ms', e(node), `${node.editMs.length} edits`);
  information('an edit of W1 in d = 512: the worker\'s parse + recompute, web worker host', 'ms', e(web), `${web.editMs.length} edits; ${r2(e(web).median / e(node).median)}× the Node host's`);
  results.hosts = { node, web };
}

// --- opening a checkpoint, in a real VS Code ---------------------------------------------------------------

function webGemma(): void {
  console.log('\n# webgemma: a Gemma-2-2B-shaped checkpoint (5.2 GB BF16) opened in the web worker host: drawn, or refused at `checkpoint`');
  const r = runInVsCode<{ outcome: string; ms: number }>('webGemma2b.js', 1800, { 'files.autoSave': 'off', 'remote.extensionKind': { 'ffn-lens.ffn-lens': ['web'] } }, 'webgemma');
  const j = r.figures;
  if (!j) {
    console.log(`  skipped: the VS Code run did not finish (${lastLines(r)})`);
    return;
  }
  information('Gemma-2-2B-shaped checkpoint (5.2 GB BF16) in the web worker host: Visualize → drawn or refused', 'ms', { median: j.ms, min: j.ms, max: j.ms, n: 1 }, j.outcome);
  results.webgemma = j;
}

function patch1b(): void {
  console.log('\n# patch1b: activation patching of a Llama-3.2-1B-shaped checkpoint (2.5 GB BF16, 8 tokens) in a real VS Code: its progress, Cancel, then to its end');
  const r = runInVsCode<{ openMs: number; total: number; doneAtCancel: number; cancelMs: number; ablateMs: number; patchMs: number; progressText: string; cancelled: string; headline: string; hover: string; hoverMs: number; compareMs: number; exportMs: number; npyBytes: number }>('patch1b.js', 3600, { 'files.autoSave': 'off' }, 'patch1b');
  const j = r.figures;
  if (!j) {
    console.log(`  skipped: the VS Code run did not finish (${lastLines(r)})`);
    return;
  }
  const one = (v: number) => ({ median: v, min: v, max: v, n: 1 });
  information('Llama-3.2-1B-shaped checkpoint: activation patching of the residual stream (16 layers × 8 tokens) in a real VS Code, to its end', 'ms', one(j.patchMs),
    `${j.total} runs; the notification said "${j.progressText}"; Cancel at ${j.doneAtCancel} runs, the panel said "${j.cancelled}"; an ablate typed after it drawn in ${j.ablateMs} ms; the hover on it in ${j.hoverMs} ms; compare with the file without it drawn in ${j.compareMs} ms; head.logits exported as .npy (${j.npyBytes} bytes) in ${j.exportMs} ms`);
  results.patch1b = j;
}

function open8b(): void {
  console.log('\n# open8b: a Llama-3.1-8B-shaped checkpoint (16 GB BF16) opened in a real VS Code (code-server + Chromium): Visualize → every stage drawn, then an ablate');
  const r = runInVsCode<{ makeMs: number; openToDrawnMs: number; computeMs: number; ablateToDrawnMs: number; memoryBeforeMB: number; memoryPeakMB: number; peakGrowthMB: number }>('open8b.js', 3600, { 'files.autoSave': 'off' }, 'open8b');
  const j = r.figures;
  if (!j) {
    console.log(`  skipped: the VS Code run did not finish (${lastLines(r)})`);
    return;
  }
  information('Llama-3.1-8B-shaped checkpoint (16 GB BF16) in a real VS Code: Visualize → every stage drawn', 'ms', { median: j.openToDrawnMs, min: j.openToDrawnMs, max: j.openToDrawnMs, n: 1 },
    `the forward ${j.computeMs} ms; an ablate in layer 16 typed → drawn ${j.ablateToDrawnMs} ms; the system's memory in use ${j.memoryBeforeMB} MB before, ${j.memoryPeakMB} MB at its peak (${j.peakGrowthMB} MB more)`);
  results.open8b = j;
}

function openCheckpoint(): void {
  console.log('\n# open: a GPT-2-small-shaped checkpoint (498 MB) opened in a real VS Code (code-server + Chromium), Quick Open → every stage drawn');
  const r = runInVsCode<{ openToDrawnMs: number; toModelMs: number; toDoneMs: number; computeMs: number; diskReadMB: number | null }>('open.js', 600, { 'files.autoSave': 'off' }, 'open');
  const j = r.figures;
  if (!j) {
    console.log(`  skipped: the VS Code run did not finish (${lastLines(r)})`);
    return;
  }
  const v = j.openToDrawnMs;
  // (issue 10: "open: read the checkpoint + first forward + first heatmap painted, real VS Code ≤ 2 s";
  // a wait a person feels, absolute like keystroke → pixels; every stage drawn is stricter than the first)
  target('open a GPT-2-small-shaped checkpoint (498 MB) in a real VS Code: Quick Open of its model file → every stage drawn', '≤ 2000 ms', 'ms', { median: v, min: v, max: v, n: 1 }, v <= 2000,
    `the worker's model message in the panel at ${j.toModelMs} ms, its last stage at ${j.toDoneMs} ms (the forward ${j.computeMs} ms), drawn at ${v} ms; the panel already open on another model, following the active editor; the checkpoint read through once after it was written (cached, as one just downloaded), ${j.diskReadMB ?? '?'} MB read from disk by the system during the open`);
  results.open = j;

  // a long prompt: 400 tokens, the head across 50,257 words sent pooled to the panel's width
  const l = runInVsCode<{ openToDrawnMs: number; toModelMs: number; toDoneMs: number; computeMs: number; panelBusyMs: number }>('longPrompt.js', 900, { 'files.autoSave': 'off' }, 'long');
  const f = l.figures;
  if (!f) {
    console.log(`  skipped: the long prompt's VS Code run did not finish (${lastLines(l)})`);
    return;
  }
  const w = f.openToDrawnMs;
  information('open a GPT-2-small-shaped checkpoint with a 400-token input in a real VS Code → every stage drawn', 'ms', { median: w, min: w, max: w, n: 1 },
    `the model message at ${f.toModelMs} ms, the last stage at ${f.toDoneMs} ms, the worker's forward ${f.computeMs} ms (it shares this machine's 2 cores with VS Code), the panel busy ${f.panelBusyMs} ms; head.logits and head.probs sent pooled to 1024 columns (3.3 MB, not 80 MB each: 21.9 s before, 13.5 s of it their transfer)`);
  results.longPrompt = f;
}

// --- keystroke to pixels, in a real VS Code ---------------------------------------------------------------

function keystroke(): void {
  console.log('\n# keystroke → pixels: a digit typed into W1 in a real VS Code (code-server + Chromium) → the panel drawn; d = 64, d = 512 (37 MB), d = 512 as JSON');
  interface Run { ms: number[]; path?: number[]; split: Record<string, number>; echoMs: number; keyMs: number }
  // Auto save off, as desktop VS Code has it by default (and `npm run demo`): code-server, a web
  // workbench, saves a second after typing pauses, which here would write 37 MB between two edits.
  const r = runInVsCode<Run & { fileMB: number; smallMB: number; language: string; small: Run; asJson: (Run & { language: string }) | null }>('keystroke.js', 1200, { 'files.autoSave': 'off' }, 'keys');
  for (const l of r.stdout.split('\n')) if (/keystroke → pixels|arrivals|did not run/.test(l)) console.log(`  ${l.trim()}`);
  const k = r.figures;
  if (!k) {
    // mocha's account of the failure, without the stack
    const lines = (r.stdout + r.stderr).split('\n');
    const at = lines.findIndex((l) => /^\s+1\) /.test(l) && lines.indexOf(l) > lines.findIndex((x) => /failing/.test(x)));
    const why = at >= 0 ? lines.slice(at, at + 12).filter((l) => l.trim() && !/^\s+at /.test(l)).map((l) => l.trim()).join(' / ') : lines.slice(-3).join(' / ');
    console.log(`  skipped: the VS Code run did not finish (${why.slice(0, 800)})`);
    return;
  }
  const s = stat(k.ms);
  const small = stat(k.small.ms);
  const json = k.asJson ? stat(k.asJson.ms) : null;
  results.keystroke = {
    fileMB: k.fileMB, language: k.language, ms: round(s), all: k.ms, split: k.split, editorEchoMs: k.echoMs, keyInPageMs: k.keyMs,
    small: { fileMB: k.smallMB, ms: round(small), all: k.small.ms, split: k.small.split, editorEchoMs: k.small.echoMs },
    path: k.path,
    asJson: k.asJson && json ? { language: k.asJson.language, ms: round(json), all: k.asJson.ms, split: k.asJson.split, editorEchoMs: k.asJson.echoMs } : null,
  };
  // (path: the model message's way, from the stamps it carries: key → host, host → worker, the worker's wait, its read, worker → host, host → webview)
  const path = (x: Run): string => (x.path?.length === 6 ? ` (the key to the host ${x.path[0]}, the worker ${x.path[1] + x.path[2] + x.path[3]}, its answer to the host ${x.path[4]}, the host to the webview ${x.path[5]})` : '');
  const where = (x: Run): string => `to the model message in the webview ${x.split.toModel} ms${path(x)}, to the last stage ${x.split.toDone} ms, to the frame ${x.split.toDrawn} ms; the digit in the editor ${x.echoMs} ms`;
  // Absolute: 100 ms is where a person stops seeing a reply as immediate, on any machine (as the
  // host thread's 10 ms); a slower machine does not make the person more patient. No ratio target
  // beside it: the path crosses five processes (browser, server, extension host, worker, webview)
  // sharing two cores, and no same-run peer does its work. The nearest, the same keystroke in a
  // d = 64 file in the same window (the two edited in turns), is reported below: it shows what the
  // file's size adds, but it moves with the machine's load differently from the 37 MB file (d = 512
  // read 1.2–1.6× it in today's runs), so a bar that passes today would let a 50–100 ms regression
  // through on a busier day.
  target(`keystroke → changed heatmaps drawn, d = 512 (${k.fileMB} MB, ${k.language}) in a real VS Code`, '≤ 100 ms', 'ms', s, s.median <= 100,
    `${k.ms.length} edits; medians: ${where(k)}; webview clock ${k.split.clockOffsetMs} ms from Playwright's (round trip ${k.split.clockRttMs} ms)`);
  information(`keystroke → changed heatmaps drawn, d = 64 (${k.smallMB} MB) in the same window, in turns with d = 512`, 'ms', small,
    `d = 512 reads ${r2(s.median / small.median)}× it; medians: ${where(k.small)}`);
  if (k.asJson && json) {
    information(`keystroke → changed heatmaps drawn, the d = 512 document switched to ${k.asJson.language} (VS Code's JSON service reading it per keystroke, as before ffn-json)`, 'ms', json,
      `${k.asJson.ms.length} edits, ${r2(json.median / s.median)}× the ffn-json row; medians: ${where(k.asJson)}`);
  }
}

// --- typing a prompt, in a real VS Code -------------------------------------------------------------------

function promptTyping(): void {
  console.log('\n# typing a prompt: " basketball" typed at 120 ms per key into a GPT-2-small-shaped checkpoint\'s prompt in a real VS Code (code-server + Chromium) → the final text\'s render drawn');
  const r = runInVsCode<{ ms: number[]; median: number; min: number; max: number; toModelMs: number; echoMs: number; path: Record<string, number>; panel?: Record<string, number>; inBetweenAfterLastKey: number[]; drawnWhileTyping: number[] }>('promptTyping.js', 900, { 'files.autoSave': 'off' }, 'typing');
  for (const l of r.stdout.split('\n')) if (/round \d|typing → final/.test(l)) console.log(`  ${l.trim()}`);
  const t = r.figures;
  if (!t) {
    console.log(`  skipped: the VS Code run did not finish (${lastLines(r)})`);
    return;
  }
  results.typing = t;
  // (issue 27: "the prompt-typing case reaches its final state ≤ 300 ms after the last key on
  // GPT-2-small"; absolute like keystroke → pixels: a wait a person feels. 1.42 s and more before
  // a newer keystroke stopped the run in flight.)
  target('typing a prompt on GPT-2-small in a real VS Code: the last key → the final text\'s render drawn', '≤ 300 ms', 'ms', stat(t.ms), stat(t.ms).median <= 300,
    `${t.ms.length} rounds of " basketball" at 120 ms per key; medians: the word in the editor ${t.echoMs} ms, the final model message in the panel ${t.toModelMs} ms (${Object.entries(t.path).map(([k, v]) => `${k} ${v}`).join(', ')}; of the panel's part: ${Object.entries(t.panel ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')}); in-between renders drawn after the last key: ${t.inBetweenAfterLastKey.join(', ')}; renders drawn while typing: ${t.drawnWhileTyping.join(', ')}`);
}

// --- the architectures of issue 29 --------------------------------------------------------------

function archs(): void {
  console.log(`\n# the forward on each architecture's block at its preset's widths (2 layers, seq 32, every stage kept, no head; the shapes in turn)`);
  const rows = archThroughput(workerKernel!, quick ? 3 : 9);
  const base = rows[0];
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    out[r.name] = { gflop: r2(r.gflop * 1000) / 1000, ms: round(stat(r.ms)), gflops: round(stat(r.gflops)) };
    if (r === base) {
      information(`forward throughput, ${r.name} block`, 'GFLOP/s', stat(r.gflops), `${r2(stat(r.ms).median)} ms for ${r2(r.gflop * 1000) / 1000} GFLOP`);
      continue;
    }
    // (issue 29: "the kernel's throughput on the new architectures within 10% of GPT-2-small's")
    const ratio = stat(r.gflops.map((g, i) => g / base.gflops[i]));
    target(`forward throughput, ${r.name} block ÷ GPT-2-small's (same run, in turn)`, '≥ 0.9×', '×', ratio, ratio.median >= 0.9,
      `${r2(stat(r.gflops).median)} vs ${r2(stat(base.gflops).median)} GFLOP/s; ${r2(stat(r.ms).median)} ms for ${r2(r.gflop * 1000) / 1000} GFLOP`);
  }
  results.archs = out;
}

// --- sections in files of their own (issue 30) -----------------------------------------------------

const report: Report = { target, information, result: (k, v) => { results[k] = v; }, quick };

async function onnx(): Promise<void> {
  console.log('\n# GPT-2-small forward (checkpoint preset, T = 32, every stage kept) vs onnxruntime-web (WebAssembly SIMD) and onnxruntime-node, the same weights, in turns');
  const folder = writePreset(join(tmpdir(), 'ffn-bench-checkpoints'), 'gpt2-small-checkpoint');
  const model = await checkpointModels(folder, workerKernel!).model(Array.from({ length: 32 }, (_, i) => (i * 7919) % 40000));
  const engine = new Engine(workerKernel!);
  try {
    await onnxPeer(model, engine, report, collectGarbage);
  } finally {
    engine.dispose();
  }
}

// --- main -------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  enableWasmRelaxedSimd(); // as the compute worker does, before any kernel
  const modeAt = args.indexOf('--child');
  if (modeAt >= 0) {
    child(args[modeAt + 1], args[modeAt + 2]);
    return;
  }
  const t0 = Date.now();
  console.log(`FFN Lens benchmark — ${new Date().toISOString()} — Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB${quick ? ' (quick)' : ''}`);
  // parse before matmul, on a fresh heap: the matmul section's tfjs peers leave hundreds of MB
  // behind, which every later collection walks (it cost both parsers, ours ~10% more than JSON.parse)
  // The machine's load average (1 minute) as each section starts: on a shared 2-core machine the
  // absolute figures move with it; the ratios should not.
  const load: Record<string, number> = {};
  const section = async (name: string, f: () => unknown): Promise<void> => {
    if (!want(name)) return;
    load[name] = r2(loadavg()[0]);
    await f();
  };
  // VS Code first, timed in other processes while this one is still small: after the sections
  // below it held ~2.2 GB (the checkpoints' weights in a WebAssembly memory, which never shrinks,
  // and the tfjs peers'), and the open of GPT-2-small then took 3.0-3.4 s against 1.4-1.8 s with
  // nothing beside it (the worker's read slower, 0 MB of it from disk; the same with the
  // checkpoint section run in a process of its own just before: 1.7 s).
  await section('host', host);
  await section('open', openCheckpoint);
  if (only?.has('open8b')) await section('open8b', open8b); // (asked for alone: 16 GB written, 30-40 min)
  if (only?.has('webgemma')) await section('webgemma', webGemma); // (asked for alone: 5.2 GB written)
  if (only?.has('patch1b')) await section('patch1b', patch1b); // (asked for alone: 2.5 GB written, ~10 min)
  await section('keystroke', keystroke);
  await section('typing', promptTyping);
  await section('hosts', hosts);
  await section('parse', parse);
  await section('matmul', matmul);
  if (['recompute', 'edit', 'checkpoint', 'archs', 'onnx', 'generate', 'sae'].some(want)) await startWorkerKernel();
  await section('recompute', recompute);
  await section('edit', edits);
  await section('draw', draw);
  await section('checkpoint', checkpoints);
  await section('archs', archs);
  await section('generate', async () => { results.generate = await generationBench(workerKernel!, (id) => writePreset(join(tmpdir(), 'ffn-bench-checkpoints'), id)); });
  await section('sae', () => saeBench(workerKernel!, writePreset(join(tmpdir(), 'ffn-bench-checkpoints'), 'gpt2-small-checkpoint'), { target, information, stat, results, quick }));
  await section('threads', () => threadsForward({ target, information, stat, results, quick }));
  await section('onnx', onnx);
  await section('big', () => bigThroughput(report));
  await section('memory', () => memoryAfterOpen(report));
  await section('big1b', () => incremental1b(report, writePreset(join(tmpdir(), 'ffn-bench-checkpoints'), 'gpt2-small-checkpoint')));
  await section('wire', wire);
  console.log(`\nload average (1 min) as each section began: ${Object.entries(load).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  results.loadAverage = load;
  const summary = {
    date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, quick,
    seconds: Math.round((Date.now() - t0) / 1000), targets, ...results,
  };
  writeFileSync(OUT, JSON.stringify(summary, null, 2) + '\n');
  const scored = targets.filter((t) => t.pass !== null);
  console.log(`\n${scored.filter((t) => t.pass).length} of ${scored.length} targets met; written to ${OUT}`);
  // (the README's table: a ratio's target reads "≥ 1.2×" / "≤ 0.15×", an absolute one "≤ 10 ms")
  console.log('\n| what | target | median | min | max | met | same run |\n|---|---|---|---|---|---|---|');
  for (const t of targets) {
    const met = t.pass === null ? '—' : t.pass ? 'yes' : '**no**';
    console.log(`| ${t.what.replace(/\|/g, '\\|')} | ${t.target} | ${t.value.median} ${t.unit} | ${t.value.min} | ${t.value.max} | ${met} | ${(t.note ?? '').replace(/\|/g, '\\|')} |`);
  }
}

main().catch((e) => {
  console.error(`bench: ${(e as Error).message}`);
  process.exitCode = 1;
});
