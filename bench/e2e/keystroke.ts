// Keystroke → pixels in a real VS Code (code-server + Chromium, the e2e harness). A digit of W1 is
// retyped with the keyboard, and timed from the key press to the panel's render of that version
// drawn, 16 times each (after a warm-up edit) in:
//   - a d = 64 block (0.6 MB): the same run's baseline, what the whole path costs when the file is small;
//   - the d = 512 block (37 MB, a live document), as it opens (its own language, ffn-json);
//     these two in turns (8 edits of one, 8 of the other, twice), so both see the same machine;
//   - then the same document switched to VS Code's JSON language (Change Language Mode), so that VS
//     Code's JSON service reads it on every keystroke, as before model files had their own language.
// The clocks: the press is stamped in this (Playwright's) process with Date.now() just before the
// key goes out; the webview stamps the frame drawn with its own Date.now() (webview/app.ts:
// data-rendered-at, in the requestAnimationFrame after the last changed stage was drawn into its
// canvas). Every process on one machine reads the same system clock, so the two need no aligning;
// a round-trip probe checks that each run (the webview's clock against ours, within half the
// shortest round trip) and corrects by the offset should one ever show. The editor's own echo of the
// digit (VS Code's part, same run) is stamped in the workbench page the same way.
// The model message's own way is split by the stamps it carries (host sent the change, worker took
// it, began, posted; host forwarded). With $FFN_BENCH_PAGE_PROFILE (a folder), the workbench page's
// thread (the webview's too: the same process here) is sampled by V8 during the d = 64 edits.
// Run by `npm run bench` (section "keystroke"); writes its figures to $FFN_BENCH_OUT.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { Frame } from 'playwright-core';
import { generateModelText } from '../../src/model/generate';
import { Workbench } from '../../test/e2e/lib/workbench';
import { focusEditor, openLarge, panelFrame, rendered, w1Digit } from './panelProbe';

const BIG = 'd512-keys.ffn.json';
const SMALL = 'd64-keys.ffn.json';
/** Edits per turn (the first of each warms up): two turns per file, 16 timed edits of each. */
const PER_TURN = 9;

/** Per timed edit: keystroke → drawn, and its parts (ms). */
interface Edits { ms: number[]; path: number[][]; toModel: number[]; toDone: number[]; toDrawn: number[]; panelBusy: number[]; echo: number[]; key: number[]; clock: Array<{ offsetMs: number; rttMs: number }> }
/** The parts of the model message's way, in order (see `measure`). */
const PATH = ['key → host', 'host → worker', 'worker waits', 'worker reads', 'worker → host', 'host → webview'];
interface Run { path: number[]; ms: number[]; median: number; min: number; max: number; split: Record<string, number>; echoMs: number; keyMs: number }

