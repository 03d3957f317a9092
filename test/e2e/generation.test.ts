// Generation in a real VS Code (issue 31): a checkpoint model file with "generate" (stories260K,
// the sample Llama) generates as its panel opens; the Generation section shows the tokens as they
// come, the same as `ffn-lens generate` chooses; a click on an alternative continues the file's
// "token_ids" with it (the tokens before the step, then the alternative) and generation starts
// again from the longer input; a generated token picked, every heatmap shows the run of the input
// and the generated tokens with that token's row highlighted, its values those `ffn-lens stages`
// prints for that sequence; Cancel and "FFN Lens: Stop Generating" stop a long one.
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

/** A heatmap tooltip's cell: its head (0 for a map without heads), row, column and value. */
function tooltipCell(text: string): { head: number; row: number; col: number; value: number } | null {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const head = Number(/· head (\d+)/.exec(lines[0] ?? '')?.[1] ?? 0);
  const at = /\(row (\d+)\) (?:→ key .*\(column (\d+)\)|· (?:[^(]*\((\d+)\)|\D*(\d+)))$/.exec(lines[1] ?? '');
  const value = / = (\S+)$/.exec(lines.at(-1) ?? '');
  if (!at || !value) return null;
  return { head, row: Number(at[1]), col: Number(at[2] ?? at[3] ?? at[4]), value: Number(value[1]) };
}

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

  /** `ffn-lens stages` of the model file with `ids` as its input. */
  function cliStages(ids: readonly number[]): Map<string, { shape: number[]; data: number[] }> {
    const path = join(wb.folder, 'cli-stages.ffn.json');
    writeFileSync(path, modelText(ids, 1).replace(/,\n  "generate".*\n/, '\n'));
    const out = JSON.parse(execFileSync(process.execPath, [CLI, 'stages', path], { encoding: 'utf8', maxBuffer: 1 << 28 })) as { stages: Array<{ id: string; shape: number[]; data: number[] }> };
    return new Map(out.stages.map((s) => [s.id, s]));
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

  it('a generated token picked: every heatmap shows its row, the values ffn-lens stages prints for the input and the generated tokens', async () => {
    const view = await wb.webview(TITLE);
    const step = 3;
    const row = INPUT.length + step;
    await view.locator('vscode-button', { hasText: 'Expand all' }).first().click(); // (every layer's cards: Q/K/V, attention, FFN)
    const renderedAt = await view.locator('body').getAttribute('data-rendered-at');
    await view.locator(`.gen-token[data-step="${step}"]`).click();
    const g = view.locator('.generation-view');
    await until('the heatmaps show the input and the generated tokens, the picked row', async () =>
      (await g.getAttribute('data-stages')) === 'generated' && (await g.getAttribute('data-stages-row')) === String(row)
      && (await view.locator('body').getAttribute('data-rendered-at')) !== renderedAt, { timeoutMs: 60_000 });
    const visible = (): Promise<Array<{ id: string; state: string }>> => view.locator('.card').evaluateAll((els) => els
      .filter((e: any) => e.offsetParent !== null && e.querySelector('canvas.hm-canvas')?.offsetParent)
      .map((e: any) => ({ id: e.dataset.stageId as string, state: e.dataset.state as string })));
    await until('every card shown drawn', async () => (await visible()).every((c) => c.state === 'drawn'));
    const cards = (await visible()).map((c) => c.id);
    const cli = cliStages([...INPUT, ...first.ids]);
    const rowsOf = (id: string): number => (cli.get(id)!.shape.length === 3 ? cli.get(id)!.shape[1] : cli.get(id)!.shape[0]);
    for (const id of ['layers.0.attn.q', 'layers.0.attn.k', 'layers.0.attn.v', 'layers.0.attn.weights', 'layers.0.ffn.up', 'layers.0.ffn.act', 'layers.0.ffn.down', 'layers.0.attn.residual', 'layers.0.ln1', 'head.logits']) {
      assert.ok(cards.includes(id), `${id} is drawn (drawn: ${cards.join(', ')})`);
    }
    // every heatmap shown has the picked row's band, at that row of the input + 8 generated rows
    for (const id of cards) {
      const band = view.locator(`.card[data-stage-id="${id}"] .hm-band`).first();
      assert.equal(await band.isVisible(), true, `${id}: the picked row's band`);
      const c = (await view.locator(`.card[data-stage-id="${id}"] canvas.hm-canvas`).first().boundingBox())!;
      const b = (await band.boundingBox())!;
      assert.equal(rowsOf(id), INPUT.length + 8, `${id}: a row per token`);
      assert.ok(Math.abs((b.y - c.y) - (row / rowsOf(id)) * c.height) <= 2, `${id}: the band at row ${row} (${b.y - c.y} px of ${c.height})`);
    }
    await view.locator('.card[data-stage-id="layers.0.attn.weights"]').scrollIntoViewIfNeeded();
    await wb.screenshot('generation-token-stages');
    // the band hovered: the tooltip's row and value are those of ffn-lens stages
    const tip = view.locator('.tooltip');
    let last = '';
    for (const id of ['layers.0.attn.q', 'layers.0.attn.weights', 'layers.0.ffn.act', 'layers.0.ffn.down', 'head.logits']) {
      for (const frac of [0.01, 0.3]) {
        const canvas = view.locator(`.card[data-stage-id="${id}"] canvas.hm-canvas`).first();
        await canvas.scrollIntoViewIfNeeded();
        const c = (await canvas.boundingBox())!;
        const b = (await view.locator(`.card[data-stage-id="${id}"] .hm-band`).first().boundingBox())!;
        await canvas.hover({ position: { x: Math.max(1, c.width * frac), y: b.y - c.y + b.height / 2 } });
        const text = await until(`${id}'s tooltip`, async () => (await tip.isVisible()) && (await tip.innerText()) !== last && tip.innerText());
        last = text;
        const cell = tooltipCell(text);
        assert.ok(cell, `${id}: the tooltip reads ${JSON.stringify(text)}`);
        assert.equal(cell.row, row, `${id}: the picked row (${text})`);
        const want = cli.get(id)!;
        const [rows, cols] = want.shape.length === 3 ? want.shape.slice(1) : want.shape;
        const expect = want.data[(cell.head * rows + row) * cols + cell.col];
        assert.equal(Math.fround(cell.value), Math.fround(expect), `${id}[${cell.head}][${row}][${cell.col}]: the panel ${cell.value}, ffn-lens stages ${expect}`);
      }
    }
    // the same token again: the input's run
    await view.locator(`.gen-token[data-step="${step}"]`).click();
    await until('the heatmaps show the input\'s run again', async () => (await g.getAttribute('data-stages')) === 'input' && (await g.getAttribute('data-stages-row')) === ''
      && new RegExp(`(^|\\s)${INPUT.length} tokens`).test(await view.locator('.panel-header').innerText()));
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
    let running = await waitRun(view, `the edited file's generation (after version ${before}) under way`, (s) => s.version > before && s.state === 'running' && s.done >= 1);
    assert.equal(running.total, 400);
    await wb.screenshot('generation-running');
    // (a click takes its time to reach the worker: on a busy machine stories260K's 400 tokens can
    // all come first; then Generate again and Cancel again, up to three times)
    let cancelled = null;
    for (let attempt = 0; attempt < 3 && !cancelled; attempt++) {
      if (attempt > 0) {
        await view.locator('.gen-cancel').click(); // (its label: Generate again)
        running = await waitRun(view, 'generating again', (s) => s.state === 'running' && s.done >= 1);
      }
      await view.locator('.gen-cancel').click();
      const end = await waitRun(view, 'the generation cancelled or done', (s) => s.version === running.version && (s.state === 'cancelled' || s.state === 'done'));
      if (end.state === 'cancelled') cancelled = end;
    }
    assert.ok(cancelled, 'Cancel stopped the generation in one of three attempts');
    assert.ok(cancelled.done < 400, `stopped at ${cancelled.done} / 400`);
    assert.match(await view.locator('.gen-progress').innerText(), /cancelled at \d+ \/ 400/);
    await wb.screenshot('generation-cancelled');
    // Generate again, then the command (again, up to three times, should the tokens all come first)
    let stopped = null;
    for (let attempt = 0; attempt < 3 && !stopped; attempt++) {
      await view.locator('.gen-cancel').click();
      const again = await waitRun(view, 'generating again', (s) => s.state === 'running' && s.done >= 1);
      await wb.runCommand('FFN Lens: Stop Generating');
      const end = await waitRun(view, 'the generation stopped by the command, or done', (s) => s.version === again.version && (s.state === 'cancelled' || s.state === 'done') && s.done >= again.done);
      if (end.state === 'cancelled') stopped = end;
    }
    assert.ok(stopped, 'the command stopped the generation in one of three attempts');
    assert.ok(stopped.done < 400, `stopped at ${stopped.done} / 400`);
  });
});
