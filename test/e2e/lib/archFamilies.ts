// Issue 29's new families in a real VS Code, every part of FFN Lens on each: the small random-weight
// checkpoints of test/fixtures/arch-cases (made with PyTorch; their cases list every stage id) of
// gpt_neox, gemma2, gemma3 and qwen3, each beside a model file with an empty "ablate". Shared by
// the Node host's test (../architecturesFamilies.test.ts) and the web worker host's
// (../../e2e-web/webArchitectures.test.ts).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseCompare, stageCanvas, uniformCanvas } from './compare';
import { edit, renderedVersion } from './editor';
import { until } from './until';
import type { Workbench } from './workbench';

const CASES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'arch-cases');

export interface Family {
  /** model_type, for the test's title */
  readonly type: string;
  readonly file: string;
  readonly title: string;
  readonly folder: string;
  readonly text: string;
  /** Every stage id of the case, in the contract's order. */
  readonly stages: readonly string[];
}

const CASE_OF: Record<string, [string, string]> = { gpt_neox: ['neox_parallel', 'neox-parallel'], gemma2: ['gemma2_bf16', 'gemma2-bf16'], gemma3: ['gemma3_f32', 'gemma3-f32'], qwen3: ['qwen3_bf16', 'qwen3-bf16'] };

export const FAMILIES: readonly Family[] = Object.entries(CASE_OF).map(([type, [name, folder]]) => {
  const c = JSON.parse(readFileSync(join(CASES, `${name}.json`), 'utf8')) as { model: Record<string, unknown>; expected: Record<string, unknown> };
  const title = `${type} (random weights)`;
  const text = `${JSON.stringify({ ...c.model, name: title, checkpoint: `./${folder}`, ablate: [] }, null, 2)}\n`;
  return { type, file: `${type}.ffn.json`, title: `FFN Lens: ${title}`, folder, text, stages: Object.keys(c.expected) };
});

/** The files of every family: model files and checkpoint folders. */
export function familyFiles(): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {};
  for (const f of FAMILIES) {
    files[f.file] = f.text;
    for (const n of ['config.json', 'model.safetensors']) files[`${f.folder}/${n}`] = readFileSync(join(CASES, f.folder, n));
  }
  return files;
}

/** The panel draws every stage of the case (each card's state "drawn") and a prediction. */
export async function everyStageDrawn(wb: Workbench, f: Family): Promise<void> {
  const view = await wb.visualize(f.file, f.title, { timeoutMs: 120_000 });
  // (a model of 3 layers or more starts with its layers closed: their cards are drawn once open)
  await view.locator('vscode-button.expand-all').click();
  let missing: string[] = [];
  await until(`every stage of ${f.type} drawn`, async () => {
    missing = [];
    for (const id of f.stages) if ((await view.locator(`section.card[data-stage-id="${id}"][data-state="drawn"]`).count()) === 0) missing.push(id);
    return missing.length === 0;
  }, { timeoutMs: 120_000, everyMs: 300, describe: () => `not drawn: ${missing.join(', ')}` });
  await until('the prediction', async () => /the model predicts/.test(await view.locator('.probs-chart .chart-caption').innerText().catch(() => '')), { timeoutMs: 60_000 });
}

/** The ablate entry the tests type: neuron 3 of layer 1's FFN. */
export const NEURON = 'layers.1.ffn.neuron.3';

/**
 * Types NEURON into "ablate" (at once, as a paste: no half-typed version between) and checks the
 * render that follows was incremental: no stage before layer 1's FFN came whole (they came as
 * kept). (Layer 1's activation may come whole: the first ablate of a layer adds its unit scales.)
 */
