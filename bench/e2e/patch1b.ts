// Issue 30: "the lenses (patching of a 1B model with progress and Cancel)" in a real VS Code
// (code-server + Chromium, the Node worker host). A Llama-3.2-1B-shaped checkpoint (random BF16
// weights, 2.5 GB) with 8 token ids and a corrupted input: Visualize; "FFN Lens: Activation
// Patching" from the palette, its notification counting the runs and the panel's bar with it;
// Cancel clicked part way stops it (said in the Patching tab), and an ablate typed after is drawn
// (the worker free again); then patching run to its end, the layer × token grid drawn; then a
// hover on the ablate entry (its values with and without it); compare with the file without the
// ablate (the logits differ, the input not); head.logits exported as .npy. Information, not a target:
// `node dist/bench.js --only patch1b` (about 10 min). The checkpoint is written by
// scripts/make-checkpoint.mjs into the window's folder and deleted with it.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseCompare, uniformCanvas } from '../../test/e2e/lib/compare';
import { acceptFileDialog, chooseMenuItem, npyComplete, writtenFile } from '../../test/e2e/lib/dialogs';
import { edit } from '../../test/e2e/lib/editor';
import { until as waitUntil } from '../../test/e2e/lib/until';
import { Workbench } from '../../test/e2e/lib/workbench';
import { rendered, visualizePanel, writeShapeCheckpoint } from './panelProbe';

const FILE = 'llama-3.2-1b.ffn.json';
const FOLDER = 'llama-3.2-1b-bf16';
const IDS = [128000, 791, 6864, 315, 9822, 374, 12366, 13];
const CORRUPTED = [128000, 791, 6864, 315, 15704, 374, 12366, 13];
const TEXT = `{\n  "version": 1,\n  "name": "Llama-3.2-1B (random weights)",\n  "checkpoint": "./${FOLDER}",\n  "token_ids": [${IDS.join(', ')}],\n  "corrupted_token_ids": [${CORRUPTED.join(', ')}]\n}\n`;
const TOAST = /activation patching/i;

