// Drive a REAL VS Code workbench (code-server 4.100.3 = VS Code 1.100.3, started by
// scripts/run-e2e.mjs) with playwright-core and Debian's chromium.
//
//   const wb = await Workbench.open({ name: 'smoke' });      // extension loaded from source
//   await wb.openFile('identity-weights.ffn.json');
//   await wb.runCommand('FFN Lens: Visualize FFN');
//   const view = await wb.webview('FFN Lens');                // FrameLocator inside the panel
//   const px = await wb.readCanvas(view, 'canvas');           // RGBA pixels
//   await wb.screenshot('panel');                             // test-results/e2e/panel.png
//   await wb.close();
//
// The run-e2e.mjs runner passes the server through environment variables (see e2eEnv()).
// Compiled by `node esbuild.mjs --tests` to out/test/e2e/lib/workbench.js; run-integration.mjs uses
// launchBrowser/workbenchUrl/enableDevPayload from it too.
import { chromium, type BrowserContext, type Frame, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { acceptFileDialog } from './dialogs';
import { until } from './until';

// ---------------------------------------------------------------------------------------------------
// Environment from the runner

export interface E2EEnv {
  /** http://127.0.0.1:PORT of the code-server under test */
  readonly baseUrl: string;
  /** absolute path of the (throw-away) workspace folder the server was started with (shared by all tests) */
  readonly workspace: string;
  /** the pristine fixture folder that Workbench.open() copies for each window (test/fixtures/workspace) */
  readonly fixture: string;
  /** where per-window workspace copies go (the runner deletes it at the end) */
  readonly tmpDir: string;
  /** absolute path of the extension to load from source (extensionDevelopmentPath), if any */
  readonly extensionPath: string | undefined;
  /** where screenshots and logs go (test-results/e2e) */
  readonly resultsDir: string;
  /** the server's user settings.json (to change settings while it runs), if known */
  readonly userSettingsPath: string | undefined;
  /** chromium executable */
  readonly chromiumPath: string;
}

/**
 * Reads FFN_E2E_BASE_URL, FFN_E2E_WORKSPACE, FFN_E2E_FIXTURE, FFN_E2E_TMP, FFN_E2E_EXTENSION_PATH,
 * FFN_E2E_RESULTS_DIR, FFN_E2E_USER_SETTINGS, CHROMIUM (set by scripts/run-e2e.mjs).
 */
export function e2eEnv(): E2EEnv {
  const baseUrl = process.env.FFN_E2E_BASE_URL;
  const workspace = process.env.FFN_E2E_WORKSPACE;
  if (!baseUrl || !workspace) {
    throw new Error('FFN_E2E_BASE_URL and FFN_E2E_WORKSPACE are not set: run the e2e tests with `npm run test:e2e` (scripts/run-e2e.mjs)');
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    workspace: resolve(workspace),
    // compiled to out/test/e2e/lib/: the repository is four levels up
    fixture: resolve(process.env.FFN_E2E_FIXTURE || join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'workspace')),
    tmpDir: resolve(process.env.FFN_E2E_TMP || tmpdir()),
    extensionPath: process.env.FFN_E2E_EXTENSION_PATH ? resolve(process.env.FFN_E2E_EXTENSION_PATH) : undefined,
    resultsDir: resolve(process.env.FFN_E2E_RESULTS_DIR || join('test-results', 'e2e')),
    userSettingsPath: process.env.FFN_E2E_USER_SETTINGS || undefined,
    chromiumPath: process.env.CHROMIUM || '/usr/bin/chromium',
  };
}

// ---------------------------------------------------------------------------------------------------
// Browser + URL plumbing (also used by scripts/run-integration.mjs)

/** Flags proven in this sandbox (no GPU, no sandbox as root, no background network). */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--force-color-profile=srgb',
  '--enable-unsafe-swiftshader', // software WebGL, in case a webview uses it
];

export interface LaunchOptions {
  executablePath?: string;
  headless?: boolean;
  viewport?: { width: number; height: number };
  /**
   * Default true: on SIGINT/SIGTERM/SIGHUP exit (130/143/129) at once, killing every browser launched
   * here, so a runner that stops this process never leaves a chromium behind. false: the caller handles
   * signals and must call close() (chromium is still killed when the process exits).
   */
  handleSignals?: boolean;
}

export interface LaunchedBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

const openBrowsers = new Set<{ close(): Promise<void>; userDataDir: string }>();
let exitHandlerInstalled = false;
let signalHandlersInstalled = false;
function installExitHandler(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  // Playwright kills its browsers on exit; remove their temporary profiles too.
  process.on('exit', () => { for (const b of openBrowsers) rmSync(b.userDataDir, { recursive: true, force: true }); });
}
function installSignalHandlers(): void {
  if (signalHandlersInstalled) return;
  signalHandlersInstalled = true;
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    // Exit at once: Playwright's exit handler SIGKILLs the browsers it launched and ours removes their
    // profiles (closing gracefully first would only let the running tests fail noisily).
    process.on(sig, () => process.exit(code));
  }
}

