// `npm run demo` must not save multi-megabyte model files on every keystroke.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers/fixtures';

describe('npm run demo', () => {
  it('runs VS Code with auto save off', async () => {
    const { demoSettings } = await import(pathToFileURL(join(REPO, 'scripts', 'demoSettings.mjs')).href) as { demoSettings(): Record<string, unknown> };
    assert.equal(demoSettings()['files.autoSave'], 'off');
  });
});
