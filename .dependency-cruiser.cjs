// The layer rule of docs/architecture.md, checked: `npm run check:layers` (run by `npm test`, so CI).
// Each folder of src/ may import only the folders its row of the table names (and itself); nothing
// imports upward, nothing goes round in a circle, Node's built-ins are imported only by the Node
// edge files listed below, and the webview reaches only the protocol's types, the id vocabulary,
// src/common/ and its own files. `import type` counts like any import (tsPreCompilationDeps),
// except where a row says "types": there only `import type` is allowed.
// A change of the table is a change of this file and of the table together; there are no exceptions.

/** What each folder of src/ may import besides itself and src/common/ (the table's "imports" column). */
const LAYERS = {
  common: [],
  core: [],
  protocol: ['core'], // types only (rule protocol-is-types)
  tokenizer: [],
  model: ['core', 'protocol'],
  checkpoint: ['core', 'protocol', 'model', 'tokenizer'],
  lenses: ['core'],
  worker: ['core', 'protocol', 'model', 'checkpoint', 'lenses', 'tokenizer'],
  cli: ['core', 'model', 'checkpoint', 'lenses', 'tokenizer', 'worker'],
  host: ['protocol'],
  compute: ['protocol', 'host'],
  editor: ['protocol', 'model', 'compute', 'host'],
  panel: ['protocol', 'model', 'compute', 'host', 'editor'],
  commands: ['protocol', 'model', 'checkpoint', 'compute', 'host', 'editor', 'panel'],
};

/** Tests run on Node alone (mocha), in no bundle: they may import any layer and Node's built-ins (a lens test reads a real checkpoint). */
const TESTS = '(\\.test\\.ts$|^test/)';

/**
 * The only files that import Node's built-ins (fs, path, os, v8, worker_threads, …): the Node
 * entries and their edges. The web build (src/extensionWeb.ts, src/worker/webWorker.ts, webview/)
 * reaches none of them. Tests run on Node only (mocha) and may use them too.
 */
const NODE_EDGES = [
  '^src/extension\\.ts$',
  '^src/cli/',
  '^src/checkpoint/nodeFiles\\.ts$',
  '^src/commands/nodeLocalFiles\\.ts$',
  '^src/compute/nodeWorkerPort\\.ts$',
  '^src/tokenizer/nodeTokenizerMain\\.ts$',
  '^src/tokenizer/nodeTokenizerThread\\.ts$',
  '^src/worker/computeWorker\\.ts$',
  '^src/worker/matmulHelperThread\\.ts$',
  '^src/worker/nodeMatmulHelper\\.ts$',
  '^src/worker/nodeRunBudget\\.ts$',
  '^src/worker/nodeWasmFeatures\\.ts$',
  TESTS,
];

/** The web build's entries: what they reach must not be a Node built-in. */
const WEB_ENTRIES = ['^src/extensionWeb\\.ts$', '^src/worker/webWorker\\.ts$', '^webview/main\\.ts$'];

/** The extension host's files: the only ones that import vscode. */
const HOST = ['^src/[^/]+\\.ts$', '^src/(host|compute|editor|panel|commands)/'];

const { builtinModules } = require('node:module');

const TYPES = ['type-only', 'type-import'];
const alt = (xs) => `(${xs.join('|')})`;

const layerRules = Object.entries(LAYERS).map(([folder, allowed]) => ({
  name: `layer-${folder}`,
  comment: `src/${folder}/ may import only ${[...allowed, 'common'].map((f) => `src/${f}/`).join(', ')} and itself (docs/architecture.md)`,
  severity: 'error',
  from: { path: `^src/${folder}/`, pathNot: TESTS },
  to: { path: '^(src|webview)/', pathNot: `^src/${alt([folder, 'common', ...allowed])}/` },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'layer-known',
      comment: 'every folder of src/ has a row in the table (and in LAYERS above): a new folder is placed there first',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: `^src/${alt(Object.keys(LAYERS))}/` },
      to: {},
    },
    {
      name: 'entries-on-top',
      comment: 'src/*.ts (the two entries and what both run) import anything in src/ but are imported by no folder',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: TESTS },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'src-not-webview',
      comment: 'src/ never imports the webview: the panel and the worker share src/protocol/ and src/common/',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^webview/' },
    },
    {
      name: 'webview-own',
      comment: 'webview/ imports only its own files, src/protocol/ (types), src/common/ and core\'s pure description modules (ids.ts: the vocabulary; shownFirst.ts: what a new panel shows; stageShow.ts/stageView.ts: what the plan says of a stage; activationKinds.ts/activationFns.ts: the activations by name and as scalar functions, which the chart draws), which import nothing outside core',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^src/', pathNot: '^src/(protocol/|common/|core/(ids|shownFirst|stageShow|stageView|activationKinds|activationFns)\.ts$)' },
    },
    {
      name: 'webview-packages',
      comment: 'the webview\'s npm packages: @vscode-elements/elements and chart.js',
      severity: 'error',
      from: { path: '^webview/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], pathNot: 'node_modules/(@vscode-elements/elements|chart\\.js)/' },
    },
    {
      name: 'tests-not-shipped',
      comment: 'no shipped file imports a test (test helpers for other tests are named testing.ts, not *.test.ts)',
      severity: 'error',
      from: { pathNot: TESTS },
      to: { path: TESTS },
    },
    {
      name: 'protocol-is-types',
      comment: 'src/protocol/ holds types only: it is imported, and imports, with `import type`',
      severity: 'error',
      from: {},
      to: { path: '^src/protocol/', dependencyTypesNot: TYPES },
    },
    {
      name: 'protocol-imports-types',
      comment: 'src/protocol/ re-exports core\'s stage types with `export type`, and imports nothing at run time',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { path: '^src/', dependencyTypesNot: TYPES },
    },
    {
      name: 'vscode-in-host',
      comment: 'only the extension host imports vscode: the worker, the CLI and the webview run without it',
      severity: 'error',
      from: { pathNot: alt(HOST) },
      to: { path: '(^|/)node_modules/@types/vscode/' },
    },
    {
      name: 'node-builtins-at-edges',
      comment: 'Node built-ins only in the Node edge files (the web build has none): list a new one in NODE_EDGES',
      severity: 'error',
      from: { pathNot: alt(NODE_EDGES) },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'web-build-without-node',
      comment: 'nothing the web build reaches (the web host, the web worker, the webview) imports a Node built-in',
      severity: 'error',
      from: { path: alt(WEB_ENTRIES) },
      to: { path: `^(node:)?${alt(builtinModules.map((m) => m.replace(/[/.]/g, '\\$&')))}$`, reachable: true },
    },
    {
      name: 'no-circular',
      comment: 'no import circles: a circle is one module in several files',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resolvable',
      comment: 'every import resolves to a file (a moved file leaves no dangling import)',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    // node_modules may be a link (worktrees): keep its paths as node_modules/…
    preserveSymlinks: true,
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
