#!/usr/bin/env node
// End-to-end tests: Playwright (test/e2e/lib/workbench.ts) drives a REAL VS Code workbench
// (code-server 4.100.3 = VS Code 1.100.3) in Debian's chromium, with FFN Lens loaded from source.
//   1. build (node esbuild.mjs + --tests), 2. setup (scripts/vscode/setup.sh, idempotent),
//   3. code-server on a free 127.0.0.1 port with a throw-away copy of test/fixtures/workspace,
//   4. mocha (in Node) over out/test/e2e/**/*.test.js with the server described in the environment:
//        FFN_E2E_BASE_URL, FFN_E2E_WORKSPACE, FFN_E2E_FIXTURE, FFN_E2E_TMP, FFN_E2E_EXTENSION_PATH,
//        FFN_E2E_RESULTS_DIR, FFN_E2E_USER_SETTINGS (the server's settings.json), CHROMIUM;
//      each Workbench.open() works in its own copy of test/fixtures/workspace (under FFN_E2E_TMP)
//   5. the server is stopped whatever happens; exit status = mocha's.
//
//   --files GLOB: other mocha files than the e2e suite (the benchmark's keystroke run: bench/e2e/)
//   node scripts/run-e2e.mjs [--grep REGEX] [--files GLOB] [--no-build] [--no-setup] [--port N] [--timeout SECONDS]
//                            [--vsix FILE: the packaged extension installed, not this repo from source]
//                            [--settings FILE.json] [--headed] [-- extra mocha args]
// Results (screenshots, console logs, code-server.log): test-results/e2e/
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FIXTURE_WORKSPACE, REPO, RESULTS, build, devExtensionPath, ensureSetup, exit, fail, isExiting, log, makeTempDir, makeWorkspace, parseArgs, run, seconds, setTag, startServer } from './vscode/lib.mjs';

setTag('e2e');
const { flags, rest } = parseArgs(process.argv.slice(2), ['grep', 'port', 'timeout', 'settings', 'files', 'vsix']);
if (flags.help || flags.h) {
  console.log('usage: node scripts/run-e2e.mjs [--grep REGEX] [--no-build] [--no-setup] [--port N] [--timeout SECONDS] [--settings FILE.json] [--headed] [-- mocha args]');
  process.exit(0);
}
// (a guard against a hung run, not a speed limit: the whole suite takes ~10 min alone, 25-30 on a loaded machine)
const timeoutMs = Number(flags.timeout ?? process.env.FFN_E2E_TIMEOUT ?? 3600) * 1000;
const OUT = join(RESULTS, 'e2e');
const MOCHA = join(REPO, 'node_modules', 'mocha', 'bin', 'mocha.js');

async function main() {
  const t0 = Date.now();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  if (!flags['no-build']) await build({ tests: true });
  if (!existsSync(join(REPO, 'out', 'test', 'e2e', 'lib', 'workbench.js'))) throw new Error('out/test/e2e is missing: build with `node esbuild.mjs --tests`');
  if (!existsSync(MOCHA)) throw new Error('mocha is not installed: run `npm ci`');
  if (!flags['no-setup']) await ensureSetup();

  const workspace = makeWorkspace();
  const server = await startServer({
    workspace,
    port: flags.port ? Number(flags.port) : undefined,
    logTo: join(OUT, 'code-server.log'),
    ...(flags.settings ? { settings: JSON.parse(readFileSync(String(flags.settings), 'utf8')) } : {}),
    // --vsix: the packaged extension installed in the server instead of this repo loaded from source
    ...(flags.vsix ? { vsix: resolve(String(flags.vsix)) } : {}),
  });

  const env = {
    ...process.env,
    FFN_E2E_BASE_URL: server.url,
    FFN_E2E_WORKSPACE: workspace,
    FFN_E2E_FIXTURE: makeWorkspace(FIXTURE_WORKSPACE, 'ffn-lens-fixture-'),   // a snapshot: tests never touch the repo's copy
    FFN_E2E_TMP: makeTempDir('ffn-lens-e2e-'),   // per-window workspace copies; deleted at the end
    FFN_E2E_EXTENSION_PATH: flags.vsix ? '' : devExtensionPath(),   // a symlink to this repo, see lib.mjs
    FFN_E2E_RESULTS_DIR: OUT,
    FFN_E2E_USER_SETTINGS: server.userSettings,
    CHROMIUM: process.env.CHROMIUM || '/usr/bin/chromium',
    NODE_OPTIONS: [process.env.NODE_OPTIONS, '--enable-source-maps'].filter(Boolean).join(' '),
    ...(flags.headed ? { HEADED: '1' } : {}),
  };
  const args = [MOCHA, '--no-config', '--no-package', '--reporter', 'spec', '--timeout', '120000', '--slow', '20000',
    ...(flags.grep ? ['--grep', String(flags.grep)] : []), ...rest, String(flags.files ?? 'out/test/e2e/**/*.test.js')];
  log(`mocha out/test/e2e/**/*.test.js against ${server.url} (workspace ${workspace})`);
  const tRun = Date.now();
  const r = await run(process.execPath, args, { env, timeoutMs, label: 'e2e mocha run' });
  if (isExiting()) return 1;
  if (!server.alive()) fail('code-server exited during the run (see test-results/e2e/code-server.log)');
  log(`e2e ${r.code === 0 ? 'passed' : 'FAILED'}${r.timedOut ? ` (timed out after ${seconds(timeoutMs)})` : ''}: run ${seconds(Date.now() - tRun)}, total ${seconds(Date.now() - t0)}; screenshots in test-results/e2e/`);
  return r.code === 0 ? 0 : 1;
}

main().then((code) => exit(code), (err) => { if (!isExiting()) fail(err?.message ?? String(err)); return exit(1); });
