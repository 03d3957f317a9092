// Entry point of the integration tests inside a REAL VS Code extension host (extensionTestsPath).
// VS Code loads this module and awaits run(); a rejection means the run failed (exit code 1).
// Used by scripts/run-integration.mjs (code-server + chromium) and scripts/run-electron.mjs
// (@vscode/test-electron). Runs mocha (BDD: describe/it) over every *.test.js beside this file.
//
// Environment (inherited from the server that starts the extension host):
//   FFN_LENS_TEST_GREP      only run tests whose full title matches this regular expression
//   FFN_LENS_TEST_TIMEOUT   per-test timeout in ms (default 120000: a bound on a failure, not a speed check; a loaded machine is slow)
//   FFN_LENS_TEST_RESULTS   write a JSON summary of the run to this file
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) testFiles(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

interface Outcome { title: string; state: 'passed' | 'failed' | 'pending'; ms?: number; error?: string }

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',   // prints through console.log, which the extension host forwards to the runner
    color: false,
    timeout: Number(process.env.FFN_LENS_TEST_TIMEOUT) || 120_000,
    ...(process.env.FFN_LENS_TEST_GREP ? { grep: new RegExp(process.env.FFN_LENS_TEST_GREP) } : {}),
  });
  const files = testFiles(__dirname);
  for (const f of files) mocha.addFile(f);

  return new Promise((resolve, reject) => {
    const outcomes: Outcome[] = [];
    const finish = (failures: number): void => {
      const passed = outcomes.filter((o) => o.state === 'passed').length;
      const pending = outcomes.filter((o) => o.state === 'pending').length;
      const failed = Math.max(failures, outcomes.filter((o) => o.state === 'failed').length);
      const file = process.env.FFN_LENS_TEST_RESULTS;
      if (file) {
        try { writeFileSync(file, JSON.stringify({ passed, failed, pending, files, tests: outcomes }, null, 2)); } catch (e) { console.error(`could not write ${file}: ${e}`); }
      }
      console.log(`integration: ${passed} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
      if (failed > 0) reject(new Error(`${failed} integration test(s) failed`));
      else if (passed === 0) reject(new Error(`no integration test ran (files: ${files.length})`));
      else resolve();
    };
    try {
      const runner = mocha.run(finish);
      runner.on('pass', (t) => outcomes.push({ title: t.fullTitle(), state: 'passed', ...(t.duration !== undefined ? { ms: t.duration } : {}) }));
      runner.on('fail', (t, err) => outcomes.push({ title: t.fullTitle(), state: 'failed', error: String(err?.stack ?? err) }));
      runner.on('pending', (t) => outcomes.push({ title: t.fullTitle(), state: 'pending' }));
    } catch (e) {
      console.error(e);
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
