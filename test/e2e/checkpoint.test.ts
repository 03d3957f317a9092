// A real trained model in a real VS Code: the stories260K sample (a Llama-architecture checkpoint
// in the Hugging Face layout, beside its model file) opens in the panel, predicts "," (id 432)
// after "<s> Once upon a time" as the command line does, and follows an edit of its input.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Workbench } from './lib/workbench';

const SAMPLES = join(__dirname, '..', '..', '..', 'samples');
const FILE = 'stories260K.ffn.json';
const TITLE = 'FFN Lens: stories260K (TinyStories, Llama architecture)';
const TEXT = readFileSync(join(SAMPLES, FILE), 'utf8');
const folder = (f: string): Uint8Array => readFileSync(join(SAMPLES, 'stories260K', f));

describe('a checkpoint (stories260K) in a real VS Code', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'checkpoint',
      files: { [FILE]: TEXT, 'stories260K/config.json': folder('config.json'), 'stories260K/model.safetensors': folder('model.safetensors') },
      waitForFile: FILE, viewport: { width: 1600, height: 1000 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`checkpoint-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function prediction(match: RegExp): Promise<string> {
    const view = await wb.webview(TITLE);
    const caption = view.locator('.probs-chart .chart-caption');
    const deadline = Date.now() + 30_000;
    let text = '';
    while (Date.now() < deadline) {
      text = await caption.innerText().catch(() => '');
      if (match.test(text)) return text;
      await wb.page.waitForTimeout(100);
    }
    assert.fail(`the prediction should match ${match}, it reads: ${text}`);
  }

  it('opens and predicts "#432" (",") after "Once upon a time", 96.9 %, as ffn-lens stages computes', async () => {
    await wb.visualize(FILE, TITLE);
    const caption = await prediction(/#432/);
    assert.match(caption, /96\.9\s?%/);
    await wb.screenshot('checkpoint-stories260K');
  });

  it('follows an edit of token_ids: after appending 432 (",") it predicts 383, as llama2.c continues', async () => {
    const line = TEXT.split('\n').findIndex((l) => l.includes('"token_ids"')) + 1;
    const col = TEXT.split('\n')[line - 1].indexOf('378') + 4;
    await wb.page.locator('.editor-group-container .view-lines').first().click();
    await wb.page.keyboard.press('Control+G');
    await wb.page.keyboard.type(`${line}:${col}`);
    await wb.page.keyboard.press('Enter');
    await wb.page.keyboard.type(', 432');
    // (greedy decoding from BOS goes on 432 383: llama2.c's continuation)
    const caption = await prediction(/predicts "#383"/);
    assert.match(caption, /After "#432"/);
    await wb.screenshot('checkpoint-stories260K-edited');
  });
});
