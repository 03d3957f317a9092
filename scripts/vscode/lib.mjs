// Shared plumbing for scripts/run-integration.mjs, run-e2e.mjs, run-electron.mjs, demo.mjs and
// test-all.mjs: run commands with time limits, build, setup, free ports, throw-away workspaces, and a
// code-server whose whole process group is stopped however this process ends (normal exit, error,
// Ctrl+C, SIGTERM). Nothing here reads anything outside the repository.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, rmdirSync, copyFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const VSCODE_SCRIPTS = join(REPO, 'scripts', 'vscode');
export const CS_ROOT = process.env.CS_ROOT ? resolve(process.env.CS_ROOT) : join(REPO, '.vscode-test', 'code-server');
export const RESULTS = join(REPO, 'test-results');
// Per-server state (user data, extensions, sockets) lives under a SHORT path: unix socket paths are
// limited to 107 characters and the repository may sit deep in the file system.
export const CS_RUN_ROOT = process.env.CS_RUN_ROOT ? resolve(process.env.CS_RUN_ROOT) : (existsSync('/tmp') ? '/tmp/ffn-lens-cs' : join(tmpdir(), 'ffn-lens-cs'));
export const FIXTURE_WORKSPACE = join(REPO, 'test', 'fixtures', 'workspace');

let tag = 'vscode';
/** Prefix for this script's own log lines. */
export function setTag(t) { tag = t; }
export function log(msg) { console.log(`[${tag}] ${msg}`); }
export function fail(msg) { console.error(`[${tag}] ERROR: ${msg}`); }
export const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;

/** Simple flag parser: --name, --name=value, --name value (for names listed in `withValue`). */
export function parseArgs(argv, withValue = []) {
  const flags = {}; const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { rest.push(...argv.slice(i + 1)); break; }
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (!m) { rest.push(a); continue; }
    if (m[2] !== undefined) flags[m[1]] = m[2];
    else if (withValue.includes(m[1])) flags[m[1]] = argv[++i];
    else flags[m[1]] = true;
  }
  return { flags, rest };
}

// ---------------------------------------------------------------------------------------------------
// Cleanup that always runs: async on signals / normal paths, synchronous fallbacks on process exit.
const cleanups = new Set();      // async () => void, run in reverse order of registration
const syncCleanups = new Set();  // () => void, for process.on('exit')
let exiting = false;

/** Register an async + sync cleanup pair; returns a function that unregisters both. */
export function onCleanup(asyncFn, syncFn) {
  const entry = { asyncFn, syncFn };
  cleanups.add(entry); if (syncFn) syncCleanups.add(syncFn);
  return () => { cleanups.delete(entry); if (syncFn) syncCleanups.delete(syncFn); };
}

export async function runCleanups() {
  await stopChildren();
  for (const e of [...cleanups].reverse()) {
    cleanups.delete(e); if (e.syncFn) syncCleanups.delete(e.syncFn);
    try { await e.asyncFn(); } catch (err) { fail(`cleanup: ${err?.message ?? err}`); }
  }
}

/** True once the script is shutting down (signal or exit()): later errors are consequences, not causes. */
export function isExiting() { return exiting; }

/** Run cleanups, then exit with `code`. Use instead of process.exit() in the scripts. */
export async function exit(code) {
  if (exiting) return;
  exiting = true;
  await runCleanups();
  process.exit(code);
}

let signalExitCode;
/** Exit status after SIGINT/SIGTERM/SIGHUP (default 128+signal); the demo uses 0 for Ctrl+C. */
export function setSignalExitCode(code) { signalExitCode = code; }

process.on('exit', () => { for (const f of [...syncCleanups]) { try { f(); } catch { /* best effort */ } } });
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
  process.on(sig, () => {
    if (exiting) return;              // second Ctrl+C while cleaning up: keep cleaning up
    console.error(`\n[${tag}] ${sig}: stopping…`);
    const status = signalExitCode ?? code;
    const force = setTimeout(() => process.exit(status), 30000); force.unref();
    void exit(status);
  });
}
process.on('unhandledRejection', (err) => { fail(err?.stack ?? String(err)); void exit(1); });

// ---------------------------------------------------------------------------------------------------
const children = new Set();

/**
 * Run a command, inheriting stdio (or `capture: true` to tee output and return it). Resolves with
 * { code, signal, output, timedOut, ms }. Kills it (process group) after `timeoutMs`.
 */
