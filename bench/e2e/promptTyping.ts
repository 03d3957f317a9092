// Typing a prompt on a GPT-2-small-shaped checkpoint in a real VS Code (code-server + Chromium):
// issue 27's "typing a prompt lags". " basketball" is typed at the end of the model file's prompt
// at 120 ms per key (one key pressed every 120 ms, as a person types), and timed from the last key
// to the panel's frame with the final text's render drawn (its document version: each key is one
// change, so the version the panel showed before plus 11). The webview's renders are logged in its
// own page as they are stamped (data-rendered-version / -at, webview/app.ts), so nothing polls while
// the keys go out; the log also counts the in-between renders drawn after the last key. Then the
// word is deleted again (one change) and the round repeated: a warm-up round and ROUNDS timed ones.
// Run by `npm run bench` (section "typing"); writes its figures to $FFN_BENCH_OUT.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { CDPSession, Frame } from 'playwright-core';
import { GPT2_SMALL_FOLDER, writeGpt2SmallCheckpoint } from '../../test/e2e/lib/gpt2Checkpoint';
import { Workbench } from '../../test/e2e/lib/workbench';
import { focusEditor, panelFrame, rendered } from './panelProbe';

const FILE = 'gpt2-small-typing.ffn.json';
const PROMPT = 'Michael Jordan plays the sport of';
const WORD = ' basketball';
const KEY_MS = 120;
const ROUNDS = 5;

/** One render the webview stamped: its version, when it was drawn, when its model message came, and that message's stamps. */
interface Logged { v: number; at: number; modelAt: number; trace: string; doneAt: number; busyMs: number; layoutMs: number; arrivals: string }

/** In the webview's page: a log of every render stamped on its body from now on. */
async function armLog(frame: Frame): Promise<void> {
  await frame.evaluate(() => {
    const g = globalThis as unknown as { __renders?: { log: Logged[]; obs: { disconnect(): void } }; document: { body: { dataset: Record<string, string | undefined> } }; MutationObserver: new (f: () => void) => { observe(n: unknown, o: unknown): void; disconnect(): void } };
    g.__renders?.obs.disconnect();
    const body = g.document.body;
    const log: Logged[] = [];
    let last = body.dataset.renderedAt;
    const obs = new g.MutationObserver(() => {
      const d = body.dataset;
      if (d.renderedAt === last) return;
      last = d.renderedAt;
      log.push({ v: Number(d.renderedVersion ?? -1), at: Number(d.renderedAt ?? 0), modelAt: Number(d.modelAt ?? 0), trace: d.trace ?? '', doneAt: Number(d.doneAt ?? 0), busyMs: Number(d.busyMs ?? 0), layoutMs: Number(d.layoutMs ?? 0), arrivals: d.arrivals ?? '' });
      d.layoutMs = '0';
    });
    obs.observe(body, { attributes: true, attributeFilter: ['data-rendered-at'] });
    g.__renders = { log, obs };
  });
}

/** In the workbench page: when the editor with the keyboard first shows the whole word typed (VS Code's own part). */
async function armEcho(wb: Workbench, word: string): Promise<void> {
  await wb.page.evaluate((w) => {
    const g = globalThis as unknown as { __typed?: { at: number; obs?: { disconnect(): void } }; document: any; MutationObserver: any };
    g.__typed?.obs?.disconnect();
    const typed: { at: number; obs?: { disconnect(): void } } = { at: 0 };
    g.__typed = typed;
    const lines = g.document.activeElement?.closest('.monaco-editor')?.querySelector('.view-lines');
    if (!lines) return;
    typed.obs = new g.MutationObserver(() => {
      if (!typed.at && String(lines.textContent).replace(/\u00a0/g, ' ').includes(w)) typed.at = Date.now();
    });
    (typed.obs as unknown as { observe(n: unknown, o: unknown): void }).observe(lines, { subtree: true, childList: true, characterData: true });
  }, word);
}

async function readEcho(wb: Workbench): Promise<number> {
  return wb.page.evaluate(() => (globalThis as unknown as { __typed?: { at: number } }).__typed?.at ?? 0);
}

async function readLog(frame: Frame): Promise<Logged[]> {
  return frame.evaluate(() => [...(globalThis as unknown as { __renders: { log: Logged[] } }).__renders.log]);
}