/** Chromium with a new temporary user-data-dir (deleted on close). */
export async function launchBrowser(opts: LaunchOptions = {}): Promise<LaunchedBrowser> {
  const executablePath = opts.executablePath ?? process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`chromium not found at ${executablePath}: run \`npm run setup:vscode\``);
  if (opts.handleSignals ?? true) installSignalHandlers();
  const userDataDir = mkdtempSync(join(tmpdir(), 'ffn-lens-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: opts.headless ?? !process.env.HEADED,
      viewport: opts.viewport ?? { width: 1600, height: 900 },
      args: [...CHROMIUM_ARGS],
      // keep chromium's crash-report database and caches out of ~/.config and ~/.cache
      env: { ...process.env, XDG_CONFIG_HOME: join(userDataDir, 'xdg-config'), XDG_CACHE_HOME: join(userDataDir, 'xdg-cache') },
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
      timeout: 60_000,
    });
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw new Error(`could not start chromium (${executablePath}): ${firstLine(e)}`);
  }
  installExitHandler();   // after the launch, so it runs after Playwright's own exit handler has killed chromium
  const page = context.pages()[0] ?? await context.newPage();
  let closing: Promise<void> | undefined;
  const entry = {
    userDataDir,
    close(): Promise<void> {
      closing ??= (async () => {
        await context.close().catch(() => undefined);
        rmSync(userDataDir, { recursive: true, force: true });
        openBrowsers.delete(entry);
      })();
      return closing;
    },
  };
  openBrowsers.add(entry);
  return { context, page, close: () => entry.close() };
}

/** vscode-remote URI of a server-side path (code-server's remote authority is host:port). */
export function remoteUri(baseUrl: string, absPath: string): string {
  return `vscode-remote://${new URL(baseUrl).host}${resolve(absPath)}`;
}

/**
 * Workbench URL opening `folder`, optionally with the extension at extensionDevelopmentPath loaded
 * from source and the extension tests at extensionTestsPath run (code-server has no CLI flags for
 * these: the workbench reads them from the `payload` query parameter).
 */
export function workbenchUrl(o: { baseUrl: string; folder: string; extensionDevelopmentPath?: string; extensionTestsPath?: string }): string {
  let url = `${o.baseUrl.replace(/\/+$/, '')}/?folder=${encodeURIComponent(resolve(o.folder))}`;
  const payload: [string, string][] = [];
  if (o.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remoteUri(o.baseUrl, o.extensionDevelopmentPath)]);
  if (o.extensionTestsPath) payload.push(['extensionTestsPath', remoteUri(o.baseUrl, o.extensionTestsPath)]);
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/**
 * Newer VS Code builds honour the payload's extensionDevelopmentPath/extensionTestsPath only when
 * developmentOptions.enableSmokeTestDriver is set, which code-server's CLI cannot set: flip it in the
 * page's workbench configuration <meta> before workbench.js reads it (harmless on 1.100).
 * Call before page.goto().
 */
export async function enableDevPayload(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = globalThis as any;
    if (w !== w.top) return;
    new w.MutationObserver((_: unknown, obs: any) => {
      const m = w.document.getElementById('vscode-workbench-web-configuration');
      const s = m && m.getAttribute('data-settings');
      if (!s) return;
      const c = JSON.parse(s);
      c.developmentOptions = { ...(c.developmentOptions || {}), enableSmokeTestDriver: true };
      m.setAttribute('data-settings', JSON.stringify(c));
      obs.disconnect();
    }).observe(w.document, { childList: true, subtree: true });
  });
}

// ---------------------------------------------------------------------------------------------------
// Small utilities

export function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n').find((l) => l.trim())?.trim() ?? msg;
}

function escapeRegExp(s: string): string { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
function exactly(s: string): RegExp { return new RegExp(`^\\s*${escapeRegExp(s)}\\s*$`); }
function slug(s: string): string { return s.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'shot'; }

/** Run `fn`; on failure rethrow with a readable "what we were doing" prefix. */
async function step<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try { return await fn(); } catch (e) { throw new Error(`${what}: ${firstLine(e)}`); }
}

/** Pixels read from a canvas: RGBA bytes, row-major. */
export interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly data: number[];
}

/** [r, g, b, a] at (x, y) of `p`. */
export function pixelAt(p: Pixels, x: number, y: number): [number, number, number, number] {
  const i = (y * p.width + x) * 4;
  return [p.data[i]!, p.data[i + 1]!, p.data[i + 2]!, p.data[i + 3]!];
}

/**
 * Light/dark shorthands for setColorTheme() and themeSetting(): label = the name in the theme
 * picker, id = the value of the workbench.colorTheme setting, cls = the workbench's CSS class.
 */
