// Self-test of the e2e helper library (test/e2e/lib/workbench.ts) against VS Code's own features, so
// the helpers are known to work independently of FFN Lens: hover text (a JSON diagnostic), picking a
// webview by panel title among several (Markdown previews), reading canvas pixels inside a webview,
// and switching the color theme (palette and settings.json).
import * as assert from 'node:assert/strict';
import { edit, goToLine, lineText, pressInEditor, savedText, typeText } from './lib/editor';
import { Workbench, pixelAt, themeSetting } from './lib/workbench';

const TYPING = 'typing-probe.txt';
const TYPING_TEXT = 'first line\n  second: 285, 7\nthird line\n';

describe('e2e helper library (test/e2e/lib/workbench.ts)', function () {
  this.timeout(120_000);
  let wb: Workbench | undefined;

  before(async () => {
    // Files only this suite uses, added to its own copy of the fixture workspace.
    wb = await Workbench.open({
      name: 'workbench-lib',
      waitForFile: 'second.md',
      files: {
        'hover-probe.json': '{\n  "alpha": 1\n  "beta": 2\n}\n',
        'first.md': '# First\n\nalpha paragraph\n',
        'second.md': '# Second\n\nbeta paragraph\n',
        [TYPING]: TYPING_TEXT,
      },
    });
  });
  after(async () => {
    if (wb && (await wb.themeKind()) !== 'light') await wb.setColorTheme('light').catch(() => undefined);
    await wb?.close();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && wb) await wb.screenshot(`lib-failed-${this.currentTest.title}`).catch(() => undefined);
  });

  it('hover(): reads the hover widget (a JSON syntax error)', async () => {
    await wb!.openFile('hover-probe.json');
    const text = await wb!.hover('"beta"', { expect: /Expected comma/ });
    assert.match(text, /Expected comma/);
    await wb!.page.keyboard.press('Escape');
    await wb!.closeAllEditors();
  });

  it('edit(): go to a line, select, type, each step checked; the text read back; savedText() once auto-saved', async () => {
    await wb!.openFile(TYPING);
    await goToLine(wb!, 3, 4);
    assert.equal(await lineText(wb!.page, 2), '  second: 285, 7');
    const done = await edit(wb!, { file: TYPING, line: 2, col: 11, select: 3, text: '300' });
    assert.equal(done.line, '  second: 300, 7');
    assert.equal(await lineText(wb!.page, 2), '  second: 300, 7');
    // at the end of a line when no column is given
    assert.equal((await edit(wb!, { line: 1, text: ' (edited)', insert: true })).line, 'first line (edited)');
    const text = 'first line (edited)\n  second: 300, 7\nthird line\n';
    assert.equal(await savedText(wb!, TYPING, text), text);
    // and they fail when what was typed is not what they expect
    await assert.rejects(typeText(wb!, 'x', { line: 1, expect: 'first line (edited)', timeoutMs: 3_000 }), /line 1 to read "first line \(edited\)"/);
    await assert.rejects(savedText(wb!, TYPING, text, 3_000), /saved with the text typed/);
    await pressInEditor(wb!, 'Control+Z', { line: 1, expect: 'first line (edited)' });
    await savedText(wb!, TYPING, text);
    await wb!.closeAllEditors();
  });

  let firstTitle = ''; let secondTitle = '';
  it('webview(title): picks the webview of a given panel among several', async () => {
    const titles: string[] = [];
    for (const f of ['first.md', 'second.md']) {
      await wb!.runCommand('View: Focus First Editor Group').catch(() => undefined);
      await wb!.openFile(f);
      // A locked preview is a panel of its own (the plain one follows the active editor).
      await wb!.runCommand('Markdown: Open Locked Preview to the Side');
      const label = wb!.page.locator('.tabs-container .tab .label-name', { hasText: new RegExp(`Preview.*${f.replace('.', '\\.')}`) }).first();
      await label.waitFor();
      titles.push((await label.innerText()).trim());
    }
    [firstTitle, secondTitle] = titles as [string, string];
    // Both previews share the side group: asking for the hidden one must bring it to the front.
    const first = await wb!.webview(firstTitle);
    await first.locator('text=alpha paragraph').waitFor();
    const second = await wb!.webview(secondTitle);
    await second.locator('text=beta paragraph').waitFor();
    assert.equal(await second.locator('text=alpha paragraph').count(), 0);
    assert.ok((await wb!.webviewTitles()).includes(secondTitle));
    await wb!.screenshot('lib-two-previews');
  });

  it('readCanvas(): reads canvas pixels inside a webview', async () => {
    const frame = await wb!.webviewFrame(firstTitle);
    await frame.evaluate(() => {
      const d = (globalThis as any).document;
      const c = d.createElement('canvas');
      c.id = 'probe'; c.width = 4; c.height = 2;
      const ctx = c.getContext('2d');
      ctx.fillStyle = 'rgb(255, 0, 0)'; ctx.fillRect(0, 0, 2, 2);
      ctx.fillStyle = 'rgb(0, 0, 255)'; ctx.fillRect(2, 0, 2, 2);
      d.body.appendChild(c);
    });
    const px = await wb!.readCanvas(await wb!.webview(firstTitle), '#probe');
    assert.equal(px.width, 4);
    assert.deepEqual(pixelAt(px, 0, 0), [255, 0, 0, 255]);
    assert.deepEqual(pixelAt(px, 3, 1), [0, 0, 255, 255]);
    const part = await wb!.readCanvas(frame, '#probe', { x: 2, y: 1, width: 1, height: 1 });
    assert.deepEqual(part.data, [0, 0, 255, 255]);
  });

  it('setColorTheme(): switches dark and light from the palette', async () => {
    await wb!.setColorTheme('dark');
    assert.equal(await wb!.themeKind(), 'dark');
    await wb!.screenshot('lib-theme-dark');
    await wb!.setColorTheme('light');
    assert.equal(await wb!.themeKind(), 'light');
  });

  it('updateUserSettings(): changes the theme through settings.json (+ reload)', async () => {
    await wb!.updateUserSettings(themeSetting('dark'));
    await wb!.waitForThemeKind('dark');
    await wb!.updateUserSettings(themeSetting('light'));
    await wb!.waitForThemeKind('light');
  });
});