/** Waits until the panel has drawn version `v` (true) or `ms` passed (false), without a busy poll. */
async function drawn(wb: Workbench, frame: Frame, v: number, ms: number): Promise<boolean> {
  for (let t = Date.now(); Date.now() - t < ms;) {
    if ((await rendered(frame)).v >= v) return true;
    await wb.page.waitForTimeout(50);
  }
  return false;
}

/**
 * One round. `path`: the final model message's way from the last key, by the stamps it carries
 * (the host sent the change, the worker took it, began its run, posted the model; the host
 * forwarded it): key → host, host → worker, the worker's wait, its read, worker → host, host →
 * webview; then the stages to the frame drawn.
 */
interface Round { lastKeyAt: number; lastKeyToFinalMs: number; inBetweenAfterLastKey: number; drawnWhileTyping: number; lastKeyToModelMs: number; typedMs: number; versions: number[]; echoMs: number; path: number[]; panel: number[] }

/** Types WORD at the cursor, KEY_MS per key, then times the final render; deletes it again. */
async function round(wb: Workbench, frame: Frame, v0: number, shot: boolean): Promise<Round> {
  await armLog(frame);
  await armEcho(wb, `${PROMPT}${WORD}"`);
  const final = v0 + WORD.length;
  const t0 = Date.now();
  let last = 0;
  for (let i = 0; i < WORD.length; i++) {
    const due = t0 + i * KEY_MS;
    if (Date.now() < due) await wb.page.waitForTimeout(due - Date.now());
    last = Date.now();
    await wb.page.keyboard.press(WORD[i] === ' ' ? 'Space' : WORD[i]);
  }
  assert.ok(await drawn(wb, frame, final, 30_000), `the panel drew the typed prompt (version ${final})`);
  await wb.page.waitForTimeout(1500); // (anything still coming after the final render is logged too)
  const log = await readLog(frame);
  if (shot) await wb.screenshot('typing-gpt2-small');
  const at = log.find((r) => r.v === final);
  assert.ok(at, `the final version ${final} is among the renders: ${log.map((r) => r.v).join(',')}`);
  assert.equal(log[log.length - 1].v, final, 'nothing older was drawn after the final render');
  const echo = await readEcho(wb);
  const t = at.trace.split(',').filter(Boolean).map(Number);
  const out: Round = {
    lastKeyAt: last,
    echoMs: echo ? echo - last : NaN,
    path: t.length === 5 ? [t[0] - last, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], at.modelAt - t[4], at.at - at.modelAt] : [],
    lastKeyToFinalMs: at.at - last,
    inBetweenAfterLastKey: log.filter((r) => r.at > last && r.v < final).length,
    drawnWhileTyping: log.filter((r) => r.at <= last).length,
    lastKeyToModelMs: at.modelAt - last,
    typedMs: last - t0,
    versions: log.map((r) => r.v - v0),
    panel: [at.layoutMs, lastArrival(at.arrivals), Math.round(at.busyMs), at.doneAt - at.modelAt, at.at - at.doneAt],
  };
  // the word deleted again (selected, one change), and the panel back at rest
  for (let i = 0; i < WORD.length; i++) await wb.page.keyboard.press('Shift+ArrowLeft');
  await wb.page.keyboard.press('Backspace');
  assert.ok(await drawn(wb, frame, final + 1, 30_000), 'the panel drew the prompt as it was');
  await wb.page.waitForTimeout(1500);
  return out;
}

/** Starts Chromium's tracing through the page's DevTools session (a persistent context has no Browser to trace). */
async function startTrace(wb: Workbench): Promise<CDPSession> {
  const cdp = await wb.context.newCDPSession(wb.page);
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'v8.execute', 'blink.user_timing', 'ipc', 'mojom', 'disabled-by-default-devtools.timeline.frame'] },
  });
  return cdp;
}

