// Runs inside the extension host of a real VS Code (started by `npm run bench`, as the
// integration suite is): opens a d = 512 block (37 MB, live while typing) with its panel, then
// types edits into W1, W2 and b1, and measures how long our code holds the extension host's
// thread at a time (every handler of ours is timed: src/host/busy.ts), the thread's overall event
// loop delay (perf_hooks.monitorEventLoopDelay, which also counts VS Code's own work on the same
// thread), and how long an edit takes to be drawn and where that time goes. Our handlers' own work
// is their wall time less the GC pauses inside them and less the time the OS ran another process on
// the thread's core (bench/host/runClock.ts). Writes the figures to $FFN_BENCH_OUT. A benchmark, not
// a test: nothing here can fail a build.
// With $FFN_BENCH_PROFILE (a folder: `npm run bench -- --only host --profile`), the thread is also
// sampled by V8's profiler (bench/host/profile.ts): the opening and the editing each written as a
// .cpuprofile, and what ran inside our five longest handlers summed up in the figures.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { FfnLensApi } from '../../src/extension';
import { writeModel } from '../../src/model/generate';
import { generationPhase } from './generation';
import { startProfile, type HandlerProfile } from './profile';
import { startRunClock } from './runClock';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until<T>(f: () => T | undefined | false, ms = 120000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await sleep(5);
  }
}