describe('activation patching of a Llama-3.2-1B-shaped checkpoint in a real VS Code (benchmark)', function () {
  this.timeout(3_600_000);
  it('shows its progress, stops on Cancel, runs to its end; a hover, compare and export after', async () => {
    const wb = await Workbench.open({ name: 'patch1b', files: { [FILE]: TEXT }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 180_000 });
    try {
      writeShapeCheckpoint(wb, 'llama-3.2-1b', FOLDER);
      const { frame, ranAt } = await visualizePanel(wb, FILE);
      await waitUntil('the 1B model drawn', async () => (await rendered(frame)).v >= 0, { timeoutMs: 1_200_000, everyMs: 1000 });
      const openMs = (await rendered(frame)).at - ranAt;
      // (the panel's title is the model's name once it is read)
      const title = await waitUntil('the panel named for the model', async () => (await wb.webviewTitles()).find((x) => x.includes('Llama-3.2-1B')));
      const view = await wb.webview(title);
      const bar = view.locator('.lens-patch vscode-progress-bar');
      const toast = wb.page.locator('.notifications-toasts .notification-list-item', { hasText: TOAST }).first();
      const doneOf = async (): Promise<number> => Number((await bar.getAttribute('data-done').catch(() => null)) ?? -1);

      // 1. run, and Cancel once some runs are done
      const t0 = Date.now();
      await wb.runCommand('FFN Lens: Activation Patching');
      await waitUntil('patching under way (its notification and the panel\'s bar past 3 runs)', async () => (await toast.count()) > 0 && (await doneOf()) >= 3, { timeoutMs: 600_000, everyMs: 200 });
      const progressText = (await toast.locator('.notification-list-item-message').innerText()).replace(/\s+/g, ' ').trim();
      const total = Number(await bar.getAttribute('data-total'));
      await wb.screenshot('patch1b-progress');
      const doneAtCancel = await doneOf();
      await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
      const said = view.locator('.lens-patch .lens-error');
      await waitUntil('the Patching tab saying it stopped', async () => (await said.count()) > 0 && /cancelled/i.test(await said.innerText()), { timeoutMs: 120_000, everyMs: 200 });
      const cancelMs = Date.now() - t0;
      const cancelled = (await said.innerText()).trim();
      await wb.screenshot('patch1b-cancelled');

      // 2. the worker is free: an ablate typed is drawn
      const t1 = Date.now();
      const panel = await wb.webview(title);
      await edit(wb, { file: FILE, line: 6, text: ', "ablate": ["layers.8.ffn.neuron.7"]', insert: true, panel, timeoutMs: 600_000 });
      const ablateMs = (await rendered(frame)).at - t1;

      // 3. run to the end: the layer × token grid
      const t2 = Date.now();
      await wb.runCommand('FFN Lens: Activation Patching');
      const head = view.locator('.lens-patch .lens-headline');
      await waitUntil('the patching result', async () => (await head.count()) === 1, { timeoutMs: 1_800_000, everyMs: 500 });
      const patchMs = Date.now() - t2;
      const px = await wb.readCanvas(frame, '.lens-patch .hm canvas');
      assert.deepEqual([px.width, px.height], [IDS.length, 16], 'a grid of 8 tokens × 16 layers');
      const headline = (await head.innerText()).trim();
      await wb.screenshot('patch1b-result');

      // 4. a hover on the ablate entry
      const t3 = Date.now();
      const hover = await wb.hover('layers.8.ffn.neuron.7', { expect: /with|without/i, timeoutMs: 300_000 });
      const hoverMs = Date.now() - t3;
      await wb.screenshot('patch1b-hover');

      // 5. compare with the file without its ablate: the logits differ, the input does not
      await wb.page.mouse.move(0, 0); // (the hover away)
      await wb.page.keyboard.press('Escape');
      const LOGITS = 'section.card[data-stage-id="head.logits"] .hm-canvas';
      await view.locator(LOGITS).scrollIntoViewIfNeeded();
      const pixels = async (): Promise<string> => Buffer.from((await wb.readCanvas(frame, LOGITS)).data).toString('base64');
      const raw = await pixels();
      const t4 = Date.now();
      await chooseCompare(view, 'plain');
      const note = view.locator('.compare-note');
      await waitUntil('the compare note', async () => /without ablate/.test(await note.innerText()), { timeoutMs: 600_000, everyMs: 300 });
      const uniform = (sel: string): Promise<boolean> => uniformCanvas(wb, frame, sel);
      // (drawn again as differences after the choice: not the logits themselves, not all zero; the input all zero)
      await waitUntil('the logits drawn as differences, the input the same in both', async () => (await rendered(frame)).at > t4 && (await pixels()) !== raw
        && !(await uniform(LOGITS)) && (await uniform('section.card[data-stage-id="input"] .hm-canvas')), { timeoutMs: 600_000, everyMs: 500 });
      const compareMs = Date.now() - t4;
      await view.locator('section.card[data-stage-id="head.logits"]').scrollIntoViewIfNeeded();
      await wb.screenshot('patch1b-compare');
      await chooseCompare(view, 'none');
      await waitUntil('compare off', async () => await note.isHidden(), { timeoutMs: 600_000, everyMs: 300 });

      // 6. head.logits exported as .npy: 8 × 128256 float32
      const t5 = Date.now();
      const card = view.locator('section.card[data-stage-id="head.logits"]');
      await card.scrollIntoViewIfNeeded();
      await card.click({ button: 'right', position: { x: 40, y: 10 } });
      await chooseMenuItem(wb, 'Export Stage as .npy');
      const npyName = await acceptFileDialog(wb, (v) => v.endsWith('.head.logits.npy'));
      const npy = await writtenFile(join(wb.folder, npyName.split('/').pop()!), npyComplete, 600_000);
      const hl = npy[8] + 256 * npy[9];
      assert.match(npy.subarray(10, 10 + hl).toString('latin1'), /'shape': \(8, 128256\)/);
      assert.equal(npy.length - 10 - hl, 8 * 128256 * 4, 'every logit');
      const exportMs = Date.now() - t5;

      const out = { openMs, total, doneAtCancel, cancelMs, ablateMs, patchMs, progressText, cancelled, headline, hover: hover.slice(0, 300), hoverMs, compareMs, exportMs, npyBytes: npy.length };
      console.log(`  drawn ${openMs} ms after Visualize; patching: "${progressText}", Cancel at ${doneAtCancel} of ${total} runs, said "${cancelled}" ${cancelMs} ms after the command; an ablate then drawn in ${ablateMs} ms; patching to its end ${patchMs} ms ("${headline}"); the hover in ${hoverMs} ms; compare drawn in ${compareMs} ms; head.logits exported (${npy.length} bytes) in ${exportMs} ms`);
      if (process.env.FFN_BENCH_OUT) writeFileSync(process.env.FFN_BENCH_OUT, JSON.stringify(out));
    } finally {
      await wb.close();
    }
  });
});
