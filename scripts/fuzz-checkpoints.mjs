#!/usr/bin/env node
// Hostile checkpoints through the command line: each case a small real checkpoint with one to
// three mutations (config.json, safetensors headers, index shard paths, tokenizer.json, symlinks
// out of the folder, the model file's keys, byte flips; an SAE's cfg.json, weights, params.npz and
// links, `saes` and `steer`; test/helpers/checkpointFuzz/), run through
// dist/cli.js's run() in a child process whose node:fs is patched to see every path it touches.
// This process watches the child: a case over its time budget is a hang, a child that dies a
// crash (the batch resumes after it), memory over the limit a memory bomb. Counts per class, a
// catalogue of the faults (grouped by what they say, one repro each) and a JSON report.
// The product in the child is told the machine has --machine-mb of memory (1024: a run may take
// half, 512 MB, as on Node it takes half the machine's): what it accepts must then finish within
// the time and memory limits, and what would need more must be refused before the work.
//
//   node scripts/fuzz-checkpoints.mjs [--cases 100000] [--seed 1] [--from 0] [--budget-ms 5000]
//       [--mem-mb 1536] [--machine-mb 1024] [--batch 2000] [--jobs 1] [--report FILE] [--no-build] [--child-args '--cpu-prof …']
//       [--seeds REGEX] [--families REGEX]   only the seeds, the families of mutation whose names match:
//       --seeds '^(sae|steer)-' --families '^(sae|steer)' for the SAE and steer cases alone
//   node scripts/fuzz-checkpoints.mjs --case I [--seed S]   one case, its folder kept, every detail
// Exit status 1 if any case crashed, hung, took too much memory, read outside its folder, gave an
// internal error, raw library text, an overlong message or bad output.
import { execFileSync, fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, REPO } from './vscode/lib.mjs';

const { flags } = parseArgs(process.argv.slice(2), ['cases', 'seed', 'from', 'budget-ms', 'mem-mb', 'machine-mb', 'batch', 'jobs', 'report', 'case', 'child-args', 'seeds', 'families']);
const SEED = Number(flags.seed ?? 1);
const ONE = flags.case !== undefined ? Number(flags.case) : null;
const FROM = Number(flags.from ?? 0);
const CASES = ONE !== null ? 1 : Number(flags.cases ?? 100000);
const BUDGET = Number(flags['budget-ms'] ?? 5000);
const MEM_MB = Number(flags['mem-mb'] ?? 1536);
const MACHINE_MB = Number(flags['machine-mb'] ?? 1024);
const KILL_MB = MEM_MB + 512; // (past this the child is stopped: the machine is shared)
const BATCH = Number(flags.batch ?? 2000);
const JOBS = ONE !== null ? 1 : Number(flags.jobs ?? 1);
const CHILD_ARGS = flags['child-args'] ? String(flags['child-args']).split(' ') : []; // (e.g. --cpu-prof)
const REPORT = flags.report ?? join(REPO, 'test-results', 'fuzz-checkpoints.json');
const FAULTS = ['crash', 'hang', 'memory', 'read-outside', 'internal-error', 'raw-message', 'long-message', 'bad-output'];
const CLASSES = [...FAULTS, 'clean-error', 'ok'];

if (!flags['no-build']) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'inherit' });
const CHILD = join(REPO, 'dist', 'fuzz-checkpoints.js');
const CLI = join(REPO, 'dist', 'cli.js');
const shm = existsSync('/dev/shm') ? '/dev/shm' : tmpdir(); // (a case is written and read a few times: memory is faster)
const WORK = join(shm, `ffn-fuzz-${process.pid}`);

/** Resident memory of a process, MB (Linux), or 0. */
function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time a process has used (all its threads), ms (Linux), or null. */
function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // (utime + stime in ticks of 10 ms)
  } catch {
    return null;
  }
}

