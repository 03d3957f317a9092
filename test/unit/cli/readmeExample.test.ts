// The README's "Mistakes are reported precisely" example, run as it says: the model file it shows,
// through the built CLI, must print exactly the lines it shows (a README that drifts from the real
// messages teaches the wrong ones).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/fixtures';

describe('README: the command line example', () => {
  it('prints the messages the README shows, and exits with 1', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const m = /```jsonc\n((?:(?!```)[\s\S])*)```\n\n`npx ffn-lens stages model\.ffn\.json` says \(and exits with 1\):\n\n```\n([\s\S]*?)```/.exec(readme);
    assert.ok(m, 'the README has the example: a jsonc block, the command, and its output');
    const dir = mkdtempSync(join(tmpdir(), 'ffn-readme-'));
    writeFileSync(join(dir, 'model.ffn.json'), m[1]);
    const r = spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'stages', 'model.ffn.json'], { encoding: 'utf8', cwd: dir });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, m[2]);
  });
});