/** Ends the trace and writes it to `file`, with the round's clock (Date.now() of the last key and of the final frame) beside it. */
async function stopTrace(cdp: CDPSession, file: string, r: Round): Promise<void> {
  const done = new Promise<string>((res) => cdp.once('Tracing.tracingComplete', (e) => res((e as { stream: string }).stream)));
  await cdp.send('Tracing.end');
  const stream = await done;
  const parts: string[] = [];
  for (;;) {
    const c = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
    parts.push(c.base64Encoded ? Buffer.from(c.data, 'base64').toString('utf8') : c.data);
    if (c.eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  writeFileSync(file, parts.join(''));
  writeFileSync(`${file}.round.json`, JSON.stringify(r));
}

/** When the last stage piece came, in ms after the model message (the webview's `arrivals`: `id@offset:ms …`). */
const lastArrival = (arrivals: string): number => Math.max(0, ...arrivals.split(' ').filter(Boolean).map((a) => Number(a.slice(a.lastIndexOf(':') + 1))));

/** The panel's own part of `stages → drawn`: the cards laid out anew, the last stage in, the time handling the stages, the worker's done, the frame after it. */
const PANEL = ['layout built', 'last stage in', 'stages handled', 'done in', 'done → frame'];

const PATH = ['key → host', 'host → worker', 'worker waits', 'worker reads (and computes, a run held in a burst)', 'worker → host', 'host → webview', 'stages → drawn'];
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('typing a prompt on a GPT-2-small-shaped checkpoint (benchmark)', function () {
  this.timeout(900_000);
  it(`types "${WORD}" at ${KEY_MS} ms per key and times the last key → the final text's render drawn`, async () => {
    const text = `{\n  "version": 1,\n  "name": "GPT-2 small (typing)",\n  "checkpoint": "./${GPT2_SMALL_FOLDER}",\n  "prompt": "${PROMPT}"\n}\n`;
    const wb = await Workbench.open({ name: 'typing', files: { [FILE]: text }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 180_000 });
    try {
      writeGpt2SmallCheckpoint(wb.folder);
      await wb.openFile(FILE);
      await wb.runCommand('FFN Lens: Visualize FFN');
      const frame = await panelFrame(wb, /^FFN Lens: GPT-2 small \(typing\)/);
      await wb.page.waitForTimeout(2000);
      // the cursor before the prompt's closing quote (line 5)
      const line = text.split('\n')[4];
      await focusEditor(wb);
      await wb.page.keyboard.press('Control+G');
      await wb.page.keyboard.type(`5:${line.lastIndexOf('"') + 1}`);
      await wb.page.keyboard.press('Enter');
      await wb.page.waitForTimeout(1000);
      const rounds: Round[] = [];
      // ($FFN_TYPING_TRACE: Chromium's trace of the last round, every renderer's threads, for where the time goes)
      const tracing = process.env.FFN_TYPING_TRACE;
      for (let k = 0; k <= ROUNDS; k++) {
        const v0 = (await rendered(frame)).v;
        const cdp = tracing && k === ROUNDS ? await startTrace(wb) : null;
        const r = await round(wb, frame, v0, k === 0);
        if (cdp && tracing) await stopTrace(cdp, tracing, r);
        console.log(`  round ${k}${k === 0 ? ' (warm-up)' : ''}: last key → final render ${r.lastKeyToFinalMs} ms (its model message at ${r.lastKeyToModelMs} ms; ${PATH.map((n, i) => `${n} ${r.path[i]}`).join(', ')}); the word in the editor ${r.echoMs} ms; panel ${PANEL.map((n, i) => `${n} ${r.panel[i]}`).join(', ')}; in-between renders after the last key ${r.inBetweenAfterLastKey}, while typing ${r.drawnWhileTyping}; versions drawn ${r.versions.join(',')}`);
        if (k > 0) rounds.push(r);
      }
      const ms = rounds.map((r) => r.lastKeyToFinalMs);
      const out = {
        ms, median: med(ms), min: Math.min(...ms), max: Math.max(...ms),
        toModelMs: med(rounds.map((r) => r.lastKeyToModelMs)),
        echoMs: med(rounds.map((r) => r.echoMs)),
        path: Object.fromEntries(PATH.map((n, i) => [n, med(rounds.map((r) => r.path[i] ?? NaN))])),
        panel: Object.fromEntries(PANEL.map((n, i) => [n, med(rounds.map((r) => r.panel[i] ?? NaN))])),
        inBetweenAfterLastKey: rounds.map((r) => r.inBetweenAfterLastKey),
        drawnWhileTyping: rounds.map((r) => r.drawnWhileTyping),
        keyMs: KEY_MS, word: WORD, prompt: PROMPT,
      };
      console.log(`typing → final render: median ${out.median} ms (min ${out.min}, max ${out.max}) over ${ms.length} rounds`);
      if (process.env.FFN_BENCH_OUT) writeFileSync(process.env.FFN_BENCH_OUT, JSON.stringify(out));
    } finally {
      await wb.close();
    }
  });
});
