// Compare with the two baselines that need more than the file itself, and the attribution's
// clicks, in a real VS Code: the model file in a Git repository, edited (an "ablate" entry typed)
// and compared with HEAD through VS Code's Git extension; then with another model file picked in
// the open dialog; and a click on a head in the attribution writes its "ablate" entry.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { acceptFileDialog } from './lib/dialogs';
import { barsSideBySide, chooseCompare, folderWithStories, stageCanvas, uniformCanvas } from './lib/compare';
import { edit } from './lib/editor';
import { until as waitUntil } from './lib/until';
import { Workbench } from './lib/workbench';

const FILE = 'cmp.ffn.json';
const TITLE = 'FFN Lens: compare';
const TEXT = `{
  "version": 1,
  "name": "compare",
  "checkpoint": "./stories260K",
  "token_ids": [1, 403, 407, 261, 378],
  "ablate": []
}
`;

describe('compare with HEAD and with another file; an attribution click writes "ablate"', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    const folder = folderWithStories('compare', {
      [FILE]: TEXT,
      'other.ffn.json': TEXT.replace('"compare"', '"other"').replace('261, 378]', '261, 300]'),
      'longer.ffn.json': TEXT.replace('"compare"', '"longer"').replace('261, 378]', '261, 378, 432]'),
    });
    const git = (...a: string[]): void => void execFileSync('git', a, { cwd: folder, stdio: 'ignore' });
    git('init', '-q');
    git('-c', 'user.email=e2e@example.com', '-c', 'user.name=e2e', 'add', '.');
    git('-c', 'user.email=e2e@example.com', '-c', 'user.name=e2e', 'commit', '-q', '-m', 'models');
    wb = await Workbench.open({ name: 'compare', folder, waitForFile: FILE, viewport: { width: 1600, height: 1000 } });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`compare-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  const until = <T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> => waitUntil(what, f, { timeoutMs: ms, everyMs: 150 });

  const uniform = async (sel: string): Promise<boolean> => uniformCanvas(wb, await wb.webviewFrame(TITLE), sel);
  const compareWith = async (kind: string): Promise<void> => chooseCompare(await wb.webview(TITLE), kind);

  it('with the file as committed (HEAD): an ablate typed since shows as differences after it, none in the input', async () => {
    const panel = await wb.visualize(FILE, TITLE);
    const line = TEXT.split('\n').findIndex((l) => l.includes('"ablate"')) + 1;
    await edit(wb, { file: FILE, line, col: 14, text: '"layers.2.ffn.neuron.7", "layers.4.attn.head.1"', insert: true, panel });
    await compareWith('head');
    const view = await wb.webview(TITLE);
    await until('the HEAD note', async () => /as committed \(HEAD\)/.test(await view.locator('.compare-note').innerText()));
    await until('the logits differ from HEAD', async () => !(await uniform(stageCanvas('head.logits'))));
    assert.ok(await uniform(stageCanvas('input')), 'the input is as committed');
    await wb.screenshot('compare-head');
    // the prediction's bars, edited and baseline side by side, each word named
    await barsSideBySide(view);
    await wb.screenshot('compare-head-prediction');
  });

  /** Compare with another model file of the workspace folder, picked in the open dialog. */
  async function compareWithFile(name: string): Promise<void> {
    await compareWith('file');
    // (the dialog fills in the folder once it has read it: the path is put there after that)
    await acceptFileDialog(wb, (v) => v === join(wb.folder, name), { fill: join(wb.folder, name) });
  }

  it('with another model file, picked in the open dialog', async () => {
    await compareWithFile('other.ffn.json');
    const view = await wb.webview(TITLE);
    await until('the note names the file', async () => /other\.ffn\.json/.test(await view.locator('.compare-note').innerText()));
    // the last token differs: the input's last row, only
    await until('the input differs', async () => !(await uniform(stageCanvas('input'))));
    await compareWith('none');
  });

  it('with a model file of another length: the note says which stages are not differences', async () => {
    await compareWithFile('longer.ffn.json');
    const view = await wb.webview(TITLE);
    const note = await until('the note names the file', async () => {
      const t = await view.locator('.compare-note').innerText();
      return /longer\.ffn\.json/.test(t) && t;
    });
    assert.match(note, /the two inputs differ in length, so no stage can be subtracted from its baseline: every stage shows this file's own numbers/);
    await wb.screenshot('compare-other-length');
    await compareWith('none');
  });

  it('a click on a head in the attribution offers to switch it off, and writes "ablate"', async () => {
    const view = await wb.webview(TITLE);
    const section = view.locator('vscode-collapsible[data-section="lenses"]');
    await section.evaluate((el: any) => { el.open = true; el.dispatchEvent(new CustomEvent('vsc-collapsible-toggle', { detail: { open: true } })); });
    await view.locator('vscode-tab-header[data-lens="dla"]').click();
    const bar = view.locator('button.dla-bar[data-unit*="attn.head"]').first();
    await bar.waitFor({ timeout: 30_000 });
    const unit = (await bar.getAttribute('data-unit'))!;
    await bar.click();
    await wb.pickQuickItem(new RegExp(`Switch off ${unit.replace(/\./g, '\\.')}`));
    await until('the ablate entry in the file', async () => {
      const text = await wb.page.locator('.editor-group-container .view-lines').first().innerText();
      return text.includes(`"${unit}"`);
    });
    // written into the file's own editor: the panel stays in front beside it, the file in one tab
    const tabs = wb.page.locator('.tabs-container .tab', { has: wb.page.locator('.label-name', { hasText: /^cmp\.ffn\.json$/ }) });
    assert.equal(await tabs.count(), 1, 'the model file in one tab');
    assert.deepEqual(await wb.webviewTitles(), [TITLE], 'the panel still shown');
    await wb.screenshot('attribution-ablate-written');
  });
});
