// One vocabulary (issue 28): stage, param and unit ids are built and taken apart only in
// src/core/ids.ts. This reads the source tree and fails, naming file:line, where another file
// builds a layer's id by template (`layers.${i}.ffn.act`) or parses one by a regex (/^layers\.(\d+)/).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/fixtures';
import { sourceFiles } from '../helpers/sourceTree';

/** The one module allowed to spell ids. */
const VOCABULARY = 'src/core/ids.ts';

/**
 * Files other helpers of issue 28 are moving onto src/core/ids.ts at the same time (webview/, the
 * worker's session files, the model-file reader and generator, the plan). TEMPORARY: the lead
 * empties this list once their branches are merged; nothing may be added to it.
 */
const PENDING: readonly string[] = [];

const RULES: ReadonlyArray<{ readonly what: string; readonly test: RegExp }> = [
  { what: 'an id built by template (use stageId/paramId/unitId of src/core/ids.ts)', test: /layers\.\$\{/ },
  // (in a regex literal `layers\.`, in a RegExp's string `layers\\.`)
  { what: 'an id parsed by a regex (use parseStageId/parseParamId/parseUnitId of src/core/ids.ts)', test: /layers\\\\?\./ },
];

/** Every line of a source file that breaks a rule, as `file:line: what`. */
function offences(file: string): string[] {
  const out: string[] = [];
  readFileSync(join(REPO, file), 'utf8').split('\n').forEach((line, i) => {
    for (const r of RULES) if (r.test.test(line)) out.push(`${file}:${i + 1}: ${r.what}\n    ${line.trim()}`);
  });
  return out;
}

describe('one vocabulary: ids are spelled only in src/core/ids.ts', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('webview')].filter((f) => f !== VOCABULARY);

  it('reads the source tree (the scan sees the files it guards)', () => {
    assert.ok(files.includes('src/worker/hoverText.ts') && files.includes('webview/app.ts') && !files.includes(VOCABULARY));
    assert.ok(files.length > 100, `${files.length} files`);
  });

  it('no file builds a layer id by template or parses one by regex', () => {
    const found = files.filter((f) => !PENDING.includes(f)).flatMap(offences);
    assert.deepEqual(found, [], `\n${found.join('\n')}`);
  });

  it('the rules catch what they are meant to', () => {
    const [template, regex] = RULES.map((r) => r.test);
    assert.ok(template.test('const id = `layers.${i}.ffn.act`;'));
    assert.ok(regex.test(String.raw`const m = /^layers\.(\d+)\.ffn/.exec(id);`));
    assert.ok(regex.test(String.raw`new RegExp('^layers\\.(\\d+)')`));
    assert.ok(!template.test("stageId(i, STAGE.act) // e.g. 'layers.3.ffn.act'") && !regex.test("stageId(i, STAGE.act) // e.g. 'layers.3.ffn.act'"));
  });

  it('PENDING names only files that exist and still break a rule (empty it as they are fixed)', () => {
    const stale = PENDING.filter((f) => !files.includes(f) || offences(f).length === 0);
    assert.deepEqual(stale, []);
  });
});
