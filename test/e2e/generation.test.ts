// Generation in a real VS Code (issue 31): a checkpoint model file with "generate" (stories260K,
// the sample Llama) generates as its panel opens; the Generation section shows the tokens as they
// come, the same as `ffn-lens generate` chooses; a click on an alternative continues the file's
// "token_ids" with it (the tokens before the step, then the alternative) and generation starts
// again from the longer input; Cancel and "FFN Lens: Stop Generating" stop a long one.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { edit, focusEditor, lineText } from './lib/editor';
import { until } from './lib/until';
import { Workbench } from './lib/workbench';

const ROOT = join(__dirname, '..', '..', '..');
const SAMPLES = join(ROOT, 'samples');
const CLI = join(ROOT, 'dist', 'cli.js');
const FILE = 'generating.ffn.json';
const TITLE = 'FFN Lens: stories260K generating';
const INPUT = [1, 403, 407, 261, 378];
const modelText = (ids: readonly number[], tokens: number): string => `{
  "version": 1,
  "name": "stories260K generating",
  "checkpoint": "./stories260K",
  "token_ids": [${ids.join(', ')}],
  "generate": { "tokens": ${tokens}, "temperature": 0, "top_k": 4, "seed": 1 }
}
`;
const folder = (f: string): Uint8Array => readFileSync(join(SAMPLES, 'stories260K', f));

interface Shown { version: number; state: string; done: number; total: number; ids: number[]; prompt: number[] }

describe('generation in a real VS Code', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'generation',
      files: { [FILE]: modelText(INPUT, 8), 'stories260K/config.json': folder('config.json'), 'stories260K/model.safetensors': folder('model.safetensors') },
      waitForFile: FILE, viewport: { width: 1600, height: 1000 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`generation-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  /** The ids `ffn-lens generate` chooses for this model file's text (written beside the window's). */
  function cliIds(text: string): number[] {
    const path = join(wb.folder, 'cli-copy.ffn.json');
    writeFileSync(path, text);
    const out = JSON.parse(execFileSync(process.execPath, [CLI, 'generate', path], { encoding: 'utf8' })) as { generate: { steps: Array<{ id: number }> } };
    return out.generate.steps.map((s) => s.id);
  }

  async function shown(view: FrameLocator): Promise<Shown> {
    const g = view.locator('.generation-view');
    const [version, state, done, total, ids] = await Promise.all(['data-version', 'data-state', 'data-done', 'data-total', 'data-ids'].map((a) => g.getAttribute(a)));
    const prompt = await view.locator('.gen-prompt').evaluateAll((els) => els.map((e: any) => Number(/#(\d+)/.exec(e.title)?.[1])));
    return { version: Number(version ?? -1), state: state ?? '', done: Number(done ?? 0), total: Number(total ?? 0), ids: ids ? ids.split(',').map(Number) : [], prompt };
  }

  /** Waits until the Generation section shows a run after `after` in state `state`. */
  async function waitRun(view: FrameLocator, what: string, ok: (s: Shown) => boolean): Promise<Shown> {
    let last: Shown | null = null;
    return until(what, async () => {
      last = await shown(view);
      return ok(last) && last;
    }, { timeoutMs: 120_000, describe: () => `it shows ${JSON.stringify(last)}` });
  }

  let first: Shown;

  it('opens and generates: the tokens appear, as ffn-lens generate chooses them', async () => {
    const view = await wb.visualize(FILE, TITLE);
    first = await waitRun(view, 'the generation of 8 tokens done', (s) => s.state === 'done' && s.done === 8);
    assert.deepEqual(first.prompt, INPUT, 'the input\'s tokens first');
    assert.deepEqual(first.ids, cliIds(modelText(INPUT, 8)), 'the ids ffn-lens generate prints');
    assert.equal(await view.locator('.gen-token').count(), 8);
    assert.match(await view.locator('.gen-progress').innerText(), /generated 8 tokens/);
    // the last step's alternatives: 4 bars, the chosen one marked
    assert.equal(await view.locator('.gen-alt').count(), 4);
    assert.equal(await view.locator('.gen-alt.chosen').getAttribute('data-id'), String(first.ids[7]));
    await wb.screenshot('generation-done');
  });

  it('an alternative clicked branches: token_ids gains the tokens before it and it, and generation starts again from there', async () => {
    const view = await wb.webview(TITLE);
    await view.locator('.gen-token[data-step="1"]').click();
    await view.locator('.gen-alt[data-step="1"]').first().waitFor();
    await wb.screenshot('generation-step-picked');
    const alt = view.locator('.gen-alt[data-step="1"]:not(.chosen)').first();
    const altId = Number(await alt.getAttribute('data-id'));
    assert.notEqual(altId, first.ids[1]);
    await alt.click();
    const branched = [...INPUT, first.ids[0], altId];
    const next = await waitRun(view, `a new generation after version ${first.version}, from the branched input, done`, (s) => s.version > first.version && s.state === 'done' && s.done === 8);
    assert.deepEqual(next.prompt, branched, 'the new run\'s input: the old input, the token before the step, the alternative');
    assert.deepEqual(next.ids, cliIds(modelText(branched, 8)), 'generated on as ffn-lens generate does from the branched file');
    // the file itself: its editor's token_ids line
    const line = modelText(INPUT, 8).split('\n').findIndex((l) => l.includes('"token_ids"')) + 1;
    await focusEditor(wb, FILE);
    assert.equal((await lineText(wb.page, line))?.trim(), `"token_ids": [${branched.join(', ')}],`);
    await wb.screenshot('generation-branched');
  });

  it('Cancel stops a long generation; Generate again and "FFN Lens: Stop Generating" too', async () => {
    const view = await wb.webview(TITLE);
    const line = modelText(INPUT, 8).split('\n').findIndex((l) => l.includes('"generate"')) + 1;
    const col = modelText(INPUT, 8).split('\n')[line - 1].indexOf('8') + 1;
    const before = (await shown(view)).version;
    await edit(wb, { file: FILE, line, col, select: 1, text: '400', panel: view });
    const running = await waitRun(view, `the edited file's generation (after version ${before}) under way`, (s) => s.version > before && s.state === 'running' && s.done >= 2);
    assert.equal(running.total, 400);
    await wb.screenshot('generation-running');
    await view.locator('.gen-cancel').click();
    const cancelled = await waitRun(view, 'the generation cancelled', (s) => s.version === running.version && s.state === 'cancelled');
    assert.ok(cancelled.done < 400, `stopped at ${cancelled.done} / 400`);
    assert.match(await view.locator('.gen-progress').innerText(), /cancelled at \d+ \/ 400/);
    await wb.screenshot('generation-cancelled');
    // Generate again, then the command
    await view.locator('.gen-cancel').click();
    await waitRun(view, 'generating again', (s) => s.state === 'running' && s.done >= 1);
    await wb.runCommand('FFN Lens: Stop Generating');
    const stopped = await waitRun(view, 'the generation stopped by the command', (s) => s.state === 'cancelled');
    assert.ok(stopped.done < 400, `stopped at ${stopped.done} / 400`);
  });
});
