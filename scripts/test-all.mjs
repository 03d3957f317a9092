#!/usr/bin/env node
// npm test: everything, in order, with a summary; exit status 1 if anything failed.
//   build (node esbuild.mjs) · typecheck (npm run typecheck) · layers (npm run check:layers: the
//   layer rule of docs/architecture.md, .dependency-cruiser.cjs) · unit (npm run test:unit) ·
//   setup (scripts/vscode/setup.sh: chromium + code-server, only what is missing) ·
//   integration (scripts/run-integration.mjs) · e2e (scripts/run-e2e.mjs) · e2e-web (the same
//   harness with the extension forced into the web worker extension host: test/e2e-web/) · package
//   (the .vsix) · vsix-node, vsix-web (that .vsix installed in code-server: the smoke suite in the
//   Node host, the web suite in the web worker host; the 498 MB read of largeCheckpoint runs once, in e2e-web)
// Later steps still run after a failure (so one run reports everything), except that a failed build
// skips the tests and a failed setup skips integration and e2e.
//
//   node scripts/test-all.mjs [--skip step,step] [--only step,step]
import { join } from 'node:path';
import { REPO, exit, fail, isExiting, parseArgs, run, seconds, setTag } from './vscode/lib.mjs';

setTag('test-all');
const { flags } = parseArgs(process.argv.slice(2), ['skip', 'only']);
const list = (v) => (v ? String(v).split(',').map((s) => s.trim()).filter(Boolean) : []);
const skip = new Set(list(flags.skip));
const only = new Set(list(flags.only));

const node = process.execPath;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const MIN = 60000;
// (the steps' time limits guard against a hung step; a loaded machine takes two or three times as long)
const STEPS = [
  { name: 'build', cmd: node, args: ['esbuild.mjs'], timeoutMs: 3 * MIN },
  { name: 'typecheck', cmd: npm, args: ['run', '--silent', 'typecheck'], timeoutMs: 5 * MIN },
  { name: 'layers', cmd: npm, args: ['run', '--silent', 'check:layers'], timeoutMs: 3 * MIN },
  { name: 'unit', cmd: npm, args: ['run', '--silent', 'test:unit'], timeoutMs: 20 * MIN, needs: ['build'], tests: true },
  { name: 'setup', cmd: 'bash', args: [join('scripts', 'vscode', 'setup.sh')], timeoutMs: 30 * MIN },
  { name: 'integration', cmd: node, args: [join('scripts', 'run-integration.mjs'), '--no-setup'], timeoutMs: 15 * MIN, needs: ['build', 'setup'], tests: true },
  { name: 'e2e', cmd: node, args: [join('scripts', 'run-e2e.mjs'), '--no-setup'], timeoutMs: 60 * MIN, needs: ['build', 'setup'], tests: true },
  // (Restricted Mode: code-server started with Workspace Trust on, which the other e2e runs have off)
  { name: 'e2e-restricted', cmd: node, args: [join('scripts', 'run-e2e.mjs'), '--no-setup', '--settings', join('test', 'e2e-restricted', 'settings.json'), '--files', 'out/test/e2e-restricted/**/*.test.js'], timeoutMs: 15 * MIN, needs: ['build', 'setup'], tests: true },
  // (largeCheckpoint.test.ts reads 498 MB three times, ~7 minutes on 2 busy cores: in e2e-web only)
  { name: 'e2e-web', cmd: node, args: [join('scripts', 'run-e2e.mjs'), '--no-setup', '--settings', join('test', 'e2e-web', 'settings.json'), '--files', 'out/test/e2e-web/**/*.test.js'], timeoutMs: 30 * MIN, needs: ['build', 'setup'], tests: true },
  // (last: packaging builds dist/ again, minified, as the .vsix ships it)
  { name: 'package', cmd: npm, args: ['run', '--silent', 'package'], timeoutMs: 5 * MIN, needs: ['build'] },
  { name: 'vsix-node', cmd: node, args: [join('scripts', 'run-e2e.mjs'), '--no-setup', '--no-build', '--vsix', 'ffn-lens.vsix', '--files', 'out/test/e2e/smoke.test.js'], timeoutMs: 20 * MIN, needs: ['package', 'setup'], tests: true },
  { name: 'vsix-web', cmd: node, args: [join('scripts', 'run-e2e.mjs'), '--no-setup', '--no-build', '--vsix', 'ffn-lens.vsix', '--settings', join('test', 'e2e-web', 'settings.json'), '--files', 'out/test/e2e-web/web*.test.js'], timeoutMs: 30 * MIN, needs: ['package', 'setup'], tests: true },
];

/** Mocha's closing counts in a step's output (the last ones printed). */
function counts(output) {
  const last = (re) => { let m, v; const g = new RegExp(re, 'gm'); while ((m = g.exec(output))) v = Number(m[1]); return v; };
  const passed = last(String.raw`^\s*(\d+) passing\b`);
  const failed = last(String.raw`^\s*(\d+) failing\b`);
  const pending = last(String.raw`^\s*(\d+) pending\b`);
  return passed === undefined && failed === undefined ? undefined : { passed: passed ?? 0, failed: failed ?? 0, pending: pending ?? 0 };
}

async function main() {
  const t0 = Date.now();
  const results = [];
  const status = new Map();
  for (const step of STEPS) {
    if ((only.size && !only.has(step.name)) || skip.has(step.name)) { results.push({ step, state: 'skipped', why: 'not selected' }); continue; }
    const blocker = (step.needs ?? []).find((n) => status.get(n) === 'FAILED');
    if (blocker) { results.push({ step, state: 'skipped', why: `${blocker} failed` }); continue; }
    // The runners run setup.sh themselves unless the setup step just did.
    const args = status.get('setup') === 'ok' ? step.args : step.args.filter((a) => a !== '--no-setup');
    console.log(`\n[test-all] ── ${step.name}: ${[step.cmd === node ? 'node' : step.cmd, ...args].join(' ')}`);
    const r = await run(step.cmd, args, { cwd: REPO, timeoutMs: step.timeoutMs, capture: true, label: step.name });
    if (isExiting()) return 1;
    const state = r.code === 0 ? 'ok' : 'FAILED';
    status.set(step.name, state);
    results.push({ step, state, ms: r.ms, counts: step.tests ? counts(r.output) : undefined, why: r.timedOut ? `timed out after ${seconds(step.timeoutMs)}` : undefined });
  }

  let passed = 0; let failed = 0; let pending = 0;
  console.log(`\n[test-all] ── summary (${seconds(Date.now() - t0)})`);
  for (const r of results) {
    const c = r.counts;
    if (c) { passed += c.passed; failed += c.failed; pending += c.pending; }
    if (r.state === 'FAILED' && !(c && c.failed > 0)) failed += 1;   // a step that failed without a failing test
    const detail = [c ? `${c.passed} passed, ${c.failed} failed${c.pending ? `, ${c.pending} pending` : ''}` : '', r.why ?? ''].filter(Boolean).join('; ');
    console.log(`  ${r.step.name.padEnd(12)} ${r.state.padEnd(8)} ${r.ms !== undefined ? seconds(r.ms).padStart(7) : '      -'}  ${detail}`);
  }
  const bad = results.filter((r) => r.state === 'FAILED').map((r) => r.step.name);
  if (bad.length) fail(`failed: ${bad.join(', ')}`);
  console.log(`test-all: ${passed} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
  return bad.length ? 1 : 0;
}

main().then((code) => exit(code), (err) => { if (!isExiting()) fail(err?.message ?? String(err)); return exit(1); });
