// Opening a large checkpoint in the Node extension host: the compute worker's read of the 498 MB
// GPT-2-small preset shows its percent in a notification with Cancel and in the panel; Cancel stops
// it, with no error toast, the panel saying it was cancelled and how to read it again; the command
// "Read Cancelled Checkpoints Again" reads it whole and the model is computed.
// The read cannot end before its Cancel: it begins only when the test edits the model file to name
// the folder (the panel already open), and the page clicks Cancel the moment the notification is
// drawn (test/e2e/lib/readCancel.ts); a read takes longer than that round trip whatever the machine.
// Run: node scripts/run-e2e.mjs --files out/test/e2e/checkpointProgress.test.js
import * as assert from 'node:assert/strict';
import { edit } from './lib/editor';
import { GPT2_SMALL_FOLDER, writeGpt2SmallCheckpoint } from './lib/gpt2Checkpoint';
import { cancelWhenShown, recordNotices } from './lib/readCancel';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

const FILE = 'gpt2-small.ffn.json';
// (it names a folder that is not there: the edit that names the checkpoint begins its read)
const LATER = './not-yet';
const TEXT = `{\n  "version": 1,\n  "name": "GPT-2 small (random weights)",\n  "checkpoint": "${LATER}",\n  "prompt": "Michael Jordan plays the sport of"\n}\n`;
const TITLE = 'FFN Lens: GPT-2 small (random weights)';
const READING = /FFN Lens: reading the checkpoint gpt2-small-random \(498 MB\)/;

describe('a large checkpoint\'s read: its percent and Cancel', function () {
  this.timeout(600_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'checkpoint-progress', files: { [FILE]: TEXT }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 120_000 });
    writeGpt2SmallCheckpoint(wb.folder);
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`checkpoint-progress-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  let notices: () => Promise<string[]> = async () => [];

  it('the read, begun with the panel open, shows its percent in the panel; Cancel in its notification stops it, said in the panel, no error toast', async () => {
    await wb.recordNotifications();
    await wb.openFile(FILE);
    await wb.runCommand('FFN Lens: Visualize FFN');
    const frame = await wb.webviewFrame('FFN Lens', { timeoutMs: 60_000 });
    await until('the panel to say the folder is missing', async () => /not-yet/.test(await frame.locator('body.has-errors').innerText().catch(() => '')), { timeoutMs: 120_000, everyMs: 300 });
    notices = await recordNotices(frame);
    const clicked = await cancelWhenShown(wb.page, READING);
    // the model file names the checkpoint: its read begins
    await edit(wb, { file: FILE, line: 4, col: TEXT.split('\n')[3].indexOf(LATER) + 1, select: LATER.length, text: `./${GPT2_SMALL_FOLDER}`, insert: true });
    const cancelled = await until('the panel to say the read was cancelled', async () => {
      const t = await frame.locator('.notice').innerText().catch(() => '');
      return /was cancelled at \d+ % of 498 MB/.test(t) && t;
    }, { timeoutMs: 120_000, everyMs: 200, describe: async () => `Cancel clicked on ${JSON.stringify(await clicked())}; the panel said ${JSON.stringify(await notices())}` });
    const toast = wb.page.locator('.notifications-toasts .notification-list-item', { hasText: READING }).first();
    await toast.waitFor({ state: 'hidden', timeout: 30_000 });
    // the file's own state says it too: a warning at its checkpoint key (its hover), the folder missing before the edit gone from the panel
    await until('the panel to drop the problem of the text before the edit', async () => !/not-yet/.test(await frame.locator('body').innerText().catch(() => 'not-yet')), { timeoutMs: 120_000, everyMs: 300 });
    const hover = await wb.hover('gpt2-small-random', { expect: /reading the checkpoint was cancelled: edit this file/, timeoutMs: 60_000 });
    assert.equal(/cannot be read|could not|failed/i.test(hover), false, `a warning, no error: ${hover}`);
    await wb.screenshot('checkpoint-progress-cancelled');
    const toasts = await wb.recordedNotifications();
    const inPanel = await notices();
    console.log(`      Cancel clicked on ${JSON.stringify(await clicked())}; notifications: ${JSON.stringify(toasts)}; panel: ${JSON.stringify(inPanel)}`);
    assert.ok(await clicked(), 'the page clicked Cancel in the notification');
    assert.ok(inPanel.some((t) => /Reading the checkpoint \.\/gpt2-small-random: \d+ % of 498 MB/.test(t)), 'the panel said a percent');
    assert.match(cancelled, /Read Cancelled Checkpoints Again/);
    const pct = Number(/at (\d+) %/.exec(cancelled)![1]);
    assert.ok(pct < 100, `stopped before the end (${pct} %)`);
    assert.ok(!toasts.some((t) => /error|failed|could not/i.test(t)), `no error toast: ${JSON.stringify(toasts)}`);
  });

  it('"Read Cancelled Checkpoints Again" reads it whole: the percent up to the end, then the model', async () => {
    await wb.runCommand('FFN Lens: Read Cancelled Checkpoints Again');
    const toast = wb.page.locator('.notifications-toasts .notification-list-item', { hasText: READING }).first();
    await toast.waitFor({ state: 'visible', timeout: 120_000 });
    await wb.screenshot('checkpoint-progress-reading-again');
    const view = await wb.webview('FFN Lens');
    const caption = view.locator('.probs-chart .chart-caption');
    await until('the prediction', async () => /After "·of", the model predicts/.test(await caption.innerText().catch(() => '')), { timeoutMs: 300_000, everyMs: 300 });
    const seen = await notices();
    const at = seen.findIndex((t) => /was cancelled/.test(t));
    assert.ok(at >= 0, 'the cancelled notice was seen');
    const after = seen.slice(at + 1);
    const pcts = after.map((t) => /: (\d+) % of 498 MB/.exec(t)).filter((m) => m !== null).map((m) => Number(m![1]));
    console.log(`      the panel said again: ${JSON.stringify(after.filter((t) => / % of/.test(t)).slice(-2))}`);
    assert.ok(pcts.length >= 2, `the panel said the read's percent again: ${JSON.stringify(after)}`);
    assert.ok(pcts.every((p, i) => i === 0 || p >= pcts[i - 1]), `in order: ${pcts}`);
    // (its notification said the percent as it went)
    const toasts = (await wb.recordedNotifications()).map((t) => t.replace(/\s+/g, ' '));
    assert.ok(toasts.some((t) => /FFN Lens: reading the checkpoint gpt2-small-random \(498 MB\): \d+ %/.test(t)), `the notification said a percent: ${JSON.stringify(toasts)}`);
    const frame = await wb.webviewFrame(TITLE);
    const px = await wb.readCanvas(frame, '.stream-map .hm-canvas');
    assert.deepEqual([px.width, px.height], [6, 12], '6 tokens × 12 layers');
    assert.equal((await frame.locator('.notice').innerText().catch(() => '')).includes('cancelled'), false, 'the cancelled notice is gone');
    await wb.screenshot('checkpoint-progress-read-again');
  });
});