export async function ablateIncrementally(wb: Workbench, f: Family): Promise<number> {
  const view = await wb.webview(f.title);
  const lines = f.text.split('\n');
  const line = lines.findIndex((l) => l.includes('"ablate": []')) + 1;
  const col = lines[line - 1].indexOf('[') + 2;
  const resyncs = async (): Promise<number> => Number((await view.locator('body').getAttribute('data-resyncs')) ?? 0);
  const before = await resyncs();
  const { version } = await edit(wb, { file: f.file, line, col, text: `"${NEURON}"`, insert: true, panel: view, timeoutMs: 120_000 });
  await until(`version ${version} drawn`, async () => (await renderedVersion(view)) >= version, { timeoutMs: 120_000 });
  const raw = ((await view.locator('body').getAttribute('data-arrivals')) ?? '').split(' ').filter(Boolean);
  const arrivals = raw.map((a) => a.split('@')[0]);
  // (a logit-lens stage is posted last: the render before the edit may not have sent layer 0's yet,
  // and then it rightly comes with this one; what it reads, layers.0.out, is still checked)
  const whole = arrivals.filter((id) => !id.includes('.lens.') && (id === 'input' || id.startsWith('layers.0.') || id === 'layers.1.ln1' || id.startsWith('layers.1.attn.')));
  // (a panel that lost a message on the way, dropped as stale by the host on a loaded machine, asks
  // for everything again, and then rightly gets it whole: the worker's side is checked without
  // VS Code in src/worker/ablateKept.test.ts; here a resync is said, and the numbers are checked after)
  const models = await view.locator('body').getAttribute('data-models');
  if ((await resyncs()) === before) assert.deepEqual(whole, [], `${f.type}: stages sent whole after an ablate of ${NEURON} in version ${version} (${raw.join(' ')}; the last model messages' versions: ${models})`);
  else console.log(`${f.type}: the panel resynced after the ablate; the render came whole`);
  // what follows the neuron comes anew: layer 1's output holds numbers of this version (a card the
  // panel did not show when the render came, its layers closed by a restore, is sent once shown)
  await view.locator('vscode-button.expand-all').click();
  const out = view.locator('section.card[data-stage-id="layers.1.out"]');
  await until(`${f.type}: layers.1.out holds numbers of version ${version}`, async () => Number((await out.getAttribute('data-version').catch(() => null)) ?? -1) >= version, {
    timeoutMs: 60_000, describe: async () => `it holds version ${await out.getAttribute('data-version').catch(() => null)}'s; the render's arrivals: ${arrivals.join(' ')}`,
  });
  return version;
}

/** A hover over the ablate entry in the model file shows the neuron's values per token. */
export async function hoverNeuron(wb: Workbench, f: Family): Promise<string> {
  await wb.openFile(f.file);
  const word = wb.page.locator('.editor-group-container .view-lines span span', { hasText: NEURON }).first();
  const hover = wb.page.locator('.monaco-hover:not(.hidden) .monaco-hover-content', { hasText: NEURON }).first();
  for (let i = 0; i < 10 && !(await hover.isVisible()); i++) {
    await wb.page.mouse.move(0, 0);
    await word.hover();
    await hover.waitFor({ state: 'visible', timeout: 3000 }).catch(() => undefined);
  }
  const text = (await hover.innerText()).replace(/\u00a0/g, ' ');
  assert.match(text, /neuron 3 of layer 1's FFN, switched off/, text);
  // a row per token, each with numbers (up, act)
  assert.ok((text.match(/-?\d+\.\d+/g) ?? []).length >= 8, `${f.type}: the hover's values: ${text}`);
  await wb.page.keyboard.press('Escape');
  return text;
}

/** Compare with the file without its ablate: the input the same, the prediction's logits not. */
export async function compareWithPlain(wb: Workbench, f: Family): Promise<void> {
  const view = await wb.webview(f.title);
  const frame = await wb.webviewFrame(f.title);
  const uniform = (id: string): Promise<boolean> => uniformCanvas(wb, frame, stageCanvas(id));
  const choose = (k: string): Promise<void> => chooseCompare(view, k);
  // (a model of 3 layers starts with its layers closed, and the panel may have been restored
  // closed again while the model file had the focus: their cards are drawn once open)
  await view.locator('vscode-button.expand-all').click();
  // (choosing reruns the document in full, to a 'done' of its own: the panel stamps data-done-at)
  const doneAt = (): Promise<string | null> => view.locator('body').getAttribute('data-done-at');
  const before = await doneAt();
  await choose('plain');
  await until('the compare note and its run done', async () => /without ablate/.test(await view.locator('.compare-note').innerText().catch(() => '')) && (await doneAt()) !== before, { timeoutMs: 120_000 });
  // the cards redraw as differences one by one: the logits, then every card before the neuron at zero
  await until('the logits differ from the baseline', async () => !(await uniform('head.logits')), { timeoutMs: 60_000 });
  await until(`${f.type}: the input and layer 0 the baseline's (uniform differences)`, async () => (await uniform('input')) && (await uniform('layers.0.out')), { timeoutMs: 60_000 });
  await wb.screenshot(`arch-${f.type}-compare`);
  const compared = await doneAt();
  await choose('none');
  // (the note is hidden, its text kept) and the rerun done: every stage holds its own numbers again
  await until('the compare note hidden and the rerun done', async () => (await view.locator('.compare-note').evaluate((el: any) => el.hidden as boolean)) && (await doneAt()) !== compared, { timeoutMs: 120_000 });
  await until('the input its own numbers again', async () => !(await uniform('input')), { timeoutMs: 60_000 });
}
