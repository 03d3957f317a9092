#!/usr/bin/env node
// Random live edits through the worker's document session, as many as asked, each checked bit for
// bit against a from-scratch read and forward pass (test/helpers/editFuzz.ts; `npm test` runs a
// fixed-seed few thousand). Reports per model: events, valid states, incremental edits, wrong
// states, exceptions; exit status 1 if any state was wrong or anything threw.
//
//   node scripts/fuzz-edits.mjs [--events 100000] [--seed 1] [--golden] [--only NAME] [--no-build]
//     --events  per model (spread over its formattings and both matmul kernels); default 100000
//     --golden  the reference cases too, not only the samples
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs, REPO } from './vscode/lib.mjs';

const { flags } = parseArgs(process.argv.slice(2), ['events', 'seed', 'only']);
const EVENTS = Number(flags.events ?? 100000);
const SEED = Number(flags.seed ?? 1);
if (!flags['no-build']) execFileSync(process.execPath, ['esbuild.mjs', '--tests'], { cwd: REPO, stdio: 'inherit' });

const require = createRequire(import.meta.url);
const { formattings, fuzzEdits } = require(join(REPO, 'out/test/helpers/editFuzz.js'));
const { tsKernel } = require(join(REPO, 'out/src/core/kernel.js'));
const { createWasmKernel } = require(join(REPO, 'out/src/core/wasm/index.js'));
const kernels = [['ts', tsKernel], ['wasm', createWasmKernel()]].filter(([, k]) => k);

const models = readdirSync(join(REPO, 'samples')).filter((f) => f.endsWith('.ffn.json')).sort()
  .map((f) => [f, readFileSync(join(REPO, 'samples', f), 'utf8')])
  .filter(([, t]) => !/"checkpoint"\s*:/.test(t)); // (inline models: a checkpoint's file has no numbers of its own to edit)
if (flags.golden) {
  const dir = join(REPO, 'test/fixtures/golden');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) models.push([f.replace(/\.json$/, '.ffn.json'), JSON.stringify(JSON.parse(readFileSync(join(dir, f), 'utf8')).model, null, 2)]);
}

let bad = 0;
const t0 = Date.now();
console.log(`${EVENTS} random edit events per model, kernels ${kernels.map(([k]) => k).join(' + ')}, seed ${SEED}\n`);
console.log('model                                  events    valid  incremental  wrong  exceptions   time');
for (const [name, text] of models) {
  if (flags.only && !name.includes(String(flags.only))) continue;
  const t1 = Date.now();
  const forms = formattings(text);
  const runs = forms.length * kernels.length;
  const sum = { events: 0, valid: 0, incremental: 0, wrong: 0, exceptions: 0, failures: [] };
  let i = 0;
  for (const [, t] of forms) {
    for (const [, kernel] of kernels) {
      const n = Math.floor(EVENTS / runs) + (i < EVENTS % runs ? 1 : 0);
      // (in runs of 2000 events: a long run drifts far from the model as shipped)
      for (let done = 0, part = 0; done < n; part++) {
        const r = fuzzEdits(name, t, kernel, SEED * 1e6 + i * 1e3 + part, Math.min(2000, n - done));
        done += r.events;
        for (const k of ['events', 'valid', 'incremental', 'wrong', 'exceptions']) sum[k] += r[k];
        sum.failures.push(...r.failures);
      }
      i++;
    }
  }
  bad += sum.wrong + sum.exceptions;
  console.log(`${name.padEnd(36)} ${String(sum.events).padStart(8)} ${String(sum.valid).padStart(8)} ${String(sum.incremental).padStart(12)} ${String(sum.wrong).padStart(6)} ${String(sum.exceptions).padStart(11)} ${((Date.now() - t1) / 1000).toFixed(0).padStart(5)} s`);
  for (const f of sum.failures.slice(0, 3)) console.log(`  ${f.split('\n')[0]}`);
}
console.log(`\n${bad === 0 ? 'no wrong state and no exception' : `${bad} wrong states or exceptions`} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
process.exit(bad === 0 ? 0 : 1);
