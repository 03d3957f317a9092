// Typing into VS Code's text editor from a test, each step waiting for what it types into, so that
// a loaded machine (where the workbench answers a key seconds late) cannot send keys elsewhere:
//
//   await edit(wb, { file: 'a.ffn.json', line: 5, col: 33, select: 3, text: '300' });
//     1. the editor of a.ffn.json has the keyboard (its tab clicked; the text clicked if need be)
//     2. Go to Line (Ctrl+G): typed only once the quick input is open and has the keyboard, the
//        value checked, Enter, then the status bar reads "Ln 5, Col 33" with the editor focused
//     3. Shift+→ three times: the status bar says "(3 selected)"
//     4. the text typed; done when line 5 reads as it should (and, with `panel`, once the panel
//        has drawn a newer document version than before the keys)
//   await savedText(wb, 'a.ffn.json', expected)   // the file on disk once saved (auto-save)
//   await renderedVersion(view)                    // the document version the panel shows
//
// The editor's text is read from its DOM (the rendered lines), since the page has no handle on
// the document; the document's version is the one the FFN Lens panel says it drew.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { until, WAIT_MS } from './until';
import type { Workbench } from './workbench';

/** Where the keyboard is, and what the editor and the quick input show. */
interface KeysState {
  /** the keyboard is in the text editor of the active editor group */
  editorFocused: boolean;
  /** the active editor group's active tab */
  activeTab: string;
  quickInput: 'hidden' | 'shown' | 'focused';
  quickValue: string;
  /** the status bar's "Ln 5, Col 33 (3 selected)" */
  status: string;
}