export async function run(): Promise<void> {
  const out = process.env.FFN_BENCH_OUT;
  const ext = vscode.extensions.getExtension<FfnLensApi>('ffn-lens.ffn-lens')!;
  const lens = await ext.activate();
  const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = join(root, 'd512-bench.ffn.json');
  const chunks: string[] = [];
  writeModel({ preset: 'd512', seed: 3 }, (c) => chunks.push(c));
  writeFileSync(file, chunks.join(''));
  const mb = chunks.reduce((n, c) => n + c.length, 0) / 1e6;

  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  // Garbage collection pauses, to tell them apart from our own work inside our handlers (a pause
  // can land in any handler: it collects what VS Code's loading of the document left as well)
  const gc: Array<[number, number]> = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push([e.startTime, e.duration]);
  });
  obs.observe({ entryTypes: ['gc'] });
  // The time the OS gave the thread's core to another process (a busy 2-core machine), told apart
  // the same way: what the thread ran, from the kernel's count (bench/host/runClock.ts)
  const clock = startRunClock();
  const ownWork = (top: ReadonlyArray<readonly [number, string, number]>): Array<{ ms: number; what: string; gcMs: number; withoutGcMs: number; onCoreMs: number | null }> => top.map(([ms, what, start]) => {
    const end = start + ms;
    const pauses = gc.filter(([s, d]) => s < end && s + d > start).map(([s, d]) => [Math.max(start, s), Math.min(end, s + d)]).sort((a, b) => a[0] - b[0]);
    const inGc = pauses.reduce((sum, [a, b]) => sum + (b - a), 0);
    // on a core, outside the GC pauses: our code's own work
    let ran: number | null = clock ? 0 : null;
    let at = start;
    for (const [a, b] of [...pauses, [end, end]]) {
      const r = clock && a > at ? clock.ranMs(at, a) : 0;
      ran = ran === null || r === null ? null : ran + r;
      at = Math.max(at, b);
    }
    const r2 = (x: number): number => Math.round(x * 100) / 100;
    return { ms, what, gcMs: r2(inGc), withoutGcMs: r2(ms - inGc), onCoreMs: ran === null ? null : r2(ran) };
  });
  const profileDir = process.env.FFN_BENCH_PROFILE;
  let profiling = profileDir ? await startProfile() : null;
  const profiles: Record<string, HandlerProfile[]> = {};
  lens.resetBusy();
  const tOpen = performance.now();
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
  const p = lens.panels.show(doc);
  await until(() => p.stats.lastRenderedVersion === doc.version);
  const openMs = performance.now() - tOpen;
  const openMaxBlockMs = h.max / 1e6;
  const openOurs = { ...lens.busy };
  await sleep(500);
  const openTop = ownWork(openOurs.top);
  const openGcMaxMs = gc.reduce((m, [, d]) => Math.max(m, d), 0);
  if (profiling) {
    profiles.open = await profiling.stop(join(profileDir!, 'host-open.cpuprofile'), openOurs.top);
    profiling = await startProfile();
  }

  h.reset();
  lens.resetBusy();
  gc.length = 0;
  const editMs: Record<string, number[]> = { W1: [], W2: [], b1: [] };
  const computedMs: number[] = [];
  let doneAt = new Map<number, number>();
  // where an edit's time goes, seen from this thread: the change event back from the editor, the
  // worker's model message, its done (every stage sent), the panel's "rendered"
  const changedAt = new Map<number, number>();
  const modelAt = new Map<number, number>();
  const split = { toChange: [] as number[], toModel: [] as number[], toDone: [] as number[], toRendered: [] as number[], workerRead: [] as number[], workerForward: [] as number[] };
  const sub = lens.client.onMessage((m) => {
    if (m.type === 'done' && m.doc === doc.uri.toString()) {
      doneAt.set(m.version, performance.now());
      split.workerRead.push(m.ms.parse);
      split.workerForward.push(m.ms.forward);
    }
    if (m.type === 'model' && m.doc === doc.uri.toString()) modelAt.set(m.version, performance.now());
  });
  const subChange = vscode.workspace.onDidChangeTextDocument((e) => {
    if (e.document === doc && e.contentChanges.length) changedAt.set(doc.version, performance.now());
  });
  const text = doc.getText();
  for (let i = 0; i < 12; i++) {
    for (const key of ['W1', 'W2', 'b1'] as const) {
      const cur = doc.getText(new vscode.Range(doc.positionAt(text.indexOf(`"${key}"`)), doc.positionAt(text.indexOf(`"${key}"`) + 4000)));
      const m = [...cur.matchAll(/-?\d+\.\d+/g)][5 + i];
      const at = doc.positionAt(text.indexOf(`"${key}"`) + m.index!);
      const range = new vscode.Range(at, at.translate(0, m[0].length));
      const neu = (Number(m[0]) + 0.25).toFixed(4);
      await sleep(250); // a pause between edits, as typing one number and then another
      const t0 = performance.now();
      await editor.edit((e) => e.replace(range, neu));
      await until(() => p.stats.lastRenderedVersion === doc.version);
      editMs[key].push(performance.now() - t0);
      const t1 = performance.now();
      const d = doneAt.get(doc.version);
      if (d !== undefined) computedMs.push(d - t0);
      const c = changedAt.get(doc.version);
      const mo = modelAt.get(doc.version);
      if (c !== undefined && mo !== undefined && d !== undefined) {
        split.toChange.push(c - t0);
        split.toModel.push(mo - c);
        split.toDone.push(d - mo);
        split.toRendered.push(t1 - d);
      }
      doneAt = new Map();
      changedAt.clear();
      modelAt.clear();
    }
  }
  const editOurs = { ...lens.busy, top: [...lens.busy.top] };
  // the host ↔ worker round trip of a trivial query with nothing else going on, to compare with
  // the change → model message time above (the rest is waiting: for the worker, or for a core)
  const rtt: number[] = [];
  for (let i = 0; i < 20; i++) {
    await sleep(20);
    const q0 = performance.now();
    await lens.client.query(doc.uri.toString(), { kind: 'text-length' });
    rtt.push(performance.now() - q0);
  }
  await sleep(50); // (the run clock's samples past the last handler)
  if (profiling) profiles.edit = await profiling.stop(join(profileDir!, 'host-edit.cpuprofile'), editOurs.top);
  sub.dispose();
  subChange.dispose();
  // each of our longest stretches, and the GC pause time inside it
  const editTop = ownWork(editOurs.top);
  const gcCount = gc.length;
  const gcMax = gc.reduce((m, [, d]) => Math.max(m, d), 0);
  const editMaxBlockMs = h.max / 1e6;
  const editP99BlockMs = h.percentile(99) / 1e6;
  h.disable();
  const med = (xs: number[]): number => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] * 100) / 100;
  const editSplit = { toChange: med(split.toChange), toModel: med(split.toModel), toDone: med(split.toDone), toRendered: med(split.toRendered), workerRead: med(split.workerRead), workerForward: med(split.workerForward), idleQueryRoundTrip: med(rtt), n: split.toChange.length };
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  // generating 32 tokens on a GPT-2-small-shaped checkpoint (bench/host/generation.ts), the GC
  // pauses and the run clock still watched
  const generation = await generationPhase(lens, root, ownWork, () => {
    gc.length = 0;
  }).catch((e: unknown) => ({ error: String((e as Error)?.stack ?? e) }));
  await sleep(50);
  obs.disconnect();
  await clock?.stop();
  const result = { fileMB: mb, openMs, editSplit, openMaxBlockMs, openOurs, openTop, openGcMaxMs, editMs, computedMs, editMaxBlockMs, editP99BlockMs, editOurs, editTop, gcPauses: gcCount, gcMaxMs: gcMax, generation, vscode: vscode.version, ...(profileDir ? { profiles } : {}) };
  console.log(`host bench: ${JSON.stringify(result)}`);
  if (out) writeFileSync(out, JSON.stringify(result, null, 2));
}
