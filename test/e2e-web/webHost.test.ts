// FFN Lens in the web worker extension host (what vscode.dev and github.dev run), in code-server
// forced there by the setting web-extension notes name ("remote.extensionKind": web): the
// extension and its compute worker (a Web Worker) run in the browser, files come through
// vscode.workspace.fs. The same harness as the e2e suite: it checks which host runs the extension
// ("Developer: Show Running Extensions"), then opens the Michael Jordan model, reads the panel's
// pixels, edits a weight and sees the prediction follow, hovers a number, and opens stories260K (a
// checkpoint read through the host).
import * as assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { checkpointChunks, type CheckpointPreset } from '../../src/checkpoint/presets';
import { join } from 'node:path';
import { edit, pressInEditor } from '../e2e/lib/editor';
import { until } from '../e2e/lib/until';
import { Workbench } from '../e2e/lib/workbench';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';
import { forward } from '../../src/core/forward';
import { tsKernel } from '../../src/core/kernel';
import { readModel } from '../../src/model/read';
import { runOf } from '../../src/lenses/cache';
import { directLogitAttribution } from '../../src/lenses/dla';
import { logitLensGrid } from '../../src/lenses/logitLens';

const LENSES = 'lenses.ffn.json';
const LENSES_TITLE = 'FFN Lens: stories260K lenses';
const LENSES_TEXT = '{\n  "version": 1,\n  "name": "stories260K lenses",\n  "checkpoint": "./stories260K",\n  "token_ids": [1, 403, 407, 261, 378, 432, 285],\n  "corrupted_token_ids": [1, 403, 407, 261, 300, 432, 285],\n  "lens": true\n}\n';

/** The lenses of LENSES_TEXT computed in this (Node) process, from the same files. */
async function lensesHere() {
  const path = join(SAMPLES, 'x.ffn.json');
  const r = await resolveReadNow(readModel(LENSES_TEXT, path), path, new CheckpointStore(nodeFiles), new CheckpointResolver());
  const model = r.file!.model;
  const run = runOf(model, forward(model, tsKernel));
  return { lens: logitLensGrid(run, 5), dla: directLogitAttribution(run, { alt: 'second' }), T: model.spec.T, L: model.spec.layers.length };
}

const SAMPLES = join(__dirname, '..', '..', '..', 'samples');
const MJ = 'michael-jordan.ffn.json';
const MJ_TITLE = 'FFN Lens: Michael Jordan';
const MJ_TEXT = readFileSync(join(SAMPLES, MJ), 'utf8');
const ST = 'stories260K.ffn.json';
const LINKED = 'linked.ffn.json';
const ST_TITLE = 'FFN Lens: stories260K (TinyStories, Llama architecture)';
const folder = (f: string): Uint8Array => readFileSync(join(SAMPLES, 'stories260K', f));

/** A checkpoint over 50 MB: one Llama layer, d_model 1024, d_ff 4096, vocab 512 (17.3M float32 parameters, 69 MB). */
function wideCheckpoint(): Record<string, Uint8Array | string> {
  const C = 1024, F = 4096, V = 512;
  const l = 'model.layers.0.';
  const preset = {
    id: 'smollm2-135m-checkpoint', label: 'wide', detail: '', folder: 'wide-llama', dtype: 'F32',
    config: { architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: C, intermediate_size: F, num_hidden_layers: 1, num_attention_heads: 8, num_key_value_heads: 8, vocab_size: V, max_position_embeddings: 64, rms_norm_eps: 1e-5, rope_theta: 10000, tie_word_embeddings: true, hidden_act: 'silu' },
    tensors: [
      { name: 'model.embed_tokens.weight', shape: [V, C], fill: 'normal' },
      { name: `${l}input_layernorm.weight`, shape: [C], fill: 'ones' },
      ...['q', 'k', 'v', 'o'].map((x) => ({ name: `${l}self_attn.${x}_proj.weight`, shape: [C, C], fill: 'normal' as const })),
      { name: `${l}post_attention_layernorm.weight`, shape: [C], fill: 'ones' },
      { name: `${l}mlp.gate_proj.weight`, shape: [F, C], fill: 'normal' }, { name: `${l}mlp.up_proj.weight`, shape: [F, C], fill: 'normal' },
      { name: `${l}mlp.down_proj.weight`, shape: [C, F], fill: 'normal' },
      { name: 'model.norm.weight', shape: [C], fill: 'ones' },
    ],
    tokenIds: [1, 2, 3],
  } as unknown as CheckpointPreset;
  const chunks = [...checkpointChunks(preset)];
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return {
    'wide-llama/config.json': JSON.stringify(preset.config),
    'wide-llama/model.safetensors': all,
    'wide.ffn.json': '{\n  "version": 1,\n  "name": "wide",\n  "checkpoint": "./wide-llama",\n  "token_ids": [1, 2, 3, 4]\n}\n',
  };
}

