#!/usr/bin/env node
// Integration tests inside a REAL VS Code extension host (npm run test:integration):
//   1. build (node esbuild.mjs + --tests), 2. setup (scripts/vscode/setup.sh, idempotent),
//   3. code-server on a free 127.0.0.1 port with a throw-away copy of test/fixtures/workspace,
//   4. chromium opens the workbench with ?payload=[extensionDevelopmentPath = this repo,
//      extensionTestsPath = out/test/integration/index.js]; the extension host runs mocha and its
//      console is relayed here; the exit code comes back through window.codeAutomationExit,
//   5. the server is stopped whatever happens; exit status = the suite's.
//
//   node scripts/run-integration.mjs [--grep REGEX] [--no-build] [--no-setup] [--port N]
//                                    [--timeout SECONDS] [--verbose] [--tests out/…/index.js]
// Results: test-results/integration/{results.json,console.log,code-server.log,failure.png}
import { mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { format } from 'node:util';
import { join } from 'node:path';
import { REPO, RESULTS, build, devExtensionPath, ensureSetup, exit, fail, isExiting, log, makeWorkspace, onCleanup, parseArgs, seconds, setTag, startServer } from './vscode/lib.mjs';

setTag('integration');
const { flags } = parseArgs(process.argv.slice(2), ['grep', 'port', 'timeout', 'tests']);
if (flags.help || flags.h) {
  console.log('usage: node scripts/run-integration.mjs [--grep REGEX] [--no-build] [--no-setup] [--port N] [--timeout SECONDS] [--verbose]');
  process.exit(0);
}
const timeoutMs = Number(flags.timeout ?? process.env.FFN_INTEGRATION_TIMEOUT ?? 600) * 1000; // (a guard against a stuck host: the suite waits ~3 min for VS Code to let a closed document go, and ran past 240 s on a loaded machine)
const OUT = join(RESULTS, 'integration');
// Workbench start-up chatter that is relayed along with the extension host's console (shown with --verbose;
// always kept in test-results/integration/console.log).
const WORKBENCH_NOISE = [
  /^Resolv(ing|ed) connection token/, /^Creating a socket/, /^Updating additional builtin extensions cache/,
  /^\[Service Worker\]/, /^ChatSessionStore:/, /ENOTFOUND (open-vsx\.org|[a-z.]*marketplace|[a-z.]*visualstudio\.com)/,
];
// --tests: another extensionTestsPath entry (the benchmark's host measurements use this runner too)
const TESTS_ENTRY = flags.tests ? join(REPO, String(flags.tests)) : join(REPO, 'out', 'test', 'integration', 'index.js');

async function main() {
  const t0 = Date.now();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  if (!flags['no-build']) await build({ tests: true });
  if (!existsSync(TESTS_ENTRY)) throw new Error(`${TESTS_ENTRY} is missing: build with 'node esbuild.mjs --tests'`);
  if (!flags['no-setup']) await ensureSetup();

  const workspace = makeWorkspace();
  const resultsFile = join(OUT, 'results.json');
  const server = await startServer({
    workspace,
    port: flags.port ? Number(flags.port) : undefined,
    logTo: join(OUT, 'code-server.log'),
    env: {
      FFN_LENS_TEST_RESULTS: resultsFile,
      ...(flags.grep ? { FFN_LENS_TEST_GREP: String(flags.grep) } : {}),
    },
  });

  // The Playwright helpers are TypeScript in test/e2e/lib, compiled into out/ by the --tests build.
  const { launchBrowser, workbenchUrl, enableDevPayload } = createRequire(import.meta.url)(join(REPO, 'out', 'test', 'e2e', 'lib', 'workbench.js'));
  const browser = await launchBrowser({ handleSignals: false });
  onCleanup(() => browser.close(), undefined);
  const { page } = browser;

  let finished;
  const done = new Promise((res) => { finished = res; });
  // The same hooks @vscode/test-web uses: the workbench reports the extension host's console and the
  // test run's exit code through these.
  const consoleLog = [];
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    const text = format(...(Array.isArray(args) ? args : [args]));
    consoleLog.push(`[${type}] ${text}`);
    if (!flags.verbose && WORKBENCH_NOISE.some((re) => re.test(text))) return;
    for (const l of text.split('\n')) console.log(`  ${l}`);
  });
  onCleanup(async () => writeFileSync(join(OUT, 'console.log'), consoleLog.join('\n') + '\n'), undefined);
  await page.exposeFunction('codeAutomationExit', (code) => finished({ code: Number(code) }));
  page.on('pageerror', (e) => log(`page error: ${e.message}`));
  page.on('crash', () => finished({ error: 'the workbench page crashed' }));
  page.on('close', () => finished({ error: 'the workbench page closed before the tests finished' }));
  await enableDevPayload(page);

  const url = workbenchUrl({ baseUrl: server.url, folder: workspace, extensionDevelopmentPath: devExtensionPath(), extensionTestsPath: TESTS_ENTRY });
  log(`running out/test/integration/**/*.test.js in the extension host of VS Code 1.100.3 (${server.url})`);
  const tRun = Date.now();
  await page.goto(url, { timeout: 60000, waitUntil: 'domcontentloaded' });
  const watchdog = setInterval(() => { if (!server.alive()) finished({ error: 'code-server exited during the run' }); }, 1000);
  const timer = setTimeout(() => finished({ error: `the extension tests did not finish within ${seconds(timeoutMs)} (extension host stuck, or the payload was ignored; see ${join('test-results', 'integration')})` }), timeoutMs);
  const result = await done;
  clearTimeout(timer); clearInterval(watchdog);

  if (result.error || result.code !== 0) await page.screenshot({ path: join(OUT, 'failure.png') }).catch(() => {});
  let summary = '';
  if (existsSync(resultsFile)) {
    const r = JSON.parse(readFileSync(resultsFile, 'utf8'));
    summary = ` (${r.passed} passed, ${r.failed} failed${r.pending ? `, ${r.pending} skipped` : ''})`;
  } else {
    writeFileSync(resultsFile, JSON.stringify({ error: result.error ?? `exit code ${result.code}, no results written` }, null, 2));
  }
  if (result.error) {
    fail(result.error);
    return 1;
  }
  log(`extension tests ${result.code === 0 ? 'passed' : 'FAILED'}${summary}: run ${seconds(Date.now() - tRun)}, total ${seconds(Date.now() - t0)}`);
  return result.code === 0 ? 0 : 1;
}

main().then((code) => exit(code), (err) => { if (!isExiting()) fail(err?.message ?? String(err)); return exit(1); });