/** Runs cases `list` in child processes, one after another; a child that hangs or dies is replaced and the rest go on. */
async function runJob(list, work, onReport) {
  let next = 0;
  while (next < list.length) {
    const batch = list.slice(next, next + BATCH);
    const child = fork(CHILD, [], { execArgv: ['--max-old-space-size=2048', ...CHILD_ARGS], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
    let current = null;
    let heard = false;
    let started = 0;
    let cpu0 = null;
    let lastCpu = null;
    let idleMs = 0;
    let peak = 0;
    let ended = false;
    let killedFor = null;
    const done = new Set();
    child.on('message', (m) => {
      heard = true;
      if (m.type === 'start') { current = m; started = Date.now(); cpu0 = cpuMs(child.pid); lastCpu = cpu0; idleMs = 0; peak = 0; }
      else if (m.type === 'done') { done.add(m.report.i); current = null; onReport(m.report); }
      else if (m.type === 'end') ended = true;
    });
    const timer = setInterval(() => {
      if (current === null || killedFor) return;
      const rss = rssMb(child.pid);
      peak = Math.max(peak, rss);
      if (rss > KILL_MB) killedFor = { outcome: 'memory', detail: `resident memory ${Math.round(rss)} MB, stopped past ${KILL_MB} MB` };
      else {
        // the budget is CPU time where it can be read (the machine may be shared: wall time is not the case's),
        // and 4 times it of time in which the case used no CPU at all (one that waits on nothing); a case
        // the machine's load keeps waiting for a core still uses some, and is not a hang
        const now = cpu0 === null ? null : cpuMs(child.pid);
        const cpu = now === null ? null : now - cpu0;
        const wall = Date.now() - started;
        if (now !== null && now === lastCpu) idleMs += 50;
        lastCpu = now;
        if ((cpu ?? wall) > BUDGET || (cpu === null ? wall : idleMs) > 4 * BUDGET) killedFor = { outcome: 'hang', detail: `no end after ${cpu ?? '?'} ms of CPU, ${wall} ms (${idleMs} ms of it idle; resident ${Math.round(rss)} MB)` };
      }
      if (killedFor) child.kill('SIGKILL');
    }, 50);
    child.send({ type: 'job', job: { repo: REPO, cli: CLI, work, seed: SEED, cases: batch, keep: ONE !== null, machineMb: MACHINE_MB, ...(flags.seeds ? { seeds: String(flags.seeds) } : {}), ...(flags.families ? { families: String(flags.families) } : {}) } });
    const exit = await new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));
    clearInterval(timer);
    if (!heard) {
      console.error(`the fuzz child ended before its first case (${exit.signal ?? `exit ${exit.code}`}):\n${stderr}`);
      process.exit(2);
    }
    if (!ended) {
      const i = current?.i ?? batch.find((x) => !done.has(x));
      if (i === undefined) { next += batch.length; continue; }
      const oom = /heap out of memory|Allocation failed|allocation failed/i.test(stderr);
      const verdict = killedFor ?? { outcome: oom ? 'memory' : 'crash', detail: `the process ended (${exit.signal ?? `exit ${exit.code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}` };
      onReport({ i, seedName: current?.seedName ?? '?', mutations: current?.mutations ?? null, argv: current?.argv ?? [], verdict: { outcome: verdict.outcome, flags: [verdict.outcome], detail: verdict.detail }, ms: Date.now() - started, writeMs: 0, peakMb: Math.round(peak), outside: [] });
      done.add(i);
    }
    next += batch.filter((x) => done.has(x)).length || batch.length;
  }
}

// ---- the run
const counts = Object.fromEntries(CLASSES.map((c) => [c, 0]));
const failures = [];
const bySeed = {};
let msTotal = 0;
let writeTotal = 0;
const times = [];
let n = 0;
const t0 = Date.now();
let lastShown = t0;
function onReport(rep) {
  n++;
  if (rep.peakMb > MEM_MB && rep.verdict.outcome !== 'memory' && FAULTS.indexOf(rep.verdict.outcome) > FAULTS.indexOf('memory')) {
    rep.verdict = { outcome: 'memory', flags: ['memory', ...rep.verdict.flags], detail: `peak resident memory ${rep.peakMb} MB; then: ${rep.verdict.detail}` };
  }
  counts[rep.verdict.outcome]++;
  msTotal += rep.ms;
  writeTotal += rep.writeMs;
  times.push(rep.ms);
  const s = (bySeed[rep.seedName] ??= { cases: 0, ok: 0, faults: 0 });
  s.cases++;
  if (rep.verdict.outcome === 'ok') s.ok++;
  if (FAULTS.includes(rep.verdict.outcome)) {
    s.faults++;
    failures.push(rep);
    // (said at once: a run stopped before its end still leaves what it found in its log)
    console.log(`  FAULT case ${rep.i} (seed ${SEED}): ${rep.verdict.outcome}: ${String(rep.verdict.detail).slice(0, 240)} [${(rep.mutations ?? ['?']).join(' + ').slice(0, 200)}]`);
  }
  if (ONE !== null) console.log(JSON.stringify(rep, null, 2));
  if (Date.now() - lastShown > 15000) {
    lastShown = Date.now();
    console.log(`  … ${n} cases, ${(n / ((Date.now() - t0) / 1000)).toFixed(0)}/s, faults ${failures.length}${JOBS === 1 ? ` (to go on after a stop: --from ${FROM + n})` : ''}`);
  }
}

const indices = Array.from({ length: CASES }, (_, k) => (ONE ?? FROM) + k);
const lists = Array.from({ length: JOBS }, (_, j) => indices.filter((_, k) => k % JOBS === j));
const works = lists.map((_, j) => join(WORK, String(j)));
console.log(`${CASES} hostile checkpoint cases, seed ${SEED}${FROM ? `, from case ${FROM}` : ''}; budget ${BUDGET} ms, memory ${MEM_MB} MB, the product told of ${MACHINE_MB} MB; ${JOBS} process${JOBS > 1 ? 'es' : ''}; cases under ${WORK}\n`);
try {
  await Promise.all(lists.map((l, j) => runJob(l, works[j], onReport)));
} finally {
  if (ONE === null) rmSync(WORK, { recursive: true, force: true });
}
const secs = (Date.now() - t0) / 1000;

if (ONE !== null) {
  const root = join(works[0], 'case');
  const rep = failures[0] ?? null;
  console.log(`\ncase ${ONE} (seed ${SEED}) is kept in ${root}\nrun it:  node dist/cli.js stages ${join(root, 'model.ffn.json')} --summary`);
  process.exit(rep ? 1 : 0);
}

/** A fault's message with its particulars (numbers, quoted text, paths) made general, to group alike faults. */
const general = (s) => s.replace(/\/[\w./-]+/g, 'PATH').replace(/"[^"]*"/g, '"…"').replace(/\d+(\.\d+)?/g, 'N');
/** How a read got out: a symlink in the folder, a shard path of the index, or the model file's keys. */
const way = (f) => {
  const m = (f.mutations ?? []).join(' + ');
  const link = /symlink to (<outside>\S*|\/etc\S*|\/dev\S*)/.exec(m);
  if (link) return `a symlink in the folder to ${link[1].startsWith('<outside>') ? 'a file outside' : link[1]}`;
  if (/in shard/.test(m)) return 'a shard path of the index';
  return `the mutations ${general(m)}`;
};
const shape = (f) => f.verdict.outcome === 'read-outside' ? `read-outside: ${f.verdict.detail.split(' ')[0]} through ${way(f)}` : f.verdict.outcome === 'hang' || f.verdict.outcome === 'crash' || f.verdict.outcome === 'memory' ? `${f.verdict.outcome} after ${(f.mutations ?? []).map(general).join(' + ')}` : `${f.verdict.outcome}: ${f.verdict.detail.replace(/\/[\w./-]+/g, 'PATH').replace(/"[^"]*"/g, '"…"').replace(/\d+(\.\d+)?/g, 'N').replace(/^.*?:N:N: (error|warning): /, '').slice(0, 110)}`;
const groups = new Map();
for (const f of failures) {
  const k = shape(f);
  const g = groups.get(k) ?? { key: k, count: 0, example: f };
  g.count++;
  if (f.mutations && (!g.example.mutations || f.mutations.length < g.example.mutations.length)) g.example = f;
  groups.set(k, g);
}
const catalogue = [...groups.values()].sort((a, b) => FAULTS.indexOf(a.example.verdict.outcome) - FAULTS.indexOf(b.example.verdict.outcome) || b.count - a.count);

console.log('outcome            cases    share');
for (const c of CLASSES) console.log(`${c.padEnd(16)} ${String(counts[c]).padStart(7)}  ${((100 * counts[c]) / Math.max(1, n)).toFixed(2).padStart(6)}%`);
times.sort((a, b) => a - b);
const q = (p) => (times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0).toFixed(1);
console.log(`\n${n} cases in ${secs.toFixed(0)} s: ${(n / secs).toFixed(1)} cases/s; run() ${(msTotal / Math.max(1, n)).toFixed(1)} ms a case on average (median ${q(0.5)}, 90% ${q(0.9)}, 99% ${q(0.99)}), writing the case ${(writeTotal / Math.max(1, n)).toFixed(1)} ms`);
console.log('\nseed                       cases      ok  faults');
for (const [s, v] of Object.entries(bySeed).sort()) console.log(`${s.padEnd(24)} ${String(v.cases).padStart(7)} ${String(v.ok).padStart(7)} ${String(v.faults).padStart(7)}`);
if (catalogue.length) {
  console.log(`\n${catalogue.length} kinds of fault (repro: node scripts/fuzz-checkpoints.mjs --seed ${SEED}${flags.seeds ? ` --seeds '${flags.seeds}'` : ''}${flags.families ? ` --families '${flags.families}'` : ''} --case I):`);
  const shownPer = {};
  for (const g of catalogue) {
    const o = g.example.verdict.outcome;
    if ((shownPer[o] = (shownPer[o] ?? 0) + 1) > 12) continue; // (the rest are in the report)
    const e = g.example;
    console.log(`  ${String(g.count).padStart(6)}× ${g.key}\n          case ${e.i} (${e.seedName}, ${e.argv.join(' ')}): ${(e.mutations ?? ['?']).join(' + ')}\n          ${e.verdict.detail.slice(0, 240)}`);
  }
}
mkdirSync(join(REPORT, '..'), { recursive: true });
writeFileSync(REPORT, JSON.stringify({
  seed: SEED, from: FROM, cases: n, seconds: secs, counts, budgetMs: BUDGET, memMb: MEM_MB, machineMb: MACHINE_MB,
  catalogue: catalogue.map((g) => ({ kind: g.key, count: g.count, example: g.example })),
  failures: failures.slice(0, 5000).map((f) => ({ i: f.i, seed: f.seedName, argv: f.argv, outcome: f.verdict.outcome, flags: f.verdict.flags, detail: f.verdict.detail, mutations: f.mutations, ms: Math.round(f.ms), peakMb: f.peakMb, outside: f.outside })),
}, null, 1) + '\n');
const bad = FAULTS.reduce((s, c) => s + counts[c], 0);
console.log(`\n${bad === 0 ? 'no fault' : `${bad} faults`}; report in ${REPORT}`);
process.exit(bad === 0 ? 0 : 1);
