// `npm run demo` must not save multi-megabyte model files on every keystroke.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers/fixtures';

describe('npm run demo', () => {
  it('runs VS Code with auto save off', async () => {
    const { demoSettings } = await import(pathToFileURL(join(REPO, 'scripts', 'demoSettings.mjs')).href) as { demoSettings(): Record<string, unknown> };
    assert.equal(demoSettings()['files.autoSave'], 'off');
  });

  it('--web: the extension in the web worker host, by the setting the web e2e suite uses', async () => {
    const { demoSettings } = await import(pathToFileURL(join(REPO, 'scripts', 'demoSettings.mjs')).href) as { demoSettings(o?: { web?: boolean }): Record<string, unknown> };
    const suite = JSON.parse(readFileSync(join(REPO, 'test', 'e2e-web', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(demoSettings({ web: true })['remote.extensionKind'], suite['remote.extensionKind']);
    assert.equal(demoSettings({ web: true })['files.autoSave'], 'off');
    assert.equal(demoSettings()['remote.extensionKind'], undefined);
  });
});