export const THEMES = {
  light: { label: 'Light Modern', id: 'Default Light Modern', cls: 'vs' },
  dark: { label: 'Dark Modern', id: 'Default Dark Modern', cls: 'vs-dark' },
  'hc-dark': { label: 'Dark High Contrast', id: 'Default High Contrast', cls: 'hc-black' },
  'hc-light': { label: 'Light High Contrast', id: 'Default High Contrast Light', cls: 'hc-light' },
} as const;

/** User settings selecting a theme, e.g. for `run-e2e.mjs --settings` or updateUserSettings(). */
export function themeSetting(kind: keyof typeof THEMES): Record<string, string> {
  return { 'workbench.colorTheme': THEMES[kind].id };
}

// ---------------------------------------------------------------------------------------------------

export interface OpenOptions {
  /** Name used for the console log and failure screenshots (default 'workbench'). */
  name?: string;
  /** Defaults to e2eEnv(). */
  env?: E2EEnv;
  /**
   * Folder to open. Default: a fresh copy of env.fixture for this window only (deleted by close()), so
   * test files cannot see each other's edits, unsaved-editor backups or workspace state. Pass
   * env.workspace to share the runner's copy.
   */
  folder?: string;
  /** Extra files (path relative to the folder → content) written before the window opens. */
  files?: Record<string, string | Uint8Array>;
  /** Extension to load from source; null = none (default env.extensionPath). */
  extensionPath?: string | null;
  /** Wait until the explorer shows this file (default: any row). */
  waitForFile?: string;
  viewport?: { width: number; height: number };
  /** Default timeout of every Playwright action (default 60 s: a loaded machine is slow). */
  timeoutMs?: number;
}

/** One browser tab with the workbench loaded. */
export class Workbench {
  /** Browser console lines (including the extension host's, forwarded when loaded from source). */
  readonly consoleLines: string[] = [];
  /** Uncaught page errors. */
  readonly pageErrors: string[] = [];

  private constructor(
    private readonly browser: LaunchedBrowser,
    readonly env: E2EEnv,
    readonly name: string,
    /** The workspace folder this window has open. */
    readonly folder: string,
    private readonly ownsFolder: boolean,
  ) {
    const page = browser.page;
    page.on('console', (m) => this.consoleLines.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => { this.pageErrors.push(e.message); this.consoleLines.push(`[pageerror] ${e.message}`); });
  }

  get page(): Page { return this.browser.page; }
  get context(): BrowserContext { return this.browser.context; }