const none = (): Edits => ({ ms: [], path: [], toModel: [], toDone: [], toDrawn: [], panelBusy: [], echo: [], key: [], clock: [] });
function merge(a: Edits, b: Edits): Edits {
  return { ms: [...a.ms, ...b.ms], path: [...a.path, ...b.path], toModel: [...a.toModel, ...b.toModel], toDone: [...a.toDone, ...b.toDone], toDrawn: [...a.toDrawn, ...b.toDrawn], panelBusy: [...a.panelBusy, ...b.panelBusy], echo: [...a.echo, ...b.echo], key: [...a.key, ...b.key], clock: [...a.clock, ...b.clock] };
}
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The frame's Date.now() less ours, from the probe with the shortest round trip (NTP's way): the
 * true offset lies within ± (rtt / 2 + 1 ms of the clocks' resolution) of it.
 */
async function clockOffset(frame: Frame): Promise<{ offsetMs: number; rttMs: number }> {
  let best = { offsetMs: 0, rttMs: Infinity };
  for (let i = 0; i < 15; i++) {
    const a = Date.now();
    const theirs = await frame.evaluate(() => Date.now());
    const b = Date.now();
    if (b - a < best.rttMs) best = { offsetMs: theirs - (a + b) / 2, rttMs: b - a };
  }
  return best;
}

/**
 * In the workbench page: the time the key reached the page (keydown) and the time the focused
 * editor's text lines changed (the digit in the editor's DOM, painted in that frame).
 */
async function armEcho(wb: Workbench): Promise<void> {
  await wb.page.evaluate(() => {
    const g = globalThis as unknown as { __echo?: { key: number; text: number; obs?: { disconnect(): void } }; __echoWired?: boolean; document: any; addEventListener: any; MutationObserver: any };
    g.__echo?.obs?.disconnect();
    const echo: { key: number; text: number; obs?: { disconnect(): void } } = { key: 0, text: 0 };
    g.__echo = echo;
    if (!g.__echoWired) {
      g.__echoWired = true;
      g.addEventListener('keydown', () => { if (g.__echo && !g.__echo.key) g.__echo.key = Date.now(); }, true);
    }
    // the text lines of the editor that has the keyboard focus
    const lines = g.document.activeElement?.closest('.monaco-editor')?.querySelector('.view-lines');
    if (!lines) return;
    echo.obs = new g.MutationObserver(() => { if (echo.key && !echo.text) echo.text = Date.now(); });
    (echo.obs as unknown as { observe(n: unknown, o: unknown): void }).observe(lines, { subtree: true, childList: true, characterData: true });
  });
}

async function readEcho(wb: Workbench): Promise<{ key: number; text: number }> {
  return wb.page.evaluate(() => {
    const e = (globalThis as unknown as { __echo: { key: number; text: number } }).__echo;
    return { key: e.key, text: e.text };
  });
}

/** Retypes the digit `edits` times (the first warms up); each timed from the press to the panel's frame with that render. */
async function measure(wb: Workbench, frame: Frame, at: { line: number; col: number }, edits: number, label: string): Promise<Edits> {
  const clock = await clockOffset(frame);
  // Date.now() is one clock for every process here; correct only an offset the probe can tell from 0
  const shift = Math.abs(clock.offsetMs) > clock.rttMs / 2 + 1 ? clock.offsetMs : 0;
  await focusEditor(wb);
  await wb.page.keyboard.press('Control+G');
  await wb.page.keyboard.type(`${at.line}:${at.col}`);
  await wb.page.keyboard.press('Enter');
  await wb.page.waitForTimeout(1000);
  const out = none();
  out.clock.push(clock);
  for (let k = 0; k < edits; k++) {
    const before = await rendered(frame);
    await wb.page.keyboard.press('Shift+ArrowRight');
    await wb.page.waitForTimeout(400); // a quiet spell: the edit runs at once (the debounce's leading edge)
    await armEcho(wb);
    const t0 = Date.now();
    await wb.page.keyboard.type(String((k * 3 + 1) % 10));
    let now = before;
    for (let i = 0; i < 2000 && now.v <= before.v; i++) {
      await wb.page.waitForTimeout(5);
      now = await rendered(frame);
    }
    assert.ok(now.v > before.v, `${label}: edit ${k} was drawn`);
    const e = await readEcho(wb);
    await wb.page.keyboard.press('ArrowLeft');
    if (k === 0) continue; // (the first one warms up)
    out.ms.push(now.at - shift - t0);
    // where the time goes: to the model message arriving in the webview, to the last stage ('done'), to the frame drawn
    out.toModel.push(now.model - shift - t0);
    // the model message's way (stamps: the host sent the change, the worker took it, began its run,
    // posted the model, the host forwarded it): key → host, host → worker, worker's wait, read, worker → host, host → webview
    if (now.trace.length === 5) {
      const [sent, took, began, posted, fwd] = now.trace;
      out.path.push([sent - t0, took - sent, began - took, posted - began, fwd - posted, now.model - shift - fwd]);
    }
    out.toDone.push(now.done - now.model);
    out.toDrawn.push(now.at - now.done);
    out.panelBusy.push(now.busy);
    if (e.text) out.echo.push(e.text - t0);
    if (e.key) out.key.push(e.key - t0);
    if (k === 4) console.log(`  ${label}: arrivals (stage@offset:ms after the model message): ${now.arrivals}`);
  }
  return out;
}

function summary(x: Edits, label: string): Run {
  const s = [...x.ms].sort((a, b) => a - b);
  const worst = x.clock.reduce((w, c) => (Math.abs(c.offsetMs) > Math.abs(w.offsetMs) ? c : w), x.clock[0]);
  const run: Run = {
    ms: x.ms, median: med(x.ms), min: s[0], max: s[s.length - 1],
    path: PATH.map((_, i) => x.path.length ? med(x.path.map((p) => p[i])) : NaN),
    split: { toModel: med(x.toModel), toDone: med(x.toDone), toDrawn: med(x.toDrawn), panelBusy: med(x.panelBusy), clockOffsetMs: worst.offsetMs, clockRttMs: worst.rttMs },
    echoMs: x.echo.length ? med(x.echo) : NaN, keyMs: x.key.length ? med(x.key) : NaN,
  };
  console.log(`keystroke → pixels, ${label}: median ${run.median} ms (min ${run.min}, max ${run.max}) over ${x.ms.length} edits; the digit in the editor ${run.echoMs} ms (the key in the page ${run.keyMs} ms); split: model message ${run.split.toModel} (${PATH.map((n, i) => `${n} ${run.path[i]}`).join(', ')}), stages ${run.split.toDone}, frame ${run.split.toDrawn}, the panel's own work ${run.split.panelBusy} ms; webview clock ${worst.offsetMs} ms from ours (round trip ${worst.rttMs} ms)`);
  return run;
}

/** Makes `file` the active editor (opening it the first time) and waits for the panel to have drawn it since. */
async function showFile(wb: Workbench, file: string, title: RegExp): Promise<Frame> {
  const t = Date.now();
  await openLarge(wb, file);
  await wb.runCommand('FFN Lens: Visualize FFN');
  const frame = await panelFrame(wb, title);
  for (let i = 0; i < 1200 && (await rendered(frame)).at < t; i++) await wb.page.waitForTimeout(100);
  assert.ok((await rendered(frame)).at >= t, `the panel drew ${file}`);
  await wb.page.waitForTimeout(1000);
  return frame;
}

describe('keystroke → pixels (benchmark)', function () {
  this.timeout(900_000);
  it('retypes digits of W1 (d = 64, d = 512, d = 512 as JSON) and times each to the drawn panel', async () => {
    const big = generateModelText({ preset: 'd512', seed: 3 });
    const small = generateModelText({ preset: 'd64', seed: 3 });
    const wb = await Workbench.open({ name: 'keystroke', files: { [BIG]: big, [SMALL]: small }, waitForFile: BIG, viewport: { width: 1600, height: 1000 }, timeoutMs: 180_000 });
    try {
      // d = 64, the same run's baseline (the same path, a small file), and the 37 MB file in turns,
      // twice each, so that both see the same machine. The panel follows the active editor from one
      // file to the other (or a new one opens: either way it is titled after the model it shows).
      const language = async (): Promise<string> => (await wb.page.locator('[id="status.editor.mode"]').first().innerText().catch(() => '?')).trim();
      let smallEdits = none();
      let bigEdits = none();
      let bigLanguage = '';
      let frame: Frame | null = null;
      for (let round = 0; round < 2; round++) {
        frame = await showFile(wb, SMALL, /^FFN Lens: d64/);
        const prof = process.env.FFN_BENCH_PAGE_PROFILE ? await wb.page.context().newCDPSession(wb.page) : null;
        if (prof) { await prof.send('Profiler.enable'); await prof.send('Profiler.setSamplingInterval', { interval: 200 }); await prof.send('Profiler.start'); }
        smallEdits = merge(smallEdits, await measure(wb, frame, w1Digit(small), PER_TURN, 'd = 64'));
        if (prof) writeFileSync(`${process.env.FFN_BENCH_PAGE_PROFILE}/page-d64-${round}.cpuprofile`, JSON.stringify((await prof.send('Profiler.stop')).profile));
        if (round === 0) await wb.screenshot('keystroke-d64');
        frame = await showFile(wb, BIG, /^FFN Lens: d512/);
        bigLanguage = await language();
        bigEdits = merge(bigEdits, await measure(wb, frame, w1Digit(big), PER_TURN, `d = 512 (${bigLanguage})`));
      }
      await wb.screenshot('keystroke-d512');
      const smallRun = summary(smallEdits, 'd = 64');
      const bigRun = summary(bigEdits, `d = 512 (${bigLanguage})`);

      // the same document handed to VS Code's JSON language service (the document is closed and
      // opened again under the new language; the panel follows it)
      let asJson: (Run & { language: string }) | null = null;
      try {
        await focusEditor(wb);
        const t = Date.now();
        await wb.runCommand('Change Language Mode');
        await wb.pickQuickItem('JSON', { filter: 'JSON' });
        for (let i = 0; i < 600 && (await language()) !== 'JSON'; i++) await wb.page.waitForTimeout(100);
        frame = await panelFrame(wb, /^FFN Lens: d512/);
        for (let i = 0; i < 600 && (await rendered(frame)).at < t; i++) await wb.page.waitForTimeout(100);
        await wb.page.waitForTimeout(3000); // the JSON service's first read of the document
        asJson = { ...summary(await measure(wb, frame!, w1Digit(big), 2 * PER_TURN - 1, 'd = 512 (JSON)'), 'd = 512 (JSON)'), language: await language() };
      } catch (e) {
        console.log(`  the JSON variant did not run: ${(e as Error).message.split('\n')[0]}`);
      }
      await wb.screenshot('keystroke-d512-json');
      const out = { fileMB: Math.round(big.length / 1e5) / 10, smallMB: Math.round(small.length / 1e4) / 100, language: bigLanguage, ...bigRun, small: smallRun, asJson };
      if (process.env.FFN_BENCH_OUT) writeFileSync(process.env.FFN_BENCH_OUT, JSON.stringify(out));
    } finally {
      await wb.close();
    }
  });
});
