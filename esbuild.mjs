// One esbuild config, one entry per bundle (as vscode-hexeditor does):
//   dist/extension.js  host, node/cjs, `vscode` external
//   dist/worker.js     compute worker (worker_threads), node/cjs
//   dist/matmulHelper.js  the matmul kernel's second thread, started by the worker (node/cjs)
//   dist/tokenizerWorker.js  the tokenizers' thread, started by the worker and the CLI (node/cjs); on
//                      the web its iife's text is put into dist/web/worker.js, which starts it
//                      from a Blob (src/tokenizer/webTokenizerSource.ts)
//   dist/cli.js        `ffn-lens` command line
//   dist/webview.js    browser bundle for the panel (+ dist/webview.css)
//   dist/web/extension.js, dist/web/worker.js   the same host and worker for the web worker
//                      extension host (vscode.dev): browser/cjs (`vscode` external) and one iife
//   dist/bench.js      `npm run bench` (+ dist/bench-draw.js, the page it draws in); not with --production
//   dist/fuzz-checkpoints.js  the worker of `npm run fuzz:checkpoints`; not with --production
// `--tests` instead compiles src/, test/, webview/ and bench/host/ file by file into out/ for mocha.
// `--watch` rebuilds the bundles on change; `--production` minifies (what the .vsix ships).
import * as esbuild from 'esbuild';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

/** @type {import('esbuild').BuildOptions} */
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none' };
const node = { ...common, platform: 'node', format: 'cjs', target: 'node20', define: { __VERSION__: JSON.stringify(pkg.version) } };
const browser = { ...common, platform: 'browser', format: 'iife', target: 'chrome114' };

/**
 * The web tokenizer thread's bundle (src/tokenizer/webTokenizerMain.ts) as text, in place of
 * src/tokenizer/webTokenizerSource.ts's empty string in the web compute worker's bundle (which
 * starts it from a Blob); built again with that bundle, so --watch keeps it current.
 */
function tokenizerThreadSource() {
  return threadSource('tokenizer-thread-source', /webTokenizerSource\.ts$/, 'src/tokenizer/webTokenizerMain.ts', 'TOKENIZER_THREAD_SOURCE');
}

/** The same for the web matmul helper threads (src/worker/webMatmulHelperMain.ts → webMatmulHelperSource.ts). */
function matmulHelperSource() {
  return threadSource('matmul-helper-source', /webMatmulHelperSource\.ts$/, 'src/worker/webMatmulHelperMain.ts', 'MATMUL_HELPER_SOURCE');
}

function threadSource(name, filter, entry, constName) {
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, async () => {
        const r = await esbuild.build({ ...browser, sourcemap: false, entryPoints: [entry], write: false, metafile: true });
        return { contents: `export const ${constName} = ${JSON.stringify(r.outputFiles[0].text)};`, loader: 'js', watchFiles: Object.keys(r.metafile.inputs) };
      });
    },
  };
}

const product = [
  { ...node, entryPoints: { extension: 'src/extension.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...node, entryPoints: { worker: 'src/worker/computeWorker.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { matmulHelper: 'src/worker/matmulHelperThread.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { tokenizerWorker: 'src/tokenizer/nodeTokenizerMain.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  { ...browser, entryPoints: { webview: 'webview/main.ts' }, outdir: 'dist' },
  { ...common, entryPoints: { webview: 'webview/panel.css' }, outdir: 'dist' },
  { ...common, platform: 'browser', format: 'cjs', target: 'chrome114', entryPoints: { extension: 'src/extensionWeb.ts' }, outdir: 'dist/web', external: ['vscode'], define: { __VERSION__: JSON.stringify(pkg.version) } },
  { ...browser, entryPoints: { worker: 'src/worker/webWorker.ts' }, outdir: 'dist/web', plugins: [tokenizerThreadSource(), matmulHelperSource()] },
];
const bench = [
  { ...node, entryPoints: { bench: 'bench/bench.ts' }, outdir: 'dist', external: ['playwright-core', '@tensorflow/*', 'onnxruntime-web', 'onnxruntime-node', 'protobufjs'] },
  { ...browser, entryPoints: { 'bench-draw': 'bench/drawPage.ts' }, outdir: 'dist' },
  // `npm run fuzz:checkpoints`'s worker process (scripts/fuzz-checkpoints.mjs): it loads dist/cli.js itself
  { ...node, entryPoints: { 'fuzz-checkpoints': 'test/helpers/checkpointFuzz/child.ts' }, outdir: 'dist' },
];
const bundles = production ? product : [...product, ...bench];

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** schemas/ffn-model.schema.json, generated from the reader's own format definition. */
async function writeSchema() {
  const r = await esbuild.build({ entryPoints: ['src/model/schema.ts'], bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'warning' });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', r.outputFiles[0].text)(mod, mod.exports, () => ({}));
  mkdirSync('schemas', { recursive: true });
  writeFileSync('schemas/ffn-model.schema.json', JSON.stringify(mod.exports.modelJsonSchema(), null, 2) + '\n');
}

if (args.has('--tests')) {
  // Unbundled, file by file, so test files import the real modules and mocha sees one file per suite.
  rmSync('out', { recursive: true, force: true });
  await esbuild.build({
    entryPoints: [...walk('src'), ...walk('test'), ...walk('webview'), ...walk('bench/host'), ...walk('bench/e2e')],
    outdir: 'out', outbase: '.', bundle: false, platform: 'node', format: 'cjs', target: 'node20',
    sourcemap: 'inline', logLevel: 'warning',
  });
} else if (args.has('--watch')) {
  const ctxs = await Promise.all(bundles.map((b) => esbuild.context(b)));
  await Promise.all(ctxs.map((c) => c.watch()));
  console.log('watching…');
} else {
  await Promise.all(bundles.map((b) => esbuild.build(b)));
  await writeSchema();
  if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755); // runnable as ./dist/cli.js too
}
