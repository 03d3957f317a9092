// The Node extension host and the web worker extension host side by side (issue 12's speed rows),
// in a real VS Code (code-server + Chromium): the d = 512 block (37 MB, matmul-bound) read and
// computed in full — its name edited: a full read and forward — and digits of W1 retyped — the
// worker's parse and recompute of an edit — as the panel reports them (`done`: the worker's own clock). Run by `npm
// run bench` (section "hosts") once per host; writes its figures to $FFN_BENCH_OUT.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { generateModelText } from '../../src/model/generate';
import { Workbench } from '../../test/e2e/lib/workbench';
import { focusEditor, openLarge, panelFrame, rendered, w1Digit } from './panelProbe';

const FILE = 'd512-hosts.ffn.json';
const EDITS = 8;

describe('the compute worker in this extension host (benchmark)', function () {
  this.timeout(900_000);
  it('opens the d = 512 block and times an edit of W1, in the worker, as the panel reports', async () => {
    const text = generateModelText({ preset: 'd512', seed: 5 });
    const wb = await Workbench.open({ name: 'hosts', files: { [FILE]: text }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 180_000 });
    try {
      // which host runs the extension
      await wb.runCommand('Developer: Show Running Extensions');
      const row = wb.page.locator('.runtime-extensions-editor .monaco-list-row', { hasText: /FFN Lens|ffn-lens\.ffn-lens/ }).first();
      await row.waitFor({ timeout: 30_000 });
      const host = /web worker/i.test(await row.innerText()) ? 'web worker' : 'Node';
      await wb.page.keyboard.press('Control+W');
      await openLarge(wb, FILE);
      await wb.runCommand('FFN Lens: Visualize FFN');
      const frame = await panelFrame(wb, /^FFN Lens: d512/);
      const computeMs = async (): Promise<number> => Number(await frame.evaluate(() => (globalThis as unknown as { document: { body: { dataset: Record<string, string> } } }).document.body.dataset.computeMs));
      // A full read + forward: an edit of the name (outside any row of numbers) reads the file
      // again and computes every stage, in the worker, on its clock. (The first render is not
      // timed: it may be a replay of the run made before the panel subscribed.)
      const lines = text.split('\n');
      const nameLine = lines.findIndex((l) => l.includes('"name"')) + 1;
      const nameCol = lines[nameLine - 1].lastIndexOf('"') + 1;
      const full: number[] = [];
      await focusEditor(wb);
      for (let i = 0; i < 4; i++) {
        const v0 = (await rendered(frame)).v;
        await wb.page.keyboard.press('Control+G');
        await wb.page.keyboard.type(`${nameLine}:${nameCol}`);
        await wb.page.keyboard.press('Enter');
        await wb.page.keyboard.type(String(i));
        for (let k = 0; k < 600 && (await rendered(frame)).v <= v0; k++) await wb.page.waitForTimeout(50);
        if (i > 0) full.push(await computeMs());
        await wb.page.waitForTimeout(400);
      }
      const openMs = [...full].sort((a, b) => a - b)[1];
      const at = w1Digit(text);
      await focusEditor(wb);
      await wb.page.keyboard.press('Control+G');
      await wb.page.keyboard.type(`${at.line}:${at.col}`);
      await wb.page.keyboard.press('Enter');
      const edits: number[] = [];
      for (let i = 0; i < EDITS + 1; i++) {
        const v0 = (await rendered(frame)).v;
        await wb.page.keyboard.press('Shift+ArrowRight');
        await wb.page.keyboard.type(String((i * 3 + 1) % 10));
        await wb.page.keyboard.press('ArrowLeft');
        for (let k = 0; k < 600 && (await rendered(frame)).v <= v0; k++) await wb.page.waitForTimeout(50);
        assert.ok((await rendered(frame)).v > v0, 'the panel drew the edit');
        if (i > 0) edits.push(await computeMs()); // (the first warms up)
        await wb.page.waitForTimeout(400); // (past the debounce: each edit its own run)
      }
      // the kernel's speed inside this host's compute worker (FFN Lens: Measure Compute Speed)
      await wb.runCommand('FFN Lens: Measure Compute Speed');
      const said = await wb.waitForNotification(/GFLOPS/, { timeoutMs: 60_000 });
      const gflops = Number(/at ([\d.]+) GFLOPS/.exec(said)?.[1] ?? NaN);
      const kernel = /\((wasm-simd(?:, fused multiply-add)?|ts)\)/.exec(said)?.[1] ?? '?';
      await wb.screenshot(`hosts-${host === 'Node' ? 'node' : 'web'}`);
      console.log(`  ${host} host: open ${openMs} ms, edits ${edits.join(', ')} ms`);
      if (process.env.FFN_BENCH_OUT) writeFileSync(process.env.FFN_BENCH_OUT, JSON.stringify({ host, openMs, fullMs: full, editMs: edits, fileMB: Math.round(text.length / 1e5) / 10, gflops, kernel }));
    } finally {
      await wb.close();
    }
  });
});
