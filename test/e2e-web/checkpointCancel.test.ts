// Cancel of a large checkpoint's read in the web worker extension host, where the host streams the
// file to the compute worker with its own notification (src/compute/hostFiles.ts): Cancel there is
// the read's Cancel, said as the Node host says it (no error: the panel says it was cancelled and
// how to read it again, the `checkpoint` key has a warning), and "Read Cancelled Checkpoints Again"
// reads it whole. The read begins only when the test edits the model file to name the folder (the
// panel open), and the page clicks Cancel the moment the notification says a percent (the worker
// has the header then): the read cannot end first.
// Run: node scripts/run-e2e.mjs --settings test/e2e-web/settings.json --files out/test/e2e-web/checkpointCancel.test.js
import * as assert from 'node:assert/strict';
import { edit } from '../e2e/lib/editor';
import { GPT2_SMALL_FOLDER, writeGpt2SmallCheckpoint } from '../e2e/lib/gpt2Checkpoint';
import { cancelWhenShown, recordNotices } from '../e2e/lib/readCancel';
import { until } from '../e2e/lib/until';
import { Workbench } from '../e2e/lib/workbench';

const FILE = 'gpt2-small.ffn.json';
const LATER = './not-yet';
const TEXT = `{\n  "version": 1,\n  "name": "GPT-2 small (random weights)",\n  "checkpoint": "${LATER}",\n  "prompt": "Michael Jordan plays the sport of"\n}\n`;
const TITLE = 'FFN Lens: GPT-2 small (random weights)';
const STREAMING = /FFN Lens: reading model\.safetensors \(498 MB\)/;

describe('Cancel of a large checkpoint read in the web worker extension host', function () {
  this.timeout(900_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'web-checkpoint-cancel', files: { [FILE]: TEXT }, waitForFile: FILE, viewport: { width: 1600, height: 1000 }, timeoutMs: 120_000 });
    writeGpt2SmallCheckpoint(wb.folder);
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`web-checkpoint-cancel-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  let notices: () => Promise<string[]> = async () => [];

  it("Cancel in the host's notification ends the read as cancelled, not as an error: the panel says it, the checkpoint key warns", async () => {
    await wb.recordNotifications();
    await wb.openFile(FILE);
    await wb.runCommand('FFN Lens: Visualize FFN');
    const frame = await wb.webviewFrame('FFN Lens', { timeoutMs: 60_000 });
    await until('the panel to say the folder is missing', async () => /not-yet/.test(await frame.locator('body.has-errors').innerText().catch(() => '')), { timeoutMs: 120_000, everyMs: 300 });
    notices = await recordNotices(frame);
    const clicked = await cancelWhenShown(wb.page, new RegExp(`${STREAMING.source}: [1-9]\\d* %`));
    await edit(wb, { file: FILE, line: 4, col: TEXT.split('\n')[3].indexOf(LATER) + 1, select: LATER.length, text: `./${GPT2_SMALL_FOLDER}`, insert: true });
    const cancelled = await until('the panel to say the read was cancelled', async () => {
      const t = await frame.locator('.notice').innerText().catch(() => '');
      return /was cancelled at \d+ % of 498 MB/.test(t) && t;
    }, { timeoutMs: 300_000, everyMs: 300, describe: async () => `Cancel clicked on ${JSON.stringify(await clicked())}; the panel said ${JSON.stringify(await notices())}` });
    // the file's own state says it too: a warning at its checkpoint key (its hover), the folder missing before the edit gone from the panel
    await until('the panel to drop the problem of the text before the edit', async () => !/not-yet/.test(await frame.locator('body').innerText().catch(() => 'not-yet')), { timeoutMs: 120_000, everyMs: 300 });
    const hover = await wb.hover('gpt2-small-random', { expect: /reading the checkpoint was cancelled: edit this file/, timeoutMs: 60_000 });
    assert.equal(/cannot be read|could not|failed/i.test(hover), false, `a warning, no error: ${hover}`);
    await wb.screenshot('web-checkpoint-cancelled');
    const toasts = await wb.recordedNotifications();
    const inPanel = await notices();
    console.log(`      Cancel clicked on ${JSON.stringify(await clicked())}; notifications: ${JSON.stringify(toasts)}; panel: ${JSON.stringify(inPanel)}`);
    assert.ok(await clicked(), 'the page clicked Cancel in the notification');
    assert.match(cancelled, /Read Cancelled Checkpoints Again/);
    assert.ok(Number(/at (\d+) %/.exec(cancelled)![1]) < 100, 'stopped before the end');
    const body = await frame.locator('body').innerText();
    assert.equal(/cannot be read|could not|failed/i.test(body), false, `no error in the panel: ${body.slice(0, 400)}`);
    assert.ok(!toasts.some((t) => /error|failed|could not/i.test(t)), `no error toast: ${JSON.stringify(toasts)}`);
  });

  it('"Read Cancelled Checkpoints Again" streams it whole: the model', async () => {
    await wb.runCommand('FFN Lens: Read Cancelled Checkpoints Again');
    const view = await wb.webview('FFN Lens');
    const caption = view.locator('.probs-chart .chart-caption');
    await until('the prediction', async () => /After "·of", the model predicts/.test(await caption.innerText().catch(() => '')), { timeoutMs: 600_000, everyMs: 500 });
    const seen = await notices();
    const at = seen.findIndex((t) => /was cancelled/.test(t));
    assert.ok(at >= 0, 'the cancelled notice was seen');
    assert.ok(seen.slice(at + 1).some((t) => / % of 498 MB/.test(t)), `the read's percent again: ${JSON.stringify(seen.slice(at + 1))}`);
    const frame = await wb.webviewFrame(TITLE);
    const px = await wb.readCanvas(frame, '.stream-map .hm-canvas');
    assert.deepEqual([px.width, px.height], [6, 12], '6 tokens × 12 layers');
    assert.equal((await frame.locator('.notice').innerText().catch(() => '')).includes('cancelled'), false, 'the cancelled notice is gone');
    await wb.screenshot('web-checkpoint-read-again');
  });
});
