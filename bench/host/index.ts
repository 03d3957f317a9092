// Runs inside the extension host of a real VS Code (started by `npm run bench`, as the
// integration suite is): opens a d = 512 block (37 MB, live while typing) with its panel, then
// types edits into W1, W2 and b1, and measures how long our code holds the extension host's
// thread at a time (every handler of ours is timed: src/util/busy.ts), the thread's overall event
// loop delay (perf_hooks.monitorEventLoopDelay, which also counts VS Code's own work on the same
// thread), and how long an edit takes to be drawn. Writes the figures to $FFN_BENCH_OUT. A benchmark, not a test: nothing here can fail a build.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { FfnLensApi } from '../../src/extension';
import { writeModel } from '../../src/model/generate';

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
  const withoutGc = (top: ReadonlyArray<readonly [number, string, number]>): Array<{ ms: number; what: string; gcMs: number; withoutGcMs: number }> => top.map(([ms, what, start]) => {
    const inGc = gc.reduce((sum, [s, d]) => sum + Math.max(0, Math.min(start + ms, s + d) - Math.max(start, s)), 0);
    return { ms, what, gcMs: Math.round(inGc * 100) / 100, withoutGcMs: Math.round((ms - inGc) * 100) / 100 };
  });
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
  const openTop = withoutGc(openOurs.top);
  const openGcMaxMs = gc.reduce((m, [, d]) => Math.max(m, d), 0);

  h.reset();
  lens.resetBusy();
  gc.length = 0;
  const editMs: Record<string, number[]> = { W1: [], W2: [], b1: [] };
  const computedMs: number[] = [];
  let doneAt = new Map<number, number>();
  const sub = lens.client.onMessage((m) => {
    if (m.type === 'done' && m.doc === doc.uri.toString()) doneAt.set(m.version, performance.now());
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
      const d = doneAt.get(doc.version);
      if (d !== undefined) computedMs.push(d - t0);
      doneAt = new Map();
    }
  }
  const editOurs = { ...lens.busy };
  sub.dispose();
  obs.disconnect();
  // each of our longest stretches, and the GC pause time inside it
  const editTop = withoutGc(editOurs.top);
  const gcMax = gc.reduce((m, [, d]) => Math.max(m, d), 0);
  const editMaxBlockMs = h.max / 1e6;
  const editP99BlockMs = h.percentile(99) / 1e6;
  h.disable();
  const result = { fileMB: mb, openMs, openMaxBlockMs, openOurs, openTop, openGcMaxMs, editMs, computedMs, editMaxBlockMs, editP99BlockMs, editOurs, editTop, gcPauses: gc.length, gcMaxMs: gcMax, vscode: vscode.version };
  console.log(`host bench: ${JSON.stringify(result)}`);
  if (out) writeFileSync(out, JSON.stringify(result, null, 2));
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
}
