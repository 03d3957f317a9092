// Section `threads`: the GPT-2-small forward (random weights of its shape from a checkpoint,
// T = 32, every stage kept and computed again) on one kernel with 2 threads against the same
// kernel with 1, in this process, the two alternating (each pair seconds apart, so a machine whose
// load moves moves both), the weights in the kernel's memory once. Issue 30: 2 threads ÷ 1 thread
// on the forward ≥ 1.7× when nothing else runs. Bits: each run's stages are compared with the
// one-thread run's of the same input. And by op, the serial share of one thread's CPU time (what
// the threads do not share: threadsProfile.ts), with the bound Amdahl's law puts on the ratio:
// a busy machine moves it less than the ratio (16-22% in four runs at load 18-24).
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { nodeFiles } from '../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../src/checkpoint/store';
import { Engine } from '../src/core/engine';
import { shareVectorOps } from '../src/core/expf';
import type { Model } from '../src/core/model';
import { createWasmKernel, setShareClock, type WasmMatmulKernel } from '../src/core/wasm';
import { withTokens } from '../src/lenses/cache';
import { readModel } from '../src/model/read';
import { nodeMatmulHelper } from '../src/worker/nodeMatmulHelper';
import { writePreset } from './checkpointModels';
import { addOpTimes, cpuMs, forwardByOp, printSerialShare, serialShare, type OpTime } from './threadsProfile';

interface Stat { median: number; min: number; max: number; n: number }
export interface ThreadsReport {
  target(what: string, tgt: string, unit: string, value: Stat, pass: boolean, note?: string): void;
  information(what: string, unit: string, value: Stat, note?: string): void;
  stat(xs: number[]): Stat;
  results: Record<string, unknown>;
  quick: boolean;
}

async function untilThreads(k: WasmMatmulKernel, n: number): Promise<void> {
  for (let i = 0; i < 1000 && k.threads < n; i++) await new Promise((r) => setTimeout(r, 10));
}

/** Every stage of two runs holds the same bits. */
function sameStages(a: Map<string, Float32Array>, b: Map<string, Float32Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, x] of a) {
    const y = b.get(id);
    if (!y || y.length !== x.length || !Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength))) return false;
  }
  return true;
}

function stagesOf(engine: Engine, model: Model): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const s of engine.run(model).values()) out.set(s.id, s.data.slice());
  return out;
}

export async function threadsForward(r: ThreadsReport): Promise<void> {
  console.log('\n# threads: GPT-2-small forward (T = 32, every stage kept), one kernel on 2 threads vs 1, alternating, in this process');
  const kernel = createWasmKernel(nodeMatmulHelper(join(__dirname, 'matmulHelper.js')), { threads: 2 });
  if (!kernel) throw new Error('no WebAssembly SIMD here');
  await untilThreads(kernel, 2);
  shareVectorOps(kernel); // (softmax, norms, activations on its threads too, as the worker's kernel)
  const folder = writePreset(join(tmpdir(), 'ffn-bench-checkpoints'), 'gpt2-small-checkpoint'); // (the checkpoint section's)
  const store = new CheckpointStore(nodeFiles, undefined, kernel);
  const file = join(folder, '..', 'threads.ffn.json');
  const ids = Array.from({ length: 32 }, (_, i) => (i * 7919) % 40000);
  const text = `{"version": 1, "checkpoint": ${JSON.stringify(folder)}, "token_ids": [${ids.join(', ')}]}`;
  const model = (await resolveReadNow(readModel(text, file), file, store, new CheckpointResolver())).file!.model;
  const engine = new Engine(kernel);
  const other = (i: number): Model => withTokens(model, [(ids[0] + 1 + i) % 40000, ...ids.slice(1)]);
  try {
    kernel.setThreads(1);
    const want = stagesOf(engine, other(500));
    kernel.setThreads(2);
    const same = sameStages(want, stagesOf(engine, other(500)));
    const one: number[] = [];
    const two: number[] = [];
    const helped: number[] = [];
    const byOp = [new Map<string, OpTime>(), new Map<string, OpTime>()];
    const rounds = r.quick ? 4 : 12;
    for (let i = 0; i < rounds; i++) {
      // (one, then two, then two, then one: neither always runs first after the other)
      for (const n of i % 2 === 0 ? [1, 2] : [2, 1]) {
        kernel.setThreads(n);
        const h0 = kernel.helpedPanels;
        const t0 = performance.now();
        engine.run(other(2 * i + n)); // (another first token each run: every stage computed again)
        (n === 1 ? one : two).push(performance.now() - t0);
        if (n === 2) helped.push(kernel.helpedPanels - h0);
        // the same forward again, by op (timing each stage costs a little: kept apart from the ratio's runs)
        // (on one thread by CPU time: after the helpers' polling has ended, or theirs counts too)
        if (n === 1) await new Promise((res) => setTimeout(res, 20));
        setShareClock(n === 1 ? cpuMs : () => performance.now());
        addOpTimes(byOp[n - 1], forwardByOp(engine, kernel, other(2 * i + n + 100), n === 1 ? cpuMs : undefined));
      }
    }
    const share = serialShare(byOp[0], byOp[1], rounds);
    printSerialShare(share);
    const ratio = r.stat(one.map((x, i) => x / two[i]));
    const o = r.stat(one);
    const t = r.stat(two);
    const load = loadavg()[0];
    r.target('GPT-2-small forward (T = 32, every stage kept): 2 threads ÷ 1 thread, speed', '≥ 1.7×', '×', ratio, ratio.median >= 1.7,
      `1 thread ${o.median.toFixed(1)} ms (${o.min.toFixed(1)}-${o.max.toFixed(1)}), 2 threads ${t.median.toFixed(1)} ms (${t.min.toFixed(1)}-${t.max.toFixed(1)}); every stage bit-identical: ${same}; load average ${load.toFixed(2)} (the target is for an idle machine)`);
    r.information('GPT-2-small forward: serial share (one thread\'s time outside work the helpers share, ÷ its forward\'s)', '%', r.stat([100 * share.fraction]),
      `Amdahl's law then allows 2 threads ÷ 1 ≤ ${share.amdahl2.toFixed(2)}×`);
    r.results.threads = { oneMs: o, twoMs: t, ratio, sameBits: same, helperPanelsPerForward: r.stat(helped), loadAverage: load, serialShare: share };
  } finally {
    engine.dispose();
    kernel.dispose();
    shareVectorOps({}); // (the one-thread forms again, for what runs after)
    setShareClock(() => performance.now());
  }
}
