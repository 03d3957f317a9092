#!/usr/bin/env node
// npm run demo: FFN Lens in a real VS Code (code-server 4.100.3 = VS Code 1.100.3) in your browser.
//   builds the extension, runs scripts/vscode/setup.sh (idempotent), starts code-server on
//   127.0.0.1:8080 (or the next free port) with the extension installed from this repository (a
//   symlink, so `npm run build` + "Developer: Reload Window" picks up changes) and samples/ open,
//   and FFN_LENS_OPEN=<samples/michael-jordan.ffn.json> so the extension opens that model with its
//   panel beside. The samples are a copy (.vscode-test/demo-samples/), so edits never touch the
//   repository's. Runs until Ctrl+C, then stops the server.
//
//   npm run demo [-- --port N] [--host ADDR] [--folder DIR] [--open FILE] [--fresh] [--web] [--no-build] [--no-setup]
//   --web: the extension runs in the web worker extension host (as on vscode.dev: in the browser,
//   its compute worker a Web Worker, files through the host's workspace.fs) instead of the Node
//   one. That host has no environment: open a model file and run "FFN Lens: Visualize FFN".
//   --fresh: copy the samples again (the copies keep every edit you save across runs until then;
//   auto save is off, see demoSettings.mjs)
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { demoSettings } from './demoSettings.mjs';
import { FIXTURE_WORKSPACE, REPO, RESULTS, build, ensureSetup, exit, fail, freePort, isExiting, log, parseArgs, portFree, seconds, setSignalExitCode, setTag, startServer } from './vscode/lib.mjs';

setTag('demo');
setSignalExitCode(0);   // Ctrl+C is how a demo ends
const { flags } = parseArgs(process.argv.slice(2), ['port', 'host', 'folder', 'open']);
if (flags.help || flags.h) {
  console.log('usage: npm run demo [-- --port N] [--host ADDR] [--folder DIR] [--open FILE] [--fresh] [--web] [--no-build] [--no-setup]');
  process.exit(0);
}
const SAMPLES = join(REPO, 'samples');
const FEATURED = 'michael-jordan.ffn.json';

/**
 * The samples, copied once into the git-ignored .vscode-test/demo-samples/: edit them freely in the
 * demo (edits stay there across runs) without touching the repository's own. A sample missing
 * from the copy (new in the repository, or deleted there) is copied again.
 */
function demoCopy() {
  const dir = join(REPO, '.vscode-test', 'demo-samples');
  if (flags.fresh) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(SAMPLES)) {
    if (existsSync(join(dir, f))) continue;
    if (statSync(join(SAMPLES, f)).isDirectory()) cpSync(join(SAMPLES, f), join(dir, f), { recursive: true }); // (a checkpoint folder)
    else copyFileSync(join(SAMPLES, f), join(dir, f));
  }
  return dir;
}

const models = (dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => /\.ffn\.jsonc?$/.test(f)).sort() : []);

async function main() {
  const t0 = Date.now();
  const folder = resolve(flags.folder ?? (models(SAMPLES).length ? demoCopy() : FIXTURE_WORKSPACE));
  if (!existsSync(folder)) throw new Error(`folder ${folder} does not exist`);
  const found = models(folder);
  const open = flags.open ? resolve(String(flags.open)) : found.includes(FEATURED) ? join(folder, FEATURED) : found[0] ? join(folder, found[0]) : undefined;
  if (open && !existsSync(open)) throw new Error(`--open ${open} does not exist`);

  if (!flags['no-build']) await build({ tests: false });
  if (!flags['no-setup']) await ensureSetup();

  const host = String(flags.host ?? process.env.HOST ?? '127.0.0.1');
  let port;
  if (flags.port ?? process.env.PORT) {
    port = Number(flags.port ?? process.env.PORT);
    if (!(await portFree(port, host))) throw new Error(`port ${host}:${port} is in use (leave --port out to take the next free one from 8080)`);
  } else {
    port = await freePort({ preferred: 8080, host });
  }
  const server = await startServer({
    workspace: folder, port, host,
    extDir: REPO, extLink: true,            // installed as ffn-lens.ffn-lens-<version> -> this repo
    env: open ? { FFN_LENS_OPEN: open } : {},
    settings: demoSettings({ web: Boolean(flags.web) }),
    logTo: join(RESULTS, 'demo', 'code-server.log'),
  });
  const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `http://${shownHost}:${port}/?folder=${/^[\w./-]+$/.test(folder) ? folder : encodeURIComponent(folder)}`;
  const line = '='.repeat(Math.min(100, url.length + 4));
  console.log(`\n${line}\n  FFN Lens demo (VS Code 1.100.3 in the browser) is ready in ${seconds(Date.now() - t0)}:\n\n  ${url}\n\n` +
    `  folder: ${folder}\n` +
    (flags.web
      ? `  host:   the web worker extension host (--web): open ${open ? open.slice(folder.length + 1) : 'a model file'} and run "FFN Lens: Visualize FFN"\n`
      : `  opens:  ${open ?? '(no model file found)'}\n`) +
    (host === '0.0.0.0' ? '  WARNING: listening on all interfaces with no password.\n' : '') +
    `  Press Ctrl+C to stop.\n${line}\n`);

  // Run until Ctrl+C (lib.mjs stops the server on the signal) or until the server dies.
  await new Promise((res) => {
    const timer = setInterval(() => {
      if (!server.alive()) { clearInterval(timer); res(); }
    }, 2000);
  });
  if (isExiting()) return 0;
  fail(`code-server exited unexpectedly (log: ${join('test-results', 'demo', 'code-server.log')})`);
  return 1;
}

main().then((code) => exit(code), (err) => { if (!isExiting()) fail(err?.message ?? String(err)); return exit(1); });
