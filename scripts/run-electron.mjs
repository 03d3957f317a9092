#!/usr/bin/env node
// The integration suite (out/test/integration) in desktop VS Code through @vscode/test-electron
// (npm run test:electron). For machines that can download VS Code; in this sandbox the download
// fails and this says so in one line: use `npm run test:integration` (code-server) there.
//
//   node scripts/run-electron.mjs [--grep REGEX] [--no-build] [--vscode-version VERSION|stable|insiders]
// Linux without a display needs a virtual one, e.g.  xvfb-run -a npm run test:electron
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, RESULTS, build, devExtensionPath, exit, fail, isExiting, log, makeWorkspace, onCleanup, parseArgs, seconds, setTag } from './vscode/lib.mjs';

setTag('electron');
const { flags } = parseArgs(process.argv.slice(2), ['grep', 'vscode-version']);
if (flags.help || flags.h) {
  console.log('usage: node scripts/run-electron.mjs [--grep REGEX] [--no-build] [--vscode-version VERSION|stable|insiders]');
  process.exit(0);
}
const firstLine = (e) => String(e?.message ?? e).split('\n').find((l) => l.trim())?.trim() ?? String(e);

async function main() {
  const t0 = Date.now();
  let testElectron;
  try { testElectron = await import('@vscode/test-electron'); } catch { throw new Error('@vscode/test-electron is not installed: run `npm ci`'); }
  const { downloadAndUnzipVSCode, runTests } = testElectron;
  if (!flags['no-build']) await build({ tests: true });

  const version = String(flags['vscode-version'] ?? process.env.VSCODE_VERSION ?? 'stable');
  let vscodeExecutablePath;
  try {
    log(`getting VS Code ${version} (cache: .vscode-test/)…`);
    vscodeExecutablePath = await downloadAndUnzipVSCode({
      version, cachePath: join(REPO, '.vscode-test'), timeout: 20000,
      reporter: { report: (r) => { if (r.stage === 'resolvedVersion') log(`VS Code ${r.version}`); if (r.stage === 'newInstallComplete' || r.stage === 'foundMatchingInstall') log(`using ${r.downloadedPath}`); }, error: () => {}, done: () => {} },
    });
  } catch (e) {
    fail(`cannot download VS Code ${version} (${firstLine(e)}): this machine cannot reach the VS Code download servers; run the same suite with \`npm run test:integration\` (code-server) instead.`);
    return 1;
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    log('warning: no DISPLAY; if VS Code fails to start, run under a virtual display: xvfb-run -a npm run test:electron');
  }

  mkdirSync(RESULTS, { recursive: true });
  const workspace = makeWorkspace();
  const profile = mkdtempSync(join(tmpdir(), 'ffn-lens-electron-'));
  const removeProfile = () => rmSync(profile, { recursive: true, force: true });
  onCleanup(async () => removeProfile(), removeProfile);
  try {
    await runTests({
      vscodeExecutablePath,
      extensionDevelopmentPath: devExtensionPath(),
      extensionTestsPath: join(REPO, 'out', 'test', 'integration', 'index.js'),
      extensionTestsEnv: {
        FFN_LENS_TEST_RESULTS: join(RESULTS, 'electron-results.json'),
        ...(flags.grep ? { FFN_LENS_TEST_GREP: String(flags.grep) } : {}),
      },
      launchArgs: [workspace, '--user-data-dir', join(profile, 'ud'), '--extensions-dir', join(profile, 'exts'),
        '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes', '--disable-gpu', '--no-sandbox'],
    });
  } catch (e) {
    fail(`extension tests failed in VS Code ${version}: ${firstLine(e)}`);
    return 1;
  }
  log(`extension tests passed in ${seconds(Date.now() - t0)}`);
  return 0;
}

main().then((code) => exit(code), (err) => { if (!isExiting()) fail(firstLine(err)); return exit(1); });
