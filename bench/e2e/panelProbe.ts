// What the benchmarks in a real VS Code (keystroke.ts, open.ts, hosts.ts) read of the panel and do
// in the workbench, kept apart from any test: a benchmark file that imported another's would run
// that one's tests too (mocha registers every describe it loads).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Frame } from 'playwright-core';
import type { Workbench } from '../../test/e2e/lib/workbench';

/** The panel's last render, as the webview stamps it on its body (webview/app.ts). */
export interface Rendered { v: number; at: number; model: number; done: number; busy: number; arrivals: string; trace: number[] }

export async function rendered(frame: Frame): Promise<Rendered> {
  return frame.evaluate(() => {
    const d = (globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body.dataset;
    return { v: Number(d.renderedVersion ?? -1), at: Number(d.renderedAt ?? 0), model: Number(d.modelAt ?? 0), done: Number(d.doneAt ?? 0), busy: Number(d.busyMs ?? 0), arrivals: d.arrivals ?? '', trace: (d.trace ?? '').split(',').filter(Boolean).map(Number) };
  });
}

type Doc = { body: { innerText: string; dataset: Record<string, string> } };

/**
 * When the panel drew its first render after `t0` (Date.now()) whose text names `named` (a render
 * of the model just opened, not the one before it), polling every `everyMs` up to `polls` times; 0
 * if it did not.
 */
export async function drawnAfter(wb: Workbench, frame: Frame, t0: number, named: string, polls: number, everyMs: number): Promise<number> {
  const names = (): Promise<boolean> => frame.evaluate((n) => (globalThis as unknown as { document: Doc }).document.body.innerText.includes(n), named);
  for (let i = 0; i < polls; i++) {
    const r = await rendered(frame);
    if (r.at > t0 && (await names())) return r.at;
    await wb.page.waitForTimeout(everyMs);
  }
  return 0;
}

/** Every stamp the webview put on its body (data-*: model, done, compute and busy times, arrivals). */
export function bodyStamps(frame: Frame): Promise<Record<string, string>> {
  return frame.evaluate(() => ({ ...(globalThis as unknown as { document: Doc }).document.body.dataset }));
}

/** The panel whose title starts with `title`, once it has drawn a render. */
export async function panelFrame(wb: Workbench, title: RegExp): Promise<Frame> {
  for (let i = 0; i < 600; i++) {
    const t = (await wb.webviewTitles()).find((x) => title.test(x));
    if (t) {
      const frame = await wb.webviewFrame(t);
      for (let k = 0; k < 1200 && (await rendered(frame)).v < 0; k++) await wb.page.waitForTimeout(100);
      assert.ok((await rendered(frame)).v >= 0, `the panel ${t} drew the model`);
      return frame;
    }
    await wb.page.waitForTimeout(100);
  }
  throw new Error(`no panel titled ${title} (panels: ${JSON.stringify(await wb.webviewTitles())})`);
}

/** Quick Open with `file` typed and listed: the Enter that opens it is the caller's (a timer starts there). */
export async function quickOpenReady(wb: Workbench, file: string): Promise<void> {
  await wb.focusWorkbench();
  await wb.page.keyboard.press('Control+P');
  await wb.page.locator('.quick-input-widget').waitFor({ state: 'visible' });
  await wb.page.keyboard.type(file);
  await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first().waitFor();
}

/** Opens a file with Quick Open as a user does, answering VS Code's "Open Anyway" for a large one. */
export async function openLarge(wb: Workbench, file: string): Promise<void> {
  await quickOpenReady(wb, file);
  await wb.page.keyboard.press('Enter');
  const tab = wb.tab(file);
  const anyway = wb.page.getByText('Open Anyway').first();
  const editorLines = wb.page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
  for (let i = 0; i < 600 && !((await tab.isVisible().catch(() => false)) && (await editorLines.isVisible().catch(() => false))); i++) {
    if (await anyway.isVisible().catch(() => false)) await anyway.click().catch(() => undefined);
    await wb.page.waitForTimeout(300);
  }
  await editorLines.waitFor({ timeout: 30_000 });
}

/** The line (1-based) and column of the first decimal digit of the third number of W1's first row. */
export function w1Digit(text: string): { line: number; col: number } {
  const lines = text.split('\n');
  const w1 = lines.findIndex((l) => l.includes('"W1"'));
  const rowLine = lines.findIndex((l, i) => i > w1 && /^\s*\[\s*-?\d/.test(l));
  const m = /-?\d+\.(\d)/g;
  m.exec(lines[rowLine]);
  m.exec(lines[rowLine]);
  const hit = m.exec(lines[rowLine])!;
  return { line: rowLine + 1, col: hit.index + hit[0].length };
}

/**
 * Puts the keyboard in the text editor (the first editor group; the panel is beside it). Not by a
 * click on its lines: Playwright clicks the middle of the lines' element, as wide as the longest
 * line, and the browser scrolls the page sideways to it behind the editor's back (the edited line
 * is then drawn out of sight).
 */
export async function focusEditor(wb: Workbench): Promise<void> {
  await wb.runCommand('View: Focus First Editor Group');
}

/** A random-weight checkpoint of a real shape (scripts/make-checkpoint.mjs, BF16) written into the window's folder as `folder`. */
export function writeShapeCheckpoint(wb: Workbench, shape: string, folder: string): void {
  const made = spawnSync(process.execPath, [resolve(__dirname, '..', '..', '..', 'scripts', 'make-checkpoint.mjs'), '--shape', shape, '--dtype', 'bf16', join(wb.folder, folder)], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
}

/** Visualize FFN run on `file` (opened first): the panel's title and frame once it is there, drawn or not. `ranAt`: when the command was run. */
export async function visualizePanel(wb: Workbench, file: string): Promise<{ title: string; frame: Frame; ranAt: number }> {
  await wb.openFile(file);
  const ranAt = Date.now();
  await wb.runCommand('FFN Lens: Visualize FFN');
  for (let i = 0; i < 600; i++) {
    const title = (await wb.webviewTitles()).find((x) => x.startsWith('FFN Lens'));
    if (title) return { title, frame: await wb.webviewFrame(title), ranAt };
    await wb.page.waitForTimeout(100);
  }
  throw new Error(`no FFN Lens panel opened for ${file}`);
}
