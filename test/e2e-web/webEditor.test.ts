// The editor side of FFN Lens in the web worker extension host (vscode.dev's), in code-server
// forced there ("remote.extensionKind": web), driven like a user: diagnostics in the Problems view
// at their line:col, a quick fix from the light bulb (Ctrl+.), the code lenses above the matrices
// and above a checkpoint, and "New Model File…" at GPT-2-small size (83 MB, over what VS Code hands
// to extensions), which the panel then reads through workspace.fs with a progress notification.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { edit, focusEditor, goToLine } from '../e2e/lib/editor';
import { until } from '../e2e/lib/until';
import { Workbench } from '../e2e/lib/workbench';

const SAMPLES = join(__dirname, '..', '..', '..', 'samples');
const sample = (f: string): string => readFileSync(join(SAMPLES, f), 'utf8');
const IDENTITY = sample('identity-weights.ffn.json');
const TYPO = IDENTITY.replace('"activation": "relu"', '"activaton": "relu"').replace('[0, 1, 0],\n      [0, 0, 1]\n    ],\n    "b1"', '[0, "x", 0],\n      [0, 0, 1]\n    ],\n    "b1"');
const folder = (f: string): Uint8Array => readFileSync(join(SAMPLES, 'stories260K', f));

describe('the editor in the web worker extension host: diagnostics, quick fixes, code lenses, New Model File', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    assert.notEqual(TYPO, IDENTITY.replace('"activation": "relu"', '"activaton": "relu"'), 'the "x" went into W1');
    wb = await Workbench.open({
      name: 'web-editor',
      files: {
        'typo.ffn.json': TYPO,
        'michael-jordan.ffn.json': sample('michael-jordan.ffn.json'),
        'stories260K.ffn.json': sample('stories260K.ffn.json'),
        'stories260K/config.json': folder('config.json'),
        'stories260K/model.safetensors': folder('model.safetensors'),
      },
      waitForFile: 'typo.ffn.json', viewport: { width: 1600, height: 1000 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`web-editor-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  const problems = (): Promise<string[]> => wb.page.locator('.markers-panel .monaco-list-row').allInnerTexts();
  async function waitForProblems(ok: (rows: string[]) => boolean, what: string, ms = 60_000): Promise<string[]> {
    let rows: string[] = [];
    return until(what, async () => {
      rows = (await problems()).map((r) => r.replace(/\s+/g, ' ').trim());
      return ok(rows) && rows;
    }, { timeoutMs: ms, everyMs: 200, describe: () => `the Problems view lists: ${JSON.stringify(rows)}` });
  }
  const editorText = async (): Promise<string> => (await wb.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');

  it('diagnostics: the Problems view lists the string in W1 (an error) and the unknown key (a warning), each at its line:col', async () => {
    await wb.openFile('typo.ffn.json');
    await wb.page.keyboard.press('Control+Shift+M');
    const rows = await waitForProblems((r) => r.some((x) => /W1\[1\]\[1\] must be a number/.test(x)) && r.some((x) => /activaton/.test(x)), 'both problems listed');
    const lines = TYPO.split('\n');
    const xLine = lines.findIndex((l) => l.includes('"x"'));
    const keyLine = lines.findIndex((l) => l.includes('"activaton"'));
    const err = rows.find((x) => /must be a number/.test(x))!;
    const warn = rows.find((x) => /activaton/.test(x))!;
    assert.match(err, /ffn\.W1\[1\]\[1\] must be a number, found the string "x"/);
    assert.ok(err.includes(`[Ln ${xLine + 1}, Col ${lines[xLine].indexOf('"x"') + 1}]`), err);
    assert.match(warn, /unknown key "activaton" in ffn: did you mean "activation"\?/);
    assert.ok(warn.includes(`[Ln ${keyLine + 1}, Col ${lines[keyLine].indexOf('"activaton"') + 1}]`), warn);
    console.log(`      problems: ${rows.join(' | ')}  ${await wb.screenshot('web-editor-problems')}`);
  });

  it('a quick fix from the light bulb (Ctrl+.): Rename to "activation", and the warning goes', async () => {
    const lines = TYPO.split('\n');
    const keyLine = lines.findIndex((l) => l.includes('"activaton"'));
    await focusEditor(wb, 'typo.ffn.json');
    await goToLine(wb, keyLine + 1, lines[keyLine].indexOf('"activaton"') + 3);
    await wb.page.keyboard.press('Control+.');
    const fix = wb.page.locator('.action-widget .monaco-list-row', { hasText: 'Rename to "activation"' }).first();
    await fix.waitFor({ timeout: 60_000 });
    await wb.screenshot('web-editor-quick-fix');
    // (the menu's first row has the keyboard focus; a click is caught by the menu's pointer guard)
    await until('the fix focused in the menu', async () => /\bfocused\b/.test((await fix.getAttribute('class')) ?? ''), {
      describe: async () => `the menu: ${JSON.stringify(await wb.page.locator('.action-widget .monaco-list-row').allInnerTexts())}`,
    });
    await wb.page.keyboard.press('Enter');
    await fix.waitFor({ state: 'hidden', timeout: 30_000 });
    await until('the key renamed in the editor', async () => /"activation": "relu"/.test(await editorText()));
    await waitForProblems((r) => !r.some((x) => /activaton/.test(x)) && r.some((x) => /must be a number/.test(x)), 'the warning gone, the error still there');
    // and typing the number back clears the error
    const xLine = lines.findIndex((l) => l.includes('"x"'));
    await edit(wb, { file: 'typo.ffn.json', line: xLine + 1, col: lines[xLine].indexOf('"x"') + 1, select: 3, text: '1' });
    await waitForProblems((r) => r.length === 0 || r.every((x) => !/typo\.ffn\.json|must be a number|activaton/.test(x)), 'no problems left');
    await wb.page.keyboard.press('Control+Shift+M');
  });

  it('code lenses: above each matrix its role and shape, above the FFN "Visualize", which opens the panel', async () => {
    await wb.openFile('michael-jordan.ffn.json');
    const lenses = wb.page.locator('.editor-group-container.active .codelens-decoration');
    const mj = sample('michael-jordan.ffn.json').split('\n');
    // (the editor draws the lenses of the lines in view only: go to each)
    const seen = new Set<string>();
    for (const [key, want] of [['"Wq"', /Wq · query/], ['"W1"', /W1 · up-projection/]] as const) {
      await goToLine(wb, mj.findIndex((l) => l.includes(key)) + 1);
      await until(`the lens ${want}`, async () => {
        for (const t of await lenses.allInnerTexts()) if (t.trim()) seen.add(t.trim());
        return [...seen].some((t) => want.test(t));
      }, { everyMs: 200, describe: () => `seen: ${JSON.stringify([...seen])}` });
    }
    const all = [...seen].join(' | ');
    assert.match(all, /W1 · up-projection · \[4 × 8\] · 32 params · 2 dead neurons/);
    assert.match(all, /Visualize layer 0 FFN · 2 of 4 neurons dead/);
    assert.match(all, /Wq · query projection · \[8 × 8\] · 64 params/);
    await wb.page.locator('.editor-group-container.active .codelens-decoration a', { hasText: /Visualize layer 0 FFN/ }).first().click();
    const view = await wb.webview('FFN Lens: Michael Jordan', { timeoutMs: 30_000 });
    await view.locator('body[data-rendered-version]').waitFor({ timeout: 30_000 });
    await wb.screenshot('web-editor-code-lenses');
  });

  it('a checkpoint\'s code lens: its architecture, layers, parameters and dtype (stories260K)', async () => {
    await wb.openFile('stories260K.ffn.json');
    const lens = wb.page.locator('.editor-group-container .codelens-decoration', { hasText: /llama · 5 layers/ }).first();
    await lens.waitFor({ timeout: 60_000 });
    assert.match(await lens.innerText(), /llama · 5 layers · d_model 64 · 8 heads \(4 key\/value\) · d_ff 172 · vocab 512 · 260,032 params · F32$/);
  });

  it('New Model File… at GPT-2-small size (83 MB): written through workspace.fs, the panel reads it with a progress notification', async () => {
    await wb.closeAllEditors(); // (the panels too: the one this command opens is then the only one)
    await wb.recordNotifications();
    await wb.runCommand('FFN Lens: New Model File…');
    await wb.pickQuickItem(/GPT-2 small/);
    assert.match(await wb.acceptProposedName(/gpt2-small-block\.ffn\.json$/), /gpt2-small-block\.ffn\.json$/, 'the proposed file name');
    const view = await wb.webview('FFN Lens', { timeoutMs: 180_000 });
    await view.locator('body[data-rendered-version]').waitFor({ timeout: 180_000 });
    assert.ok(readFileSync(join(wb.folder, 'gpt2-small-block.ffn.json')).length > 50 * 1024 * 1024, 'the file is on disk, over 50 MB');
    assert.match(await view.locator('.notice').innerText(), /over 50 MB.*reads it from disk/s);
    assert.match(await view.locator('.facts').innerText(), /32 tokens · d_model 768 · d_ff 3072 · 12 heads/);
    assert.equal(await view.locator('section.card[data-stage-id]').count(), 17, 'every stage of a pre-LN block');
    const seen = await wb.recordedNotifications();
    assert.ok(seen.some((t) => /FFN Lens: writing gpt2-small-block\.ffn\.json/.test(t)), `the write's progress; seen: ${JSON.stringify(seen)}`);
    assert.ok(seen.some((t) => /FFN Lens: reading gpt2-small-block\.ffn\.json \(8\d MB\)/.test(t)), `the read's progress; seen: ${JSON.stringify(seen)}`);
    console.log(`      notifications: ${seen.join(' | ')}  ${await wb.screenshot('web-editor-new-model-gpt2-small')}`);
  });
});