  /** Launch chromium, open the workbench with the extension loaded from source, wait for the explorer. */
  static async open(opts: OpenOptions = {}): Promise<Workbench> {
    const env = opts.env ?? e2eEnv();
    let folder = opts.folder;
    const fresh = folder === undefined;
    if (fresh) {
      mkdirSync(env.tmpDir, { recursive: true });
      folder = mkdtempSync(join(env.tmpDir, `${slug(opts.name ?? 'workbench')}-`));
      cpSync(env.fixture, folder, { recursive: true });
    }
    for (const [rel, content] of Object.entries(opts.files ?? {})) {
      mkdirSync(dirname(join(folder!, rel)), { recursive: true });
      writeFileSync(join(folder!, rel), content);
    }
    let browser: LaunchedBrowser;
    try {
      browser = await launchBrowser({ executablePath: env.chromiumPath, ...(opts.viewport ? { viewport: opts.viewport } : {}) });
    } catch (e) {
      if (fresh) rmSync(folder!, { recursive: true, force: true });
      throw e;
    }
    const wb = new Workbench(browser, env, opts.name ?? 'workbench', folder!, fresh);
    wb.page.setDefaultTimeout(opts.timeoutMs ?? 60_000);
    try {
      const ext = opts.extensionPath === null ? undefined : (opts.extensionPath ?? env.extensionPath);
      if (ext) await enableDevPayload(wb.page);
      const url = workbenchUrl({ baseUrl: env.baseUrl, folder: folder!, ...(ext ? { extensionDevelopmentPath: ext } : {}) });
      await step(`open ${env.baseUrl}`, () => wb.page.goto(url, { timeout: 60_000 }));
      await step('wait for the workbench', () => wb.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 }));
      await wb.waitForExplorer(opts.waitForFile);
    } catch (e) {
      await wb.screenshot(`${wb.name}-load-failure`).catch(() => undefined);
      await wb.close();
      throw e;
    }
    return wb;
  }

  /** Wait until the explorer lists `fileName` (or any entry): the workbench and remote file system are live. */
  async waitForExplorer(fileName?: string, timeoutMs = 60_000): Promise<void> {
    const rows = this.page.locator('.explorer-folders-view .monaco-list-row', fileName ? { hasText: fileName } : {});
    await step(`wait for the explorer${fileName ? ` to show ${fileName}` : ''}`, () => rows.first().waitFor({ timeout: timeoutMs }));
  }

  /** Give the workbench keyboard focus (the first key press goes nowhere otherwise). */
  async focusWorkbench(): Promise<void> {
    const focused = await this.page.evaluate(() => {
      const d = (globalThis as any).document;
      const a = d.activeElement;
      return d.hasFocus() && a && a !== d.body && !!a.closest('.monaco-workbench') && a.tagName !== 'IFRAME';
    });
    if (focused) return;
    // The keyboard to a text editor shown (as a click into it would, the cursor where it was), else
    // to the explorer's list: either way out of a webview, whose frame keeps Ctrl+P and F1 in the web
    // host (clicking the editor area's corner, as before, clicked the panel when a panel was beside).
    const moved = await this.page.evaluate(() => {
      const d = (globalThis as any).document;
      const visible = (el: any): boolean => !!el && el.getClientRects().length > 0;
      const target = [...d.querySelectorAll('.part.editor .monaco-editor textarea')].find(visible)
        ?? [...d.querySelectorAll('.part.sidebar .monaco-list')].find(visible);
      target?.focus();
      const a = d.activeElement;
      return !!a && a !== d.body && a.tagName !== 'IFRAME' && !!a.closest('.monaco-workbench');
    });
    if (!moved) await this.page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } });
  }

  private get quickInput(): Locator { return this.page.locator('.quick-input-widget input.input').first(); }
  private quickRows(text: string | RegExp): Locator {
    return this.page.locator('.quick-input-list .monaco-list-row', { has: this.page.locator('.label-name', { hasText: text }) });
  }

  /** Open a workspace file with Quick Open (Ctrl+P), like a user; waits for its tab. */
  async openFile(name: string, opts: { timeoutMs?: number } = {}): Promise<void> {
    const base = name.split('/').pop()!;
    await step(`open ${name} with Quick Open`, async () => {
      // (Quick Open that does not open or take the name within 15 s is closed and opened again)
      const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
      for (;;) {
        const failed = await (async () => {
          await this.focusWorkbench();
          await this.page.keyboard.press('Control+P');
          await this.quickInput.waitFor({ state: 'visible', timeout: 15_000 });
          await this.quickInput.fill(name, { timeout: 15_000 });
          return null;
        })().catch((e: unknown) => e);
        if (failed === null) break;
        const seen = await this.pageState();
        await this.page.keyboard.press('Escape');
        if (Date.now() >= deadline) throw new Error(`Quick Open did not take "${name}": ${firstLine(failed)}; ${seen}`);
      }
      await this.quickRows(base).first().waitFor({ timeout: opts.timeoutMs ?? 60_000 });
      await this.page.keyboard.press('Enter');
      await this.tab(base).waitFor({ timeout: opts.timeoutMs ?? 60_000 });
      await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor();
    });
  }

  /** Run a command from the command palette (F1) by its full title, e.g. "FFN Lens: Visualize FFN". */
  async runCommand(title: string, opts: { timeoutMs?: number } = {}): Promise<void> {
    await step(`run "${title}" from the command palette`, async () => {
      // The palette lists the commands known when it opens: one opened while the window is still
      // loading its extensions lacks theirs for good. So: open it again until the command is there.
      const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
      const row = this.quickRows(exactly(title)).first();
      for (;;) {
        // (a palette that does not open or take the text within 15 s is closed and opened again:
        // on a loaded machine a keystroke can land before the widget is ready for it)
        const failed = await (async () => {
          await this.focusWorkbench();
          await this.page.keyboard.press('F1');
          await this.quickInput.waitFor({ state: 'visible', timeout: 15_000 });
          await this.quickInput.fill(`>${title}`, { timeout: 15_000 });
          return null;
        })().catch((e: unknown) => e);
        if (failed !== null) {
          const seen = await this.pageState();
          await this.page.keyboard.press('Escape');
          if (Date.now() >= deadline) throw new Error(`the command palette did not take "${title}": ${firstLine(failed)}; ${seen}`);
          continue;
        }
        try {
          await row.waitFor({ timeout: Math.max(500, Math.min(3_000, deadline - Date.now())) });
          break;
        } catch {
          const shown = await this.page.locator('.quick-input-list .monaco-list-row .label-name').allInnerTexts();
          await this.page.keyboard.press('Escape');
          if (Date.now() >= deadline) throw new Error(`no such command in the palette (is the extension loaded?); it shows: ${JSON.stringify(shown.slice(0, 8))}`);
        }
      }
      await this.acceptQuickRow(title);
      // The palette closes, or is reused by a quick pick the command opens (its text changes).
      await this.page.waitForFunction((typed: string) => {
        const input = (globalThis as any).document.querySelector('.quick-input-widget input.input');
        const widget = input?.closest('.quick-input-widget');
        return !input || !widget || widget.style.display === 'none' || input.value !== typed;
      }, `>${title}`, { timeout: 5_000 }).catch(() => undefined);
    });
  }

  /** What the page shows that can keep the palette from typing (a dialog, where the keyboard is), for a message. */
  private async pageState(): Promise<string> {
    return this.page.evaluate(() => {
      const d = (globalThis as any).document;
      const dialog = d.querySelector('.monaco-dialog-box')?.innerText?.slice(0, 200);
      const a = d.activeElement;
      const input = d.querySelector('.quick-input-widget input.input');
      return `the keyboard is at ${a ? `${a.tagName.toLowerCase()}.${String(a.className).split(' ').slice(0, 3).join('.')}` : 'nothing'}; `
        + `the palette's input ${input ? `${input.disabled ? 'disabled' : 'enabled'}${input.readOnly ? ', read-only' : ''}, shown: ${input.closest('.quick-input-widget')?.style.display !== 'none'}` : 'absent'}`
        + (dialog ? `; a dialog says: ${JSON.stringify(dialog)}` : '');
    }).catch((e: unknown) => `(could not tell: ${firstLine(e)})`);
  }

  /**
   * Move the quick input's keyboard focus to the row labelled exactly `label`, then press Enter.
   * (Clicking is unreliable: the palette re-sorts its rows while "similar commands" arrive.)
   */
  private async acceptQuickRow(label: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.page.evaluate(() => {
        const rows = [...(globalThis as any).document.querySelectorAll('.quick-input-list .monaco-list-row')] as any[];
        rows.sort((a, b) => Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index')));
        return {
          labels: rows.map((r) => (r.querySelector('.label-name')?.textContent ?? '').trim()),
          focused: rows.findIndex((r) => r.classList.contains('focused')),
        };
      });
      const target = state.labels.indexOf(label);
      if (target >= 0 && target === state.focused) {
        await this.page.keyboard.press('Enter');
        return;
      }
      if (Date.now() > deadline) throw new Error(`could not select "${label}" (rows: ${JSON.stringify(state.labels.slice(0, 8))})`);
      if (target >= 0 && state.focused >= 0) {
        await this.page.keyboard.press(target > state.focused ? 'ArrowDown' : 'ArrowUp');
      }
      await this.page.waitForTimeout(target >= 0 && state.focused >= 0 ? 50 : 200);
    }
  }

  /**
   * Accepts the file name a save dialog proposes, once it is `name` (code-server's own dialog fills
   * it in a moment after the folder) and the dialog has the keyboard; returns the value it held.
   */
  async acceptProposedName(name: RegExp): Promise<string> {
    return step(`accept a file name matching ${String(name)}`, () => acceptFileDialog(this, (v) => name.test(v)));
  }

  /**
   * Pick an entry of the quick pick a command opened (e.g. the theme picker). With `filter`, type it
   * first (re-typed until the entry shows: a picker that is still being set up may reset its text).
   */
  async pickQuickItem(label: string | RegExp, opts: { filter?: string; timeoutMs?: number } = {}): Promise<void> {
    await step(`pick "${label}" in the quick pick`, async () => {
      const row = this.quickRows(typeof label === 'string' ? exactly(label) : label).first();
      const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
      for (;;) {
        await this.quickInput.waitFor({ state: 'visible', timeout: Math.max(1, deadline - Date.now()) });
        if (opts.filter !== undefined && (await this.quickInput.inputValue()) !== opts.filter) await this.quickInput.fill(opts.filter);
        try {
          await row.waitFor({ timeout: Math.max(500, Math.min(2_000, deadline - Date.now())) });
          break;
        } catch (e) {
          if (Date.now() >= deadline) {
            const shown = await this.page.locator('.quick-input-list .monaco-list-row .label-name').allInnerTexts();
            throw new Error(`${firstLine(e)} (it shows: ${JSON.stringify(shown.slice(0, 8))})`);
          }
        }
      }
      if (typeof label === 'string') await this.acceptQuickRow(label);
      else await row.click();
    });
  }

  /** An editor tab by its exact title. */
  tab(title: string): Locator {
    return this.page.locator('.tabs-container .tab', { has: this.page.locator('.label-name', { hasText: exactly(title) }) }).first();
  }

  /** The tab titled exactly `title`, else the first whose title starts with it. */
  private tabByTitleOrPrefix(title: string): Locator {
    const prefix = new RegExp(`^\\s*${escapeRegExp(title)}`);
    return this.tab(title).or(this.page.locator('.tabs-container .tab', { has: this.page.locator('.label-name', { hasText: prefix }) })).first();
  }

  /** Close every editor ("View: Close All Editors"). */
  async closeAllEditors(): Promise<void> { await this.runCommand('View: Close All Editors'); }

  /**
   * Opens `file` with Quick Open, runs "FFN Lens: Visualize FFN" from the palette, and waits until
   * the panel titled `panelTitle` has drawn a render. Returns the panel's frame.
   */
  async visualize(file: string, panelTitle: string, opts: { timeoutMs?: number } = {}): Promise<FrameLocator> {
    const timeout = opts.timeoutMs ?? 60_000;
    await this.openFile(file);
    await this.runCommand('FFN Lens: Visualize FFN');
    const view = await this.webview(panelTitle, { timeoutMs: timeout });
    await view.locator('body[data-rendered-version]').waitFor({ timeout });
    return view;
  }

  /**
   * The inner frame of a webview (outer `iframe.webview.ready` → inner `iframe#active-frame`). With
   * `panelTitle`, the webview of the editor tab with that title, or else whose title starts with it
   * (activated first if it is in the background); without, the first visible webview.
   */
  async webview(panelTitle?: string, opts: { timeoutMs?: number } = {}): Promise<FrameLocator> {
    const id = await this.webviewContainerId(panelTitle, opts.timeoutMs ?? 30_000);
    const inner = this.page.locator(`[id="${id}"] iframe.webview.ready`).contentFrame().locator('iframe#active-frame');
    await step('wait for the webview content frame', () => inner.waitFor({ state: 'attached', timeout: opts.timeoutMs ?? 30_000 }));
    return inner.contentFrame();
  }

  /** Like webview() but returns the Playwright Frame (for evaluate/waitForFunction). Re-get it if the panel reloads. */
  async webviewFrame(panelTitle?: string, opts: { timeoutMs?: number } = {}): Promise<Frame> {
    const id = await this.webviewContainerId(panelTitle, opts.timeoutMs ?? 30_000);
    const inner = this.page.locator(`[id="${id}"] iframe.webview.ready`).contentFrame().locator('iframe#active-frame');
    const handle = await step('wait for the webview content frame', () => inner.elementHandle({ timeout: opts.timeoutMs ?? 30_000 }));
    const frame = await handle.contentFrame();
    if (!frame) throw new Error('webview content frame has no document');
    await frame.waitForLoadState('domcontentloaded');
    return frame;
  }

  /** Titles of the editor tabs whose webview is currently shown. */
  async webviewTitles(): Promise<string[]> {
    return this.page.evaluate(() => {
      const d = (globalThis as any).document;
      const out: string[] = [];
      for (const div of d.querySelectorAll('[data-parent-flow-to-element-id]')) {
        if (!div.querySelector('iframe.webview.ready') || (globalThis as any).getComputedStyle(div).visibility === 'hidden') continue;
        const group = d.getElementById(div.getAttribute('data-parent-flow-to-element-id'))?.closest('.editor-group-container');
        const tab = group?.querySelector('.tab.active');
        out.push((tab?.querySelector('.label-name')?.textContent ?? tab?.textContent ?? '').trim());
      }
      return out;
    });
  }

  private async webviewContainerId(panelTitle: string | undefined, timeoutMs: number): Promise<string> {
    return step(`find the webview${panelTitle ? ` of panel "${panelTitle}"` : ''}`, async () => {
      if (panelTitle) {
        const tab = this.tabByTitleOrPrefix(panelTitle);
        await tab.waitFor({ timeout: timeoutMs });
        if (!/\bactive\b/.test((await tab.getAttribute('class')) ?? '')) await tab.click();
      }
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // A webview lives in an overlay <div id=…> positioned over its editor; the div's
        // data-parent-flow-to-element-id names an element inside the editor group, whose active tab
        // is the panel.
        const id = await this.page.evaluate((title: string | null) => {
          const d = (globalThis as any).document;
          let prefixed: string | null = null;
          for (const div of d.querySelectorAll('[data-parent-flow-to-element-id]')) {
            if (!div.querySelector('iframe.webview.ready') || (globalThis as any).getComputedStyle(div).visibility === 'hidden') continue;
            if (title === null) return div.id as string;
            const group = d.getElementById(div.getAttribute('data-parent-flow-to-element-id'))?.closest('.editor-group-container');
            const tab = group?.querySelector('.tab.active');
            const label = (tab?.querySelector('.label-name')?.textContent ?? tab?.textContent ?? '').trim();
            if (label === title) return div.id as string;
            if (label.startsWith(title)) prefixed ??= div.id as string;
          }
          return prefixed;
        }, panelTitle ?? null);
        if (id) return id;
        if (Date.now() > deadline) {
          throw new Error(`no visible webview${panelTitle ? ` for "${panelTitle}"` : ''} within ${timeoutMs} ms (visible: ${JSON.stringify(await this.webviewTitles())})`);
        }
        await this.page.waitForTimeout(200);
      }
    });
  }

  /**
   * Read pixels of a canvas inside a webview (or any frame): the whole canvas, or `rect`. Works for
   * 2D canvases and, through a copy, for WebGL ones created with preserveDrawingBuffer.
   */
  async readCanvas(frame: FrameLocator | Frame, selector = 'canvas', rect?: { x: number; y: number; width: number; height: number }): Promise<Pixels> {
    const canvas = frame.locator(selector).first();
    await step(`wait for ${selector} in the webview`, () => canvas.waitFor({ state: 'attached' }));
    return step(`read pixels of ${selector}`, () => canvas.evaluate((el: any, r: { x: number; y: number; width: number; height: number } | null) => {
      if (!el || typeof el.getContext !== 'function') throw new Error('not a <canvas> element');
      const x = r ? r.x : 0; const y = r ? r.y : 0;
      const width = r ? r.width : el.width; const height = r ? r.height : el.height;
      let ctx = el.getContext('2d', { willReadFrequently: true });
      if (!ctx) { // canvas already has another context (webgl/bitmaprenderer): copy it into a 2D canvas
        const copy = (globalThis as any).document.createElement('canvas');
        copy.width = el.width; copy.height = el.height;
        ctx = copy.getContext('2d');
        ctx.drawImage(el, 0, 0);
      }
      const img = ctx.getImageData(x, y, width, height);
      return { width, height, data: Array.from(img.data as ArrayLike<number>) };
    }, rect ?? null));
  }

  /**
   * Hover the first piece of editor text containing `text` (in the active editor group) and return the
   * hover widget's text; with `expect`, wait until the hover contains it. Hovers again until the
   * deadline, since hover content that arrives late (diagnostics, a language server starting) does not
   * show on a hover that already came up empty.
   */
  async hover(text: string, opts: { expect?: string | RegExp; timeoutMs?: number; nth?: number } = {}): Promise<string> {
    return step(`hover "${text}" in the editor`, async () => {
      const editor = this.page.locator('.editor-group-container.active .monaco-editor').first();
      const token = editor.locator('.view-lines .view-line > span > span', { hasText: text }).nth(opts.nth ?? 0);
      await token.waitFor();
      const hover = this.page.locator('.monaco-hover:not(.hidden) .monaco-hover-content', opts.expect ? { hasText: opts.expect } : {}).first();
      const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
      for (;;) {
        await this.page.mouse.move(0, 0);   // leave, so the next hover starts afresh
        await this.page.keyboard.press('Escape');
        await token.hover();
        try {
          await hover.waitFor({ state: 'visible', timeout: Math.max(500, Math.min(3_000, deadline - Date.now())) });
          return (await hover.innerText()).trim();
        } catch (e) {
          if (Date.now() >= deadline) {
            const shown = await this.page.locator('.monaco-hover-content').allInnerTexts().catch(() => []);
            throw new Error(`no hover${opts.expect ? ` matching ${String(opts.expect)}` : ''} (hover widgets: ${JSON.stringify(shown)}): ${firstLine(e)}`);
          }
        }
      }
    });
  }

  /** Texts of the notification toasts shown now. */
  async notifications(): Promise<string[]> {
    return this.page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts();
  }

  /**
   * Start recording every notification toast's text as it appears (a MutationObserver in the page),
   * so one that is shown only for a moment (a progress that ends quickly) is not missed by polling.
   * Read them with `recordedNotifications()`.
   */
  async recordNotifications(): Promise<void> {
    await this.page.evaluate(() => {
      const g = globalThis as any;
      if (g.__ffnSeenToasts) return;
      const seen: string[] = g.__ffnSeenToasts = [];
      const take = (): void => {
        for (const el of g.document.querySelectorAll('.notifications-toasts .notification-list-item-message')) {
          const t = (el.textContent ?? '').trim();
          if (t && !seen.includes(t)) seen.push(t);
        }
      };
      new g.MutationObserver(take).observe(g.document.body, { childList: true, subtree: true, characterData: true });
      take();
    });
  }

  /** Texts of every notification toast shown since `recordNotifications()`. */
  async recordedNotifications(): Promise<string[]> {
    return this.page.evaluate(() => [...((globalThis as any).__ffnSeenToasts ?? [])] as string[]);
  }

  /** Wait for a notification toast whose text matches; returns its text. */
  async waitForNotification(match: string | RegExp, opts: { timeoutMs?: number } = {}): Promise<string> {
    const toast = this.page.locator('.notifications-toasts .notification-list-item-message', { hasText: match }).first();
    return step(`wait for a notification matching ${String(match)}`, async () => {
      try {
        await toast.waitFor({ state: 'visible', timeout: opts.timeoutMs ?? 15_000 });
      } catch (e) {
        throw new Error(`${firstLine(e)} (shown: ${JSON.stringify(await this.notifications())})`);
      }
      return (await toast.innerText()).trim();
    });
  }

  /**
   * Switch the color theme with "Preferences: Color Theme" (like a user): 'light' | 'dark' |
   * 'hc-dark' | 'hc-light' or a theme label. Note: this writes workbench.colorTheme into the
   * server's user settings, so it outlives the page: restore it if later tests care.
   */
  async setColorTheme(theme: keyof typeof THEMES | string): Promise<void> {
    const known = (THEMES as Record<string, { label: string; id: string; cls: string }>)[theme];
    const label = known?.label ?? theme;
    // A theme picker opened while the window still loads its extensions lists none of their
    // themes (built-in ones included) for good: open it again until the theme is there.
    // (bounds on a failure: on a loaded machine the picker takes seconds to list its themes)
    const deadline = Date.now() + 120_000;
    for (;;) {
      await this.runCommand('Preferences: Color Theme');
      try {
        await this.pickQuickItem(label, { filter: label, timeoutMs: 15_000 });
        break;
      } catch (e) {
        await this.page.keyboard.press('Escape');
        if (Date.now() >= deadline) throw e;
      }
    }
    await step(`wait for theme ${label}`, async () => {
      if (known) {
        await this.page.waitForFunction((cls: string) => (globalThis as any).document.querySelector('.monaco-workbench')?.classList.contains(cls), known.cls, { timeout: 60_000 });
      }
      await this.quickInput.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
      // VS Code saves the choice into the user settings.json: let that write land before anyone
      // else (updateUserSettings) touches the file. (The web workbench's default theme, Light
      // Modern, is saved as no setting at all.)
      const file = this.env.userSettingsPath;
      const saved = (text: string): boolean => text.includes(`"${known!.id}"`) || (known!.id === THEMES.light.id && !text.includes('"workbench.colorTheme"'));
      if (known && file) await until(`${known.id} saved in ${file}`, () => existsSync(file) && saved(readFileSync(file, 'utf8')));
    });
  }

  /** Wait until themeKind() is `kind` ('light' | 'dark' | 'hc-dark' | 'hc-light'). */
  async waitForThemeKind(kind: keyof typeof THEMES, timeoutMs = 15_000): Promise<void> {
    const cls = THEMES[kind].cls;
    await step(`wait for a ${kind} theme`, () => this.page.waitForFunction(
      (c: string) => (globalThis as any).document.querySelector('.monaco-workbench')?.classList.contains(c), cls, { timeout: timeoutMs }));
  }

  /** 'light' | 'dark' | 'hc-dark' | 'hc-light' from the workbench's theme class. */
  async themeKind(): Promise<string> {
    const cls = (await this.page.locator('.monaco-workbench').first().getAttribute('class')) ?? '';
    if (/\bhc-black\b/.test(cls)) return 'hc-dark';
    if (/\bhc-light\b/.test(cls)) return 'hc-light';
    if (/\bvs-dark\b/.test(cls)) return 'dark';
    return 'light';
  }

  /**
   * Merge `values` into the server's user settings.json, then reload the window so they apply (the
   * web workbench does not pick up outside edits of the remote settings file while it runs). For
   * settings needed from the first page load, use the runner instead: `run-e2e.mjs --settings FILE`.
   */
  async updateUserSettings(values: Record<string, unknown>, opts: { reload?: boolean } = {}): Promise<void> {
    const file = this.env.userSettingsPath;
    if (!file) throw new Error('the server user settings path is unknown (FFN_E2E_USER_SETTINGS is not set)');
    // VS Code may be rewriting the file right now (e.g. after a theme change): retry a short while.
    let current: Record<string, unknown> = {};
    for (let attempt = 0; existsSync(file); attempt++) {
      const text = readFileSync(file, 'utf8');
      try {
        current = text.trim() ? JSON.parse(text.replace(/^\s*\/\/.*$/gm, '').replace(/,(\s*[}\]])/g, '$1')) : {};
        if (text.trim() || attempt >= 10) break;
      } catch (e) {
        if (attempt >= 10) throw new Error(`cannot parse ${file}: ${firstLine(e)}`);
      }
      await this.page.waitForTimeout(200);
    }
    writeFileSync(file, JSON.stringify({ ...current, ...values }, null, 2) + '\n');
    if (opts.reload ?? true) await this.reload();
  }

  /** Reload the window (like "Developer: Reload Window") and wait for the explorer again. */
  async reload(): Promise<void> {
    await step('reload the window', async () => {
      await this.page.reload({ waitUntil: 'domcontentloaded', timeout: 60_000 });
      await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    });
    await this.waitForExplorer();
  }

  /** Screenshot of the page (or of `locator`) into the results folder; returns the file path. */
  async screenshot(name: string, opts: { locator?: Locator; fullPage?: boolean } = {}): Promise<string> {
    mkdirSync(this.env.resultsDir, { recursive: true });
    const path = join(this.env.resultsDir, `${slug(name)}.png`);
    if (opts.locator) await opts.locator.screenshot({ path });
    else await this.page.screenshot({ path, fullPage: opts.fullPage ?? false });
    return path;
  }

  /**
   * Close the browser; writes the collected console to <resultsDir>/<name>.console.log. The page
   * leaves the workbench first, so that it shuts down as a closed window does and its extension
   * host ends: a browser closed under it leaves the server keeping that host for a reconnection
   * (5 minutes at least), busy with whatever it was doing (a 37 MB JSON document being validated
   * took a core through the next benchmark) and holding its memory (a 500 MB checkpoint).
   */
  async close(): Promise<void> {
    try {
      mkdirSync(this.env.resultsDir, { recursive: true });
      writeFileSync(join(this.env.resultsDir, `${slug(this.name)}.console.log`), this.consoleLines.join('\n') + '\n');
    } catch { /* best effort */ }
    await this.page.goto('about:blank', { timeout: 15_000 }).catch(() => undefined);
    await this.browser.close();
    if (this.ownsFolder) rmSync(this.folder, { recursive: true, force: true });
  }
}
