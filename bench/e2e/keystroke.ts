// Keystroke → pixels in a real VS Code (code-server + Chromium, the e2e harness): the d = 512 block
// (37 MB, a live document) open with its panel; a digit of W1 retyped with the keyboard, and the
// time from the key press to the panel's render of that version drawn. Both ends read the same
// machine's wall clock (Date.now(): Playwright's process before the press, the webview when the
// frame with the new heatmaps is drawn), so no clocks need aligning beyond that. Run by `npm run
// bench` (section "keystroke"); writes its figures to $FFN_BENCH_OUT.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { generateModelText } from '../../src/model/generate';
import { Workbench } from '../../test/e2e/lib/workbench';

const FILE = 'd512-keys.ffn.json';

describe('keystroke → pixels (benchmark)', function () {
  this.timeout(600_000);
  it('retypes digits of W1 in the d = 512 block and times each to the drawn panel', async () => {
    const text = generateModelText({ preset: 'd512', seed: 3 });
    const wb = await Workbench.open({ name: 'keystroke', files: { [FILE]: text }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 180_000 });
    try {
      const title = /FFN Lens: /;
      // (VS Code asks before showing a file this large: "Open Anyway", as a user would)
      await wb.focusWorkbench();
      await wb.page.keyboard.press('Control+P');
      await wb.page.locator('.quick-input-widget').waitFor({ state: 'visible' });
      await wb.page.keyboard.type(FILE);
      await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: FILE }).first().waitFor();
      await wb.page.keyboard.press('Enter');
      const editorLines = wb.page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
      const anyway = wb.page.getByText('Open Anyway').first();
      for (let i = 0; i < 600 && !(await editorLines.isVisible().catch(() => false)); i++) {
        if (await anyway.isVisible().catch(() => false)) await anyway.click().catch(() => undefined);
        await wb.page.waitForTimeout(300);
      }
      await editorLines.waitFor({ timeout: 30_000 });
      await wb.runCommand('FFN Lens: Visualize FFN');
      const titles = await (async () => { for (let i = 0; i < 600; i++) { const t = await wb.webviewTitles(); if (t.some((x) => title.test(x))) return t; await wb.page.waitForTimeout(100); } return []; })();
      const frame = await wb.webviewFrame(titles.find((x) => title.test(x)));
      const rendered = async (): Promise<{ v: number; at: number; model: number; done: number; busy: number; arrivals: string }> => frame.evaluate(() => {
        const d = (globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body.dataset;
        return { v: Number(d.renderedVersion ?? -1), at: Number(d.renderedAt ?? 0), model: Number(d.modelAt ?? 0), done: Number(d.doneAt ?? 0), busy: Number(d.busyMs ?? 0), arrivals: d.arrivals ?? '' };
      });
      for (let i = 0; i < 1200 && (await rendered()).v < 0; i++) await wb.page.waitForTimeout(100);
      assert.ok((await rendered()).v >= 0, 'the panel drew the model');
      // the first W1 row: put the cursor on a digit of its third number
      const lines = text.split('\n');
      const w1 = lines.findIndex((l) => l.includes('"W1"'));
      const rowLine = lines.findIndex((l, i) => i > w1 && /^\s*\[\s*-?\d/.test(l));
      const m = /-?\d+\.(\d)/g;
      m.exec(lines[rowLine]); m.exec(lines[rowLine]);
      const hit = m.exec(lines[rowLine])!;
      const col = hit.index + hit[0].length; // the first decimal digit
      await wb.page.locator('.editor-group-container .view-lines').first().click();
      await wb.page.keyboard.press('Control+G');
      await wb.page.keyboard.type(`${rowLine + 1}:${col}`);
      await wb.page.keyboard.press('Enter');
      await wb.page.waitForTimeout(1000);
      const times: number[] = [];
      // where the time goes: to the model message arriving in the webview, to the last stage ('done'), to the frame drawn
      const split = { toModel: [] as number[], toDone: [] as number[], toDrawn: [] as number[], panelBusy: [] as number[] };
      for (let k = 0; k < 16; k++) {
        const before = await rendered();
        await wb.page.keyboard.press('Shift+ArrowRight');
        await wb.page.waitForTimeout(400); // a quiet spell: the edit runs at once (the debounce's leading edge)
        const t0 = Date.now();
        await wb.page.keyboard.type(String((k * 3 + 1) % 10));
        let now = before;
        for (let i = 0; i < 400 && now.v <= before.v; i++) {
          await wb.page.waitForTimeout(5);
          now = await rendered();
        }
        assert.ok(now.v > before.v, `edit ${k} was drawn`);
        await wb.page.keyboard.press('ArrowLeft');
        if (k > 0) { // (the first one warms up)
          times.push(now.at - t0);
          split.toModel.push(now.model - t0);
          split.toDone.push(now.done - now.model);
          split.toDrawn.push(now.at - now.done);
          split.panelBusy.push(now.busy);
          if (k === 8) console.log(`  arrivals (stage@offset:ms after the model message): ${now.arrivals}`);
        }
      }
      const sorted = [...times].sort((a, b) => a - b);
      const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const out = { fileMB: Math.round(text.length / 1e5) / 10, ms: times, median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1], split: { toModel: med(split.toModel), toDone: med(split.toDone), toDrawn: med(split.toDrawn), panelBusy: med(split.panelBusy) } };
      console.log(`  split (medians): keystroke → the model message in the webview ${out.split.toModel} ms, → the last stage ${out.split.toDone} ms, → drawn ${out.split.toDrawn} ms; the panel's own work on the stages ${out.split.panelBusy} ms`);
      console.log(`keystroke → pixels, d = 512: median ${out.median} ms (min ${out.min}, max ${out.max}) over ${times.length} edits`);
      if (process.env.FFN_BENCH_OUT) writeFileSync(process.env.FFN_BENCH_OUT, JSON.stringify(out));
    } finally {
      await wb.close();
    }
  });
});