describe('the web worker extension host (vscode.dev\'s), in code-server', function () {
  this.timeout(480_000); // (a loaded machine: the 69 MB read through workspace.fs alone took over 90 s)
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'web-host',
      files: { [MJ]: MJ_TEXT, [LENSES]: LENSES_TEXT, [ST]: readFileSync(join(SAMPLES, ST), 'utf8'), 'stories260K/config.json': folder('config.json'), 'stories260K/model.safetensors': folder('model.safetensors'), ...wideCheckpoint(),
        [LINKED]: '{\n  "version": 1,\n  "checkpoint": "./linked",\n  "token_ids": [1, 403]\n}\n', 'linked/config.json': folder('config.json') },
      waitForFile: MJ, viewport: { width: 1600, height: 1000 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`web-host-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  async function caption(title: string, match: RegExp, ms = 60_000): Promise<string> {
    const c = (await wb.webview(title)).locator('.probs-chart .chart-caption');
    let text = '';
    return until(`the prediction to match ${match}`, async () => {
      text = await c.innerText().catch(() => '');
      return match.test(text) && text;
    }, { timeoutMs: ms, everyMs: 150, describe: () => `it reads: ${text}` });
  }

  it('the Michael Jordan model opens in its panel: basketball 92.8 %, the heatmaps drawn (pixels)', async () => {
    await wb.visualize(MJ, MJ_TITLE);
    await caption(MJ_TITLE, /predicts "basketball" \(92\.8%\)/);
    const frame = await wb.webviewFrame(MJ_TITLE);
    const px = await wb.readCanvas(frame, 'section.card[data-stage-id="layers.0.ffn.up"] .hm-canvas');
    assert.ok(px.width > 0 && px.height > 0);
    const colors = new Set<string>();
    for (let i = 0; i < px.data.length; i += 4) colors.add(px.data.slice(i, i + 3).join());
    assert.ok(colors.size > 3, `the up-projection is drawn (${colors.size} colours)`);
    // the forward ran on the WebAssembly SIMD kernel in the Web Worker (not the TypeScript fallback)
    assert.equal(await frame.evaluate(() => (globalThis as unknown as { document: { body: { dataset: Record<string, string> } } }).document.body.dataset.kernel), 'wasm-simd');
    // no Git extension in this host (as on vscode.dev): "Compare with" offers no HEAD, the other choices stay
    const choices = await frame.locator('.compare-select vscode-option').evaluateAll((els) => els.map((e) => e.getAttribute('value')));
    assert.deepEqual(choices, ['none', 'plain', 'file']);
    await wb.screenshot('web-host-open');
  });

  it('runs in the web worker extension host (Developer: Show Running Extensions)', async () => {
    await wb.runCommand('Developer: Show Running Extensions');
    // (the row names the extension by its display name, or by its id when run from source)
    const row = wb.page.locator('.runtime-extensions-editor .monaco-list-row', { hasText: /FFN Lens|ffn-lens\.ffn-lens/ }).first();
    await row.waitFor({ timeout: 20_000 });
    const text = await row.innerText();
    await wb.screenshot('web-host-running-extensions');
    await wb.page.keyboard.press('Control+W');
    await until('the running extensions editor closed', async () => (await wb.page.locator('.tabs-container .tab', { hasText: /Running Extensions/ }).count()) === 0);
    // and its compute worker multiplies with the WebAssembly SIMD kernel
    await wb.runCommand('FFN Lens: Measure Compute Speed');
    const said = await wb.waitForNotification(/GFLOPS/, { timeoutMs: 60_000 });
    assert.match(said, /a Web Worker of the web worker extension host/);
    assert.match(said, /\(wasm-simd, fused multiply-add\)/); // (Chromium has relaxed-simd)
    assert.ok(Number(/at ([\d.]+) GFLOPS/.exec(said)?.[1]) > 0, said); // (a figure, not a bound: speed is the bench's)
    assert.match(text, /web worker/i, `the running extensions editor says: ${text}`);
  });

  it('an edit of a weight: the panel follows (W1[0][2] from 2 to 0: 19.2 %)', async () => {
    const lines = MJ_TEXT.split('\n');
    assert.match(lines[114], /^\s*\[\s+0,\s+0,\s+2,\s+2,/, 'line 115 is W1 row 0');
    const m = /(?<=\[\s+0,\s+0,\s+)2/.exec(lines[114])!;
    const panel = await wb.webview(MJ_TITLE);
    await edit(wb, { file: MJ, line: 115, col: m.index + 1, select: 1, text: '0', panel });
    await caption(MJ_TITLE, /\(19\.2%\)/);
    await pressInEditor(wb, 'Control+Z', { file: MJ, line: 115, expect: lines[114], panel });
    await caption(MJ_TITLE, /\(92\.8%\)/);
  });

  it('a hover over a number shows the neuron\'s values', async () => {
    const text = await wb.hover('0.5', { expect: /neuron|weight/i });
    assert.match(text, /ffn\.|W1|W2|neuron/);
  });

  it('stories260K: its checkpoint read through the host\'s workspace.fs, the prediction "#432" (96.9 %)', async () => {
    await wb.visualize(ST, ST_TITLE, { timeoutMs: 60_000 });
    const c = await caption(ST_TITLE, /#432/, 60_000);
    assert.match(c, /96\.9\s?%/);
    await wb.screenshot('web-host-stories260K');
  });

  it('a checkpoint folder holding a symbolic link: refused at "checkpoint" (workspace.fs says a path is a link, not where it leads)', async () => {
    symlinkSync('../stories260K/model.safetensors', join(wb.folder, 'linked', 'model.safetensors'));
    await wb.openFile(LINKED);
    const text = await wb.hover('./linked', { expect: /symbolic link/, timeoutMs: 60_000 });
    assert.match(text, /model\.safetensors in \/\S*linked is a symbolic link, which FFN Lens does not follow here \(this host cannot see where a link leads/);
    await wb.screenshot('web-host-symbolic-link');
  });

  it('Open Sample: "XOR needs a non-linearity" from the extension\'s own files, with its panel', async () => {
    await wb.runCommand('FFN Lens: Open Sample');
    await wb.pickQuickItem('XOR needs a non-linearity');
    const frame = await wb.webviewFrame('FFN Lens: XOR needs ReLU (layout in_out)', { timeoutMs: 30_000 });
    await until('the sample\'s panel to draw it', () => frame.evaluate(() => Number((globalThis as unknown as { document: { body: { dataset: Record<string, string> } } }).document.body.dataset.renderedVersion ?? -1) >= 0), { everyMs: 200 });
    await wb.screenshot('web-host-open-sample');
  });

  it('a checkpoint over 50 MB (69 MB of float32) read through workspace.fs, with a progress notification: the panel computes it', async () => {
    assert.ok(readFileSync(join(wb.folder, 'wide-llama', 'model.safetensors')).length > 50e6);
    await wb.recordNotifications();
    await wb.visualize('wide.ffn.json', 'FFN Lens: wide', { timeoutMs: 300_000 });
    await caption('FFN Lens: wide', /the model predicts/, 300_000);
    // the read said so while it lasted (a notification without a percentage: workspace.fs reads whole)
    const seen = await wb.recordedNotifications();
    assert.ok(seen.some((t) => /FFN Lens: reading model\.safetensors \(69 MB\)/.test(t)), `the read's progress; seen: ${JSON.stringify(seen)}`);
    await wb.screenshot('web-host-large-checkpoint');
  });

  it('the research lenses, computed in the Web Worker: the logit lens as computed here, the attribution adds up, patching recovers at layer 0 (pixels)', async () => {
    await wb.visualize(LENSES, LENSES_TITLE, { timeoutMs: 60_000 });
    const view = await wb.webview(LENSES_TITLE);
    const frame = await wb.webviewFrame(LENSES_TITLE);
    const want = await lensesHere();
    const section = view.locator('vscode-collapsible[data-section="lenses"]');
    await section.waitFor();
    await section.evaluate((el: any) => { el.open = true; el.dispatchEvent(new CustomEvent('vsc-collapsible-toggle', { detail: { open: true } })); });
    const tab = (name: string) => view.locator(`vscode-tab-header[data-lens="${name}"]`).click();
    // the logit lens: every cell's top word and its probability as this process computes them
    await tab('logitLens');
    await until('the lens grid', async () => (await view.locator('.lens-cell').count()) === want.L * want.T);
    for (let l = 0; l < want.L; l++) {
      for (let t = 0; t < want.T; t++) {
        const cell = view.locator(`.lens-cell[data-layer="${l}"][data-token="${t}"]`);
        assert.equal(Number(await cell.getAttribute('data-top')), want.lens.cells[l][t].top[0][0], `layer ${l} token ${t}`);
        assert.ok(Math.abs(Number(await cell.getAttribute('data-p')) - want.lens.cells[l][t].top[0][1]) < 1e-3);
      }
    }
    await section.scrollIntoViewIfNeeded();
    await wb.screenshot('web-host-logit-lens');
    // attribution: the logit difference computed here, and the parts sum to it
    await tab('dla');
    const head = view.locator('.lens-dla .lens-headline');
    await head.waitFor();
    const diff = Number(await head.getAttribute('data-logit-diff'));
    assert.ok(Math.abs(diff - want.dla.logitDiff) < 1e-4, `${diff} vs ${want.dla.logitDiff}`);
    assert.ok(Math.abs(Number(await head.getAttribute('data-sum')) - diff) < 1e-4);
    // patching (a job in the Web Worker, with progress): the changed token recovers at layer 0, earlier ones are 0
    await tab('patch');
    await view.locator('.lens-patch .patch-resid').click();
    await until('the patching result', async () => (await view.locator('.lens-patch .lens-headline').count()) === 1, { timeoutMs: 120_000 });
    const px = await wb.readCanvas(frame, '.lens-patch .hm canvas');
    assert.deepEqual([px.width, px.height], [7, 5]);
    const at = (l: number, t: number): string => px.data.slice((l * 7 + t) * 4, (l * 7 + t) * 4 + 3).join();
    for (let t = 0; t < 4; t++) assert.equal(at(0, t), at(0, 0), `layer 0, token ${t}: 0 %`);
    assert.notEqual(at(0, 4), at(0, 0), 'layer 0, token 4: recovered');
    await wb.screenshot('web-host-patching');
  });
});
