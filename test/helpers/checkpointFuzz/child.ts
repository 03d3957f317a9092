// The checkpoint fuzzer's worker process (bundled as dist/fuzz-checkpoints.js; started by
// scripts/fuzz-checkpoints.mjs, which watches it for hangs, crashes and memory). It patches
// node:fs, then loads the command line's bundle (dist/cli.js) and runs each case it is given
// through the bundle's run() in this process, reporting one message per case.

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { makeCase, writeCase, writeOutside } from './cases';
import { classifyRun, type Verdict } from './classify';
import { saeSeeds } from './saeSeeds';
import { seeds, type Seed } from './seeds';
import { caseZones, inZones, installWatch, startRecording, stopRecording, type Access } from './watch';

export interface Job {
  readonly repo: string;
  readonly cli: string;
  readonly work: string;
  readonly seed: number;
  readonly cases: readonly number[];
  /** Keep the case's folder as written (a repro): the folder is `work/case`. */
  readonly keep?: boolean;
  /**
   * The machine's memory the product is told it has, MB: it takes half for a run (nodeRunBudget.ts)
   * and refuses an input that needs more. The watcher's memory and time limits are for runs within
   * that budget; run() alone (no main()) would keep runSize's 2 GiB default, more than the watcher allows.
   */
  readonly machineMb: number;
  /** Only the seeds whose names match (a regular expression), e.g. "^(sae|steer)-". */
  readonly seeds?: string;
  /** Only the families of mutation whose names match (cases.ts's FAMILIES), e.g. "^(sae|steer)". */
  readonly families?: string;
}

export interface CaseReport {
  readonly i: number;
  readonly seedName: string;
  readonly mutations: readonly string[];
  readonly argv: readonly string[];
  readonly verdict: Verdict;
  readonly ms: number;
  /** Making and writing the case. */
  readonly writeMs: number;
  /** The process's peak resident memory while the case ran, MB. */
  readonly peakMb: number;
  readonly outside: readonly Access[];
  readonly accesses?: number;
}

type Run = (argv: readonly string[], io: { out(s: string): void; err(s: string): void }) => Promise<number>;
interface Cli { run: Run; prepareProcess(): void }

const stray: string[] = [];
process.on('unhandledRejection', (e) => void stray.push(`unhandled rejection: ${e instanceof Error ? e.stack ?? e.message : String(e)}`));
process.on('uncaughtException', (e) => void stray.push(`uncaught exception: ${e.stack ?? e.message}`));

function resetPeak(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // (not Linux: the peak is the process's since it began)
  }
}

function peakMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Math.round(Number(m[1]) / 1024);
  } catch {
    // (no /proc)
  }
  return Math.round(process.memoryUsage().rss / 2 ** 20);
}

const send = (m: unknown): Promise<void> => new Promise((res) => (process.send ? process.send(m, undefined, {}, () => res()) : (console.log(JSON.stringify(m)), res())));

async function runCase(run: Run, job: Job, i: number, all: readonly Seed[]): Promise<CaseReport> {
  const root = join(job.work, 'case');
  const outside = join(job.work, 'outside');
  const w0 = performance.now();
  const c = makeCase(all, job.seed, i, outside, job.families ? new RegExp(job.families) : null);
  const file = writeCase(c, root, outside);
  const writeMs = performance.now() - w0;
  // (what the case is, before it runs: a case that hangs or kills the process is still described)
  await send({ type: 'start', i, seedName: c.seed, mutations: c.mutations, argv: c.argv });
  const zones = caseZones(file, c.model.checkpoint, c.model.tokenizer, saePaths(c.model.saes));
  const argv = [c.argv[0], file, ...c.argv.slice(1)];
  let stdout = '';
  let stderr = '';
  let code: number | null = null;
  let thrown: string | null = null;
  stray.length = 0;
  resetPeak();
  const t0 = performance.now();
  startRecording();
  try {
    code = await run(argv, { out: (s) => void (stdout += s), err: (s) => void (stderr += s) });
  } catch (e) {
    thrown = e instanceof Error ? `${e.name}: ${e.message} ${(e.stack ?? '').split('\n').slice(1, 3).join(' ').trim()}` : String(e);
  }
  const seen = stopRecording();
  const ms = performance.now() - t0;
  const verdict = classifyRun({ code, stdout, stderr, thrown, stray: [...stray] });
  const out = seen.filter((a) => !inZones(a.real, zones));
  // (an opening says more than a stat: it is shown first)
  const shown = out.find((a) => a.op === 'open' || a.op === 'readFile') ?? out[0];
  const v: Verdict = out.length
    ? { outcome: 'read-outside', flags: ['read-outside', ...verdict.flags], detail: `${shown.op === 'open' || shown.op === 'readFile' ? 'opened' : 'looked-at'} (${shown.op}) ${shown.path} → ${shown.real}; then: ${verdict.detail}` }
    : verdict;
  return { i, seedName: c.seed, mutations: c.mutations, argv: c.argv, verdict: v, ms, writeMs, peakMb: peakMb(), outside: out.slice(0, 5), accesses: seen.length };
}

/** The folders a model file's `saes` names (what the user's file names may be anywhere; what lies in them may not lead out). */
function saePaths(saes: unknown): string[] {
  if (!Array.isArray(saes)) return [];
  return saes.map((s: unknown) => (s && typeof s === 'object' ? (s as { path?: unknown }).path : undefined)).filter((p): p is string => typeof p === 'string');
}

async function main(job: Job): Promise<void> {
  installWatch(); // before the bundle is loaded
  const cli = createRequire(__filename)(job.cli) as Cli;
  // (as the command line's main() does, on a machine of machineMb: its run budget is half that)
  const os = createRequire(__filename)('node:os') as { totalmem(): number };
  const totalmem = os.totalmem;
  os.totalmem = () => job.machineMb * 2 ** 20;
  cli.prepareProcess();
  os.totalmem = totalmem;
  const run = cli.run;
  const every = [...seeds(job.repo), ...saeSeeds(job.repo)];
  const all = job.seeds ? every.filter((s) => new RegExp(job.seeds!).test(s.name)) : every;
  if (all.length === 0) throw new Error(`no seed matches ${job.seeds}`);
  writeOutside(join(job.work, 'outside'));
  for (const i of job.cases) {
    const report = await runCase(run, job, i, all);
    await send({ type: 'done', report });
  }
  if (!job.keep) writeCase({ seed: '', files: new Map(), model: {}, ckpt: '', argv: [], mutations: [] }, join(job.work, 'case'), '');
  await send({ type: 'end' });
}

process.on('message', (m: { type: string; job: Job }) => {
  if (m.type === 'job') {
    void main(m.job).then(
      () => process.disconnect?.(),
      (e: unknown) => {
        process.stderr.write(`fuzz child: ${e instanceof Error ? e.stack : String(e)}\n`);
        process.exit(70);
      },
    );
  }
});
