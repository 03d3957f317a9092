// A checkpoint whose tokenizer.json carries a pattern that backtracks without end (`(a+)+$`), in a
// real VS Code (either host: on the web one with test/e2e-web/settings.json, where the tokenizer's
// thread is a Web Worker nested in the compute worker): the prompt that sets it off is an error in
// the Problems view, at the prompt, saying it was stopped after its time and naming the pattern;
// the worker stays usable: another model file over the same tokenizer is tokenized after it.
import * as assert from 'node:assert/strict';
import { Workbench } from './lib/workbench';
import { safetensorsBytes, tinyGpt2 } from '../../src/checkpoint/testing';
import { HOSTILE_TEXT, patternTokenizer } from '../../src/tokenizer/testing';

describe('a tokenizer whose own pattern backtracks without end', function () {
  this.timeout(300_000);
  let wb: Workbench;
  const ck = tinyGpt2();

  before(async () => {
    wb = await Workbench.open({
      name: 'tokenizer-budget',
      files: {
        'tiny/config.json': JSON.stringify(ck.config),
        'tiny/model.safetensors': safetensorsBytes(ck.tensors),
        'tiny/tokenizer.json': patternTokenizer('(a+)+$'),
        'hostile.ffn.json': `{\n  "version": 1,\n  "checkpoint": "./tiny",\n  "prompt": "${HOSTILE_TEXT}"\n}\n`,
        // tokenized after the hostile one: its labels do not match its 2 tokens, which only a tokenized prompt can tell
        'after.ffn.json': '{\n  "version": 1,\n  "checkpoint": "./tiny",\n  "prompt": "aa!",\n  "tokens": ["x"]\n}\n',
      },
      waitForFile: 'hostile.ffn.json', viewport: { width: 1400, height: 900 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`tokenizer-budget-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function waitForProblems(ok: (rows: string[]) => boolean, what: string, ms = 60_000): Promise<string[]> {
    const deadline = Date.now() + ms;
    let rows: string[] = [];
    while (Date.now() < deadline) {
      rows = (await wb.page.locator('.markers-panel .monaco-list-row').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
      if (ok(rows)) return rows;
      await wb.page.waitForTimeout(200);
    }
    assert.fail(`${what}; the Problems view lists: ${JSON.stringify(rows)}`);
  }

  it('the prompt is stopped after its time, said at "prompt" with the pattern; the next file is tokenized', async () => {
    await wb.openFile('hostile.ffn.json', { timeoutMs: 60_000 });
    await wb.page.keyboard.press('Control+Shift+M');
    const rows = await waitForProblems((r) => r.some((x) => /was stopped/.test(x)), 'the prompt stopped');
    const row = rows.find((x) => /was stopped/.test(x))!;
    assert.match(row, /the tokenizer cannot encode this prompt: it ran for more than 2 s on this text and was stopped: its pattern at pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex, "\(a\+\)\+\$", may backtrack without end/);
    assert.ok(row.includes('[Ln 4, Col 13]'), row);
    await wb.openFile('after.ffn.json', { timeoutMs: 60_000 });
    const after = await waitForProblems((r) => r.some((x) => /tokens has 1 labels for 2 tokens of input/.test(x)), 'the next file tokenized');
    console.log(`      problems: ${after.join(' | ')}  ${await wb.screenshot('tokenizer-budget')}`);
  });
});
