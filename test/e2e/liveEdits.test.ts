// Live edits in a real VS Code show the right numbers: in the Michael Jordan sample, retype
// W1[0][2] (neuron 0's weight on "Michael appeared so far") from 2 to 0 and the panel's prediction
// falls from basketball 92.8 % to 19.2 %, as `ffn-lens stages` computes from the same text; undo
// brings 92.8 % back; W2[5][0] from 2 to 1 gives 63.7 %. (The rows of this sample are written
// "[  0,  0,  2, …": the layout that the incremental path once read as the wrong row.)
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { edit, pressInEditor } from './lib/editor';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

const FILE = 'michael-jordan.ffn.json';
const TITLE = 'FFN Lens: Michael Jordan';
const TEXT = readFileSync(join(__dirname, '..', '..', '..', 'samples', FILE), 'utf8');
const LINES = TEXT.split('\n');

describe('live edits of the Michael Jordan sample in a real VS Code', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'live-edits', files: { [FILE]: TEXT }, waitForFile: FILE, viewport: { width: 1600, height: 1000 } });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`live-edits-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  /** The prediction chart's caption, once it names `percent`. */
  async function prediction(percent: string): Promise<string> {
    const caption = (await wb.webview(TITLE)).locator('.probs-chart .chart-caption');
    let text = '';
    return until(`the prediction to read ${percent}`, async () => {
      text = await caption.innerText().catch(() => '');
      return text.includes(`(${percent})`) && text;
    }, { describe: () => `it reads: ${text}` });
  }

  /** Selects the number `find` of line `line` (1-based) with Go to Line and the keyboard, then types `by`. */
  async function retype(line: number, find: RegExp, by: string): Promise<void> {
    const text = LINES[line - 1];
    const m = find.exec(text);
    assert.ok(m, `line ${line}: ${text}`);
    await edit(wb, { file: FILE, line, col: m.index + 1, select: m[0].length, text: by, panel: await wb.webview(TITLE) });
  }

  it('opens with basketball at 92.8 %', async () => {
    await wb.visualize(FILE, TITLE);
    assert.match(await prediction('92.8%'), /predicts "basketball"/);
  });

  it('W1[0][2] from 2 to 0: the panel says 19.2 %, as the command line does; undo: 92.8 % again', async () => {
    assert.match(LINES[114], /^\s*\[\s+0,\s+0,\s+2,\s+2,/, 'line 115 is W1 row 0');
    await retype(115, /(?<=\[\s+0,\s+0,\s+)2/, '0');
    await prediction('19.2%');
    await wb.screenshot('live-edits-w1');
    await pressInEditor(wb, 'Control+Z', { file: FILE, line: 115, expect: LINES[114], panel: await wb.webview(TITLE) });
    await prediction('92.8%');
  });

  it('W2[5][0] from 2 to 1: 63.7 %', async () => {
    const line = LINES.findIndex((l) => /^\s*\[\s+2, 0, 0, 0\],\s+\/\/ bb/.test(l)) + 1;
    assert.ok(line > 0);
    await retype(line, /(?<=\[\s+)2/, '1');
    await prediction('63.7%');
    await wb.screenshot('live-edits-w2');
  });
});
