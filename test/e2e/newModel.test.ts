// "FFN Lens: New Model File…" at the GPT-2-small size (83 MB) in a real VS Code: the file is
// generated and saved, and since VS Code does not hand files over 50 MB to extensions, the panel
// reads it from disk, draws every stage, and says so once, plainly.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

describe('New Model File… at GPT-2-small size: the panel reads it from disk', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'new-model', viewport: { width: 1600, height: 1000 } });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`new-model-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  it('generates the block, saves it, and the panel draws it from disk with the notice', async () => {
    await wb.runCommand('FFN Lens: New Model File…');
    await wb.pickQuickItem(/GPT-2 small/);
    // the save dialog proposes gpt2-small-block.ffn.json in the workspace folder: accept it
    assert.match(await wb.acceptProposedName(/gpt2-small-block\.ffn\.json$/), /gpt2-small-block\.ffn\.json$/, 'the proposed file name');
    const view = await wb.webview('FFN Lens', { timeoutMs: 120_000 });
    await view.locator('body[data-rendered-version]').waitFor({ timeout: 120_000 });
    assert.match(await view.locator('.notice').innerText(), /over 50 MB.*reads it from disk.*updates when you save/s);
    assert.match(await view.locator('.facts').innerText(), /32 tokens · d_model 768 · d_ff 3072 · 12 heads/);
    assert.equal(await view.locator('section.card[data-stage-id]').count(), 17, 'every stage of a pre-LN block');
    // the up-projection is pooled to the screen, and says so
    assert.match(await view.locator('section.card[data-stage-id="layers.0.ffn.up"] .hm-note').innerText(), /^Pooled to \d+ × \d+/);
    const toast = (await wb.notifications()).join('\n');
    assert.match(toast, /over 50 MB/);
    console.log(`      ${await wb.screenshot('new-model-gpt2-small')}`);
  });

  it('the GPT-2 small checkpoint preset: its folder gets GPT-2\'s tokenizer, so the model file takes a prompt and the rows read as words', async () => {
    await wb.runCommand('FFN Lens: New Model File…');
    await wb.pickQuickItem(/GPT-2 small checkpoint/);
    assert.match(await wb.acceptProposedName(/gpt2-small-random\.ffn\.json$/), /gpt2-small-random\.ffn\.json$/, 'the proposed file name');
    // (the panel of the test before follows the new file: its facts change when the checkpoint is drawn)
    const view = await wb.webview('FFN Lens', { timeoutMs: 180_000 });
    let facts = '';
    await until('the panel to draw 12 layers', async () => /12 layers/.test(facts = await view.locator('.facts').innerText().catch(() => '')), { timeoutMs: 180_000, everyMs: 500, describe: () => `its facts: ${facts}` });
    assert.ok(existsSync(join(wb.folder, 'gpt2-small-random', 'tokenizer.json')), 'tokenizer.json beside config.json');
    assert.match(facts, /6 tokens · d_model 768 · d_ff 3072 · 12 heads · 12 layers/);
    const rows = await view.locator('section.card[data-stage-id="input"] .hm-row-label').allInnerTexts();
    assert.deepEqual(rows, ['Michael', '·Jordan', '·plays', '·the', '·sport', '·of']);
    console.log(`      ${await wb.screenshot('new-model-gpt2-checkpoint')}`);
  });
});