function keysState(page: Page): Promise<KeysState> {
  return page.evaluate(() => {
    const d = (globalThis as any).document;
    const a = d.activeElement;
    const group = d.querySelector('.editor-group-container.active');
    const editor = a?.closest?.('.monaco-editor');
    const widget = d.querySelector('.quick-input-widget');
    const input = widget?.querySelector('input.input');
    const shown = !!widget && widget.style.display !== 'none' && widget.offsetParent !== null;
    return {
      editorFocused: d.hasFocus() && !!editor && !!group && group.contains(editor) && !editor.closest('.quick-input-widget'),
      activeTab: (group?.querySelector('.tab.active .label-name')?.textContent ?? '').trim(),
      quickInput: !shown ? 'hidden' : a && a === input ? 'focused' : 'shown',
      quickValue: input?.value ?? '',
      status: (d.getElementById('status.editor.selection')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
    } as const;
  });
}

const describeState = (page: Page) => async (): Promise<string> => `the page: ${JSON.stringify(await keysState(page))}`;

/**
 * Gives the keyboard to the text editor (of `file`: its tab is clicked first), waiting until it has
 * it; if it does not come, clicks into the editor's text (which moves the cursor: go to a line after).
 */
export async function focusEditor(wb: Workbench, file?: string, timeoutMs = WAIT_MS): Promise<void> {
  const page = wb.page;
  if (file) await wb.tab(file).click();
  const ready = (s: KeysState): boolean => s.editorFocused && s.quickInput === 'hidden' && (!file || s.activeTab === file);
  const start = Date.now();
  let clicked = 0;
  await until(`the keyboard in the text editor${file ? ` of ${file}` : ''}`, async () => {
    const s = await keysState(page);
    if (ready(s)) return true;
    // a few seconds without it: click the text (again every few seconds)
    if (Date.now() - start > 3_000 * (clicked + 1)) {
      clicked++;
      if (s.quickInput !== 'hidden') await page.keyboard.press('Escape');
      if (file && s.activeTab !== file) await wb.tab(file).click();
      else await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click({ position: { x: 5, y: 5 } });
    }
    return false;
  }, { timeoutMs, describe: describeState(page) });
}

/**
 * Go to Line (Ctrl+G) in the focused text editor: the position is typed only into the open quick
 * input that has the keyboard (Ctrl+G again if it never opens), checked there, and accepted; returns
 * once the editor has the keyboard back with its cursor there (the status bar's "Ln, Col").
 */
export async function goToLine(wb: Workbench, line: number, col?: number, timeoutMs = WAIT_MS): Promise<void> {
  const page = wb.page;
  const target = col === undefined ? `${line}` : `${line}:${col}`;
  await focusEditor(wb, undefined, timeoutMs);
  await page.keyboard.press('Control+G');
  let pressed = Date.now();
  await until('the Go to Line input open with the keyboard', async () => {
    const s = await keysState(page);
    if (s.quickInput === 'focused' && s.quickValue.startsWith(':')) return true;
    if (s.quickInput === 'hidden' && s.editorFocused && Date.now() - pressed > 5_000) {
      await page.keyboard.press('Control+G'); // (no key reached it: the text editor still has the keyboard, unchanged)
      pressed = Date.now();
    }
    return false;
  }, { timeoutMs, describe: describeState(page) });
  const input = page.locator('.quick-input-widget input.input').first();
  await until(`":${target}" in the Go to Line input`, async () => {
    const s = await keysState(page);
    if (s.quickInput !== 'focused') throw new Error(`the Go to Line input lost the keyboard (${JSON.stringify(s)})`);
    if (s.quickValue === `:${target}`) return true;
    await input.fill(`:${target}`);
    return false;
  }, { timeoutMs, describe: describeState(page) });
  await page.keyboard.press('Enter');
  const want = new RegExp(`^Ln ${line}, Col ${col ?? '\\d+'}\\b`);
  await until(`the cursor at ${target} in the text editor`, async () => {
    const s = await keysState(page);
    return s.quickInput === 'hidden' && s.editorFocused && want.test(s.status);
  }, { timeoutMs, describe: describeState(page) });
}

/**
 * The text of line `line` (1-based) of the active group's text editor as drawn (spaces as spaces),
 * or null while that line is not drawn (out of view).
 */
export function lineText(page: Page, line: number): Promise<string | null> {
  return page.evaluate((n: number) => {
    const d = (globalThis as any).document;
    const editor = d.querySelector('.editor-group-container.active .monaco-editor');
    if (!editor) return null;
    // the gutter's number and the text line sit at the same `top`
    for (const num of editor.querySelectorAll('.margin-view-overlays > div > .line-numbers')) {
      if ((num.textContent ?? '').trim() !== String(n)) continue;
      const top = num.parentElement.style.top;
      for (const v of editor.querySelectorAll('.view-lines > .view-line')) {
        if (v.style.top === top) return (v.textContent ?? '').replace(/\u00a0/g, ' ');
      }
    }
    return null;
  }, line);
}

/** The document version the FFN Lens panel last drew (its body's data-rendered-version), or -1. */
export async function renderedVersion(view: FrameLocator | Frame): Promise<number> {
  const v = await view.locator('body').getAttribute('data-rendered-version').catch(() => null);
  return v === null ? -1 : Number(v);
}

/** Presses Shift+→ `n` times, then waits until the status bar says `n` characters are selected. */
export async function selectRight(wb: Workbench, n: number, timeoutMs = WAIT_MS): Promise<void> {
  for (let i = 0; i < n; i++) await wb.page.keyboard.press('Shift+ArrowRight');
  await until(`${n} characters selected`, async () => {
    const s = await keysState(wb.page);
    return s.editorFocused && s.status.includes(`(${n} selected)`);
  }, { timeoutMs, describe: describeState(wb.page) });
}

export interface TypeOptions {
  /** the line (1-based) the keys change, and what it reads after them */
  line: number;
  expect: string;
  /** paste-like (keyboard.insertText: no auto-closing of brackets and quotes) instead of key by key */
  insert?: boolean;
  /** a panel of this document: also wait until it has drawn a newer version than before the keys */
  panel?: FrameLocator;
  timeoutMs?: number;
}

/**
 * Types `text` into the text editor, which must have the keyboard, and waits until line `line`
 * reads `expect` (and the panel drew a newer version). Returns the version the panel drew (or -1).
 */
export async function typeText(wb: Workbench, text: string, o: TypeOptions): Promise<number> {
  const page = wb.page;
  const timeoutMs = o.timeoutMs ?? WAIT_MS;
  const s = await keysState(page);
  if (!s.editorFocused || s.quickInput !== 'hidden') throw new Error(`typing "${text}": the text editor does not have the keyboard (${JSON.stringify(s)})`);
  const before = o.panel ? await renderedVersion(o.panel) : -1;
  if (o.insert) await page.keyboard.insertText(text);
  else await page.keyboard.type(text);
  return landed(wb, `typing ${JSON.stringify(text)}`, before, { ...o, timeoutMs });
}

/** After keys: waits until the line reads as expected, then for a newer version drawn in the panel. */
async function landed(wb: Workbench, what: string, before: number, o: Omit<TypeOptions, 'insert'>): Promise<number> {
  const page = wb.page;
  await until(`line ${o.line} to read ${JSON.stringify(o.expect)} after ${what}`, async () => (await lineText(page, o.line)) === o.expect, {
    timeoutMs: o.timeoutMs, describe: async () => `it reads ${JSON.stringify(await lineText(page, o.line))}; ${await describeState(page)()}`,
  });
  if (!o.panel) return -1;
  const panel = o.panel;
  return until(`the panel to draw a version after ${before}`, async () => {
    const v = await renderedVersion(panel);
    return v > before ? v : null;
  }, { timeoutMs: o.timeoutMs });
}

export interface Edit {
  /** the model file: its editor is given the keyboard first (default: the active one) */
  file?: string;
  line: number;
  /** 1-based column where the text goes (default: the end of the line) */
  col?: number;
  /** how many characters from there the text replaces (default 0) */
  select?: number;
  text: string;
  insert?: boolean;
  panel?: FrameLocator;
  timeoutMs?: number;
}

/**
 * Replaces `select` characters at line:col with `text` as a user does (Go to Line, Shift+→, typing),
 * each step checked. Returns the line's new text and the version the panel drew (-1 without panel).
 */
export async function edit(wb: Workbench, e: Edit): Promise<{ line: string; version: number }> {
  const timeoutMs = e.timeoutMs ?? WAIT_MS;
  await focusEditor(wb, e.file, timeoutMs);
  await goToLine(wb, e.line, e.col, timeoutMs);
  const old = await until(`line ${e.line} drawn`, () => lineText(wb.page, e.line), { timeoutMs });
  const col = e.col ?? old.length + 1;
  const select = e.select ?? 0;
  if (col - 1 + select > old.length) throw new Error(`line ${e.line} has ${old.length} characters: cannot replace ${select} at column ${col} (${JSON.stringify(old)})`);
  if (e.col === undefined) { // (to the end of the line)
    await wb.page.keyboard.press('End');
    await until(`the cursor at the end of line ${e.line}`, async () => new RegExp(`^Ln ${e.line}, Col ${col}\\b`).test((await keysState(wb.page)).status), { timeoutMs, describe: describeState(wb.page) });
  }
  if (select) await selectRight(wb, select, timeoutMs);
  const expect = old.slice(0, col - 1) + e.text + old.slice(col - 1 + select);
  const version = await typeText(wb, e.text, { line: e.line, expect, insert: e.insert, panel: e.panel, timeoutMs });
  return { line: expect, version };
}

/**
 * Presses `keys` (e.g. Control+Z) in the text editor of `file` and waits until line `line` reads
 * `expect` (and the panel drew a newer version). Returns the version the panel drew (or -1).
 */
export async function pressInEditor(wb: Workbench, keys: string, o: { file?: string } & Omit<TypeOptions, 'insert'>): Promise<number> {
  await focusEditor(wb, o.file, o.timeoutMs);
  const before = o.panel ? await renderedVersion(o.panel) : -1;
  await wb.page.keyboard.press(keys);
  return landed(wb, keys, before, o);
}

/**
 * The text of `file` (in the window's folder) on disk once its editor has nothing unsaved (the web
 * workbench saves a second after the last key), and, with `expected`, once it is that text: the
 * text of the document's latest version, which a test can then compare an export or a panel with.
 */
export async function savedText(wb: Workbench, file: string, expected?: string, timeoutMs = WAIT_MS): Promise<string> {
  const path = join(wb.folder, file);
  const dirty = wb.page.locator('.tabs-container .tab.dirty', { has: wb.page.locator('.label-name', { hasText: file }) });
  let text = '';
  let unsaved = true;
  await until(`${file} saved${expected === undefined ? '' : ' with the text typed'}`, async () => {
    unsaved = (await dirty.count()) > 0;
    if (unsaved) return false;
    text = readFileSync(path, 'utf8');
    return expected === undefined || text === expected;
  }, { timeoutMs, describe: () => (unsaved ? 'its tab still says unsaved' : `on disk it differs: ${JSON.stringify(firstDifference(text, expected ?? text))}`) });
  return text;
}

/** The first line where `a` and `b` differ, for a message. */
function firstDifference(a: string, b: string): { line: number; disk: string; expected: string } | null {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return { line: i + 1, disk: x[i] ?? '', expected: y[i] ?? '' };
  return null;
}