export function run(cmd, args, { cwd = REPO, env = process.env, timeoutMs = 0, capture = false, label } = {}) {
  const t0 = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { cwd, env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'], detached: true });
    children.add(child);
    let output = ''; let timedOut = false;
    if (capture) {
      child.stdout.on('data', (d) => { process.stdout.write(d); output += d; });
      child.stderr.on('data', (d) => { process.stderr.write(d); output += d; });
    }
    const timer = timeoutMs ? setTimeout(() => {
      timedOut = true;
      fail(`${label ?? cmd} did not finish within ${seconds(timeoutMs)}: killing it`);
      killGroup(child, 'SIGTERM'); setTimeout(() => killGroup(child, 'SIGKILL'), 5000).unref();
    }, timeoutMs) : null;
    child.on('error', (err) => { output += String(err); fail(`${label ?? cmd}: ${err.message}`); });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      children.delete(child);
      resolvePromise({ code: code ?? (signal ? 128 : 1), signal, output, timedOut, ms: Date.now() - t0 });
    });
  });
}

function killGroup(child, sig) { try { process.kill(-child.pid, sig); } catch { try { child.kill(sig); } catch { /* gone */ } } }

// Children run in their own process group (so a timeout kills their whole tree); when we end, they
// end first (before the server they may be talking to is stopped).
async function stopChildren() {
  for (const c of children) killGroup(c, 'SIGTERM');
  const deadline = Date.now() + 10000;
  while (children.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const c of children) killGroup(c, 'SIGKILL');
}
process.on('exit', () => { for (const c of children) killGroup(c, 'SIGKILL'); });

/** Run and throw a one-line error on failure. */
export async function mustRun(label, cmd, args, opts = {}) {
  const r = await run(cmd, args, { label, ...opts });
  if (r.code !== 0) throw new Error(r.timedOut ? `${label} timed out after ${seconds(r.ms)}` : `${label} failed (exit ${r.code})`);
  return r;
}

// ---------------------------------------------------------------------------------------------------
/** `node esbuild.mjs` (dist/ bundles) and, with tests, `node esbuild.mjs --tests` (out/). */
export async function build({ tests = true } = {}) {
  const t0 = Date.now();
  await mustRun('build (node esbuild.mjs)', process.execPath, ['esbuild.mjs'], { timeoutMs: 180000 });
  if (tests) await mustRun('build (node esbuild.mjs --tests)', process.execPath, ['esbuild.mjs', '--tests'], { timeoutMs: 180000 });
  if (!existsSync(join(REPO, 'dist', 'extension.js'))) throw new Error('dist/extension.js was not produced by the build');
  log(`built in ${seconds(Date.now() - t0)}`);
}

/** scripts/vscode/setup.sh: apt packages + code-server (idempotent; ~1 s when already installed). */
export async function ensureSetup() {
  await mustRun('setup (scripts/vscode/setup.sh)', 'bash', [join(VSCODE_SCRIPTS, 'setup.sh')], { timeoutMs: 30 * 60000 });
}

/** Is host:port free to listen on? */
export function portFree(port, host = '127.0.0.1') {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, host, () => s.close(() => res(true)));
  });
}

/** A port the OS says is free (ephemeral), or `preferred` and the ports after it with `scan`. */
export async function freePort({ preferred, scan = 50, host = '127.0.0.1' } = {}) {
  if (preferred) {
    for (let p = preferred; p < preferred + scan; p++) if (await portFree(p, host)) return p;
    throw new Error(`no free port in ${preferred}-${preferred + scan - 1} on ${host}`);
  }
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, host, () => { const { port } = s.address(); s.close(() => res(port)); });
  });
}

/** A fresh temporary folder that is deleted (recursively) at cleanup. */
export function makeTempDir(prefix = 'ffn-lens-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  onCleanup(async () => remove(), remove);
  return dir;
}

/** Copy a folder to a fresh temporary workspace that is deleted at cleanup. */
export function makeWorkspace(src = FIXTURE_WORKSPACE, prefix = 'ffn-lens-ws-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  onCleanup(async () => remove(), remove);
  if (existsSync(src)) cpSync(src, dir, { recursive: true });
  // The bundled samples too (what users open): tests see the very files the README talks about.
  const samples = join(REPO, 'samples');
  if (existsSync(samples)) cpSync(samples, dir, { recursive: true });
  if (!readdirSync(dir).some((f) => /\.ffn\.jsonc?$/.test(f))) throw new Error(`no model file (*.ffn.json) in ${src} or samples/: the tests need identity-weights.ffn.json`);
  return dir;
}

/**
 * The path to load the extension from source (extensionDevelopmentPath): a symlink to the repository
 * in a temporary folder. Not the repository itself, because code-server lives in .vscode-test/ inside
 * it: VS Code would then take every built-in extension for part of the extension under development
 * (e.g. it forces the first built-in color theme and ignores workbench.colorTheme).
 */
export function devExtensionPath() {
  const dir = mkdtempSync(join(tmpdir(), 'ffn-lens-dev-'));
  const link = join(dir, 'ffn-lens');
  symlinkSync(REPO, link, 'dir');
  const remove = () => {   // unlink the symlink itself; never a recursive delete through it
    try { unlinkSync(link); } catch { /* gone */ }
    try { rmdirSync(dir); } catch { /* gone */ }
  };
  onCleanup(async () => remove(), remove);
  return link;
}

