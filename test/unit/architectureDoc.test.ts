// docs/architecture.md kept true to the tree: every source file is named in the row of its folder
// in the layer table (src/<folder>/, the entries' `src/*.ts`, `webview/`), every folder of src/ has
// a row, and every file the document names exists (a path in full where it gives one, else by its
// name). A new file is a new word in its row, in the same commit.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/fixtures';

const DOC = 'docs/architecture.md';

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(REPO, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(REPO, rel)).isDirectory()) out.push(...files(rel));
    else out.push(rel);
  }
  return out;
}

const isSource = (f: string): boolean => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts');
const base = (f: string): string => f.slice(f.lastIndexOf('/') + 1);

/** The layer table's rows: the folder in the first cell → the whole row's text. */
function tableRows(doc: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of doc.split('\n')) {
    const m = /^\| `([^`]+)` \|/.exec(line);
    if (m) rows.set(m[1], line);
  }
  return rows;
}

/** The row a source file belongs to. */
function rowOf(file: string): string {
  if (file.startsWith('webview/')) return 'webview/';
  const parts = file.split('/');
  return parts.length === 2 ? 'src/*.ts' : `src/${parts[1]}/`;
}

describe('docs/architecture.md names the files there are', () => {
  const doc = readFileSync(join(REPO, DOC), 'utf8');
  const rows = tableRows(doc);
  const tree = [...files('src'), ...files('webview')];
  const sources = tree.filter(isSource);

  it('reads the table and the tree', () => {
    assert.ok(rows.has('src/core/') && rows.has('webview/') && rows.has('src/*.ts'), [...rows.keys()].join(' '));
    assert.ok(sources.length > 100 && sources.includes('src/worker/session.ts'));
  });

  it('every folder of src/ has a row', () => {
    const folders = readdirSync(join(REPO, 'src')).filter((n) => statSync(join(REPO, 'src', n)).isDirectory());
    assert.deepEqual(folders.filter((f) => !rows.has(`src/${f}/`)), []);
  });

  it('every source file is named in its folder\'s row', () => {
    const missing = sources.filter((f) => !(rows.get(rowOf(f)) ?? '').includes(`\`${base(f)}\``) && !(rows.get(rowOf(f)) ?? '').includes(`/${base(f)}\``));
    assert.deepEqual(missing, [], `add each to its row of the table in ${DOC}:\n${missing.join('\n')}`);
  });

  it('every file the document names exists', () => {
    const top = readdirSync(REPO).filter((n) => statSync(join(REPO, n)).isFile());
    const names = new Set([...tree, ...files('test'), ...files('scripts'), ...files('bench'), ...top].map(base));
    // (`foo.ts`, `src/*.ts`, `<arch>.ts`: placeholders, not files)
    const named = [...doc.matchAll(/`([\w./<>*-]+\.(?:ts|mjs|cjs|py|css))`/g)].map((m) => m[1]).filter((n) => !/[*<]|(^|\/)foo\./.test(n));
    const gone = named.filter((n) => (n.includes('/') && /^(src|webview|test|scripts|bench)\//.test(n) ? !existsSync(join(REPO, n)) : !names.has(base(n))));
    assert.deepEqual([...new Set(gone)], []);
  });
});