/**
 * Delete run-<port>-<runner pid> dirs (this module's naming) whose runner and server are both gone,
 * e.g. after a kill -9 of the runner. Other run dirs (manual start-code-server.sh use) are left alone.
 */
export function reapStaleRunDirs() {
  if (!existsSync(CS_RUN_ROOT)) return;
  const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
  for (const name of readdirSync(CS_RUN_ROOT)) {
    const m = /^run-\d+-(\d+)$/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const pidFile = join(CS_RUN_ROOT, name, 'code-server.pid');
    try {
      if (existsSync(pidFile) && alive(-Number(readFileSync(pidFile, 'utf8')))) continue;   // its server still runs
      rmSync(join(CS_RUN_ROOT, name), { recursive: true, force: true });
    } catch { /* leave it */ }
  }
}

/**
 * Start code-server via start-code-server.sh. Options: workspace (folder to open), port, host,
 * extDir / extLink / vsix (install an extension), env (extra env for the server and its extension
 * host), settings (object merged into user settings.json), keepRunDir, logTo (copy the server log
 * there at stop). Returns { url, folderUrl, port, host, pid, runDir, userSettings, stop() }; the
 * server is stopped at cleanup whatever happens.
 */
export async function startServer({ workspace, port, host = '127.0.0.1', extDir, extLink, vsix, env = {}, settings, logTo, keepRunDir = false, readyTimeoutS = 60 } = {}) {
  port ??= await freePort({ host });
  reapStaleRunDirs();
  // Own state dir per runner process: never touches another server's run dir, even on the same port.
  mkdirSync(CS_RUN_ROOT, { recursive: true });
  const runDir = join(CS_RUN_ROOT, `run-${port}-${process.pid}`);
  const serverEnv = { ...process.env, ...env, PORT: String(port), HOST: host, RUN_DIR: runDir, CS_ROOT, READY_TIMEOUT: String(readyTimeoutS), OWNER_PID: String(process.pid) };
  delete serverEnv.EXT_DIR; delete serverEnv.EXT_LINK; delete serverEnv.VSIX; delete serverEnv.USER_SETTINGS;
  if (extDir) serverEnv.EXT_DIR = extDir;
  if (extLink) serverEnv.EXT_LINK = '1';
  if (vsix) serverEnv.VSIX = vsix;
  let settingsFile;
  if (settings) {
    settingsFile = join(mkdtempSync(join(tmpdir(), 'ffn-lens-settings-')), 'settings.json');
    writeFileSync(settingsFile, JSON.stringify(settings));
    serverEnv.USER_SETTINGS = settingsFile;
  }
  const stopEnv = { ...process.env, PORT: String(port), RUN_DIR: runDir, CS_ROOT };
  const stopArgs = [join(VSCODE_SCRIPTS, 'stop-code-server.sh'), ...(keepRunDir ? [] : ['--clean'])];
  const saveLog = () => {
    if (!logTo) return;
    try { mkdirSync(dirname(logTo), { recursive: true }); copyFileSync(join(runDir, 'code-server.log'), logTo); } catch { /* no log */ }
  };
  let stopped = false;
  const stopSync = () => {
    if (stopped) return; stopped = true;
    saveLog(); spawnSync('bash', stopArgs, { env: stopEnv, stdio: 'inherit' });
    if (settingsFile) rmSync(dirname(settingsFile), { recursive: true, force: true });
  };
  const stop = async () => {
    if (stopped) return; stopped = true;
    saveLog();
    await run('bash', stopArgs, { env: stopEnv, timeoutMs: 30000, label: 'stop-code-server.sh' });
    if (settingsFile) rmSync(dirname(settingsFile), { recursive: true, force: true });
  };
  // Registered before starting, so a Ctrl+C during start-up stops it as well.
  const unregister = onCleanup(stop, stopSync);
  const t0 = Date.now();
  const r = await run('bash', [join(VSCODE_SCRIPTS, 'start-code-server.sh'), workspace], { env: serverEnv, timeoutMs: (readyTimeoutS + 60) * 1000, label: 'start-code-server.sh' });
  if (r.code !== 0) { await stop(); unregister(); throw new Error(`code-server did not start on ${host}:${port} (see the messages above)`); }
  const pid = Number(readFileSync(join(runDir, 'code-server.pid'), 'utf8'));
  const url = `http://${host}:${port}`;
  log(`code-server ready on ${url} in ${seconds(Date.now() - t0)}`);
  return {
    url, port, host, pid, runDir, workspace,
    folderUrl: `${url}/?folder=${encodeURIComponent(workspace)}`,
    userSettings: join(runDir, 'ud', 'User', 'settings.json'),
    log: join(runDir, 'code-server.log'),
    alive: () => { try { process.kill(pid, 0); return true; } catch { return false; } },
    stop: async () => { await stop(); unregister(); },
  };
}
