// SAE features in a real VS Code (issue 31, "See features"): a GPT-2-shaped checkpoint with a
// SAELens ReLU SAE at layers.0.out (test/fixtures/sae-cases). The `.acts` card lists each token's
// top features, the very ones `ffn-lens sae FILE` prints; the `.error` card says the SAE's error
// norm and variance explained as the CLI does; a click on a feature shows its activation over the
// prompt and the words it promotes (W_dec[f] · W_U, as the lens computes in this process), with its
// Neuronpedia link; its edit button writes "sae_ablate"; a hover over a feature id in the file
// shows its summary.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';
import { forward } from '../../src/core/forward';
import { tsKernel } from '../../src/core/kernel';
import { runOf } from '../../src/lenses/cache';
import { featureWords, predictionsAt, saeAt, saeDla } from '../../src/lenses/saeFeature';
import { readModel } from '../../src/model/read';
import { acceptFileDialog, npyComplete, writtenFile } from './lib/dialogs';
import { until as waitUntil } from './lib/until';
import { Workbench } from './lib/workbench';

const REPO = join(__dirname, '..', '..', '..');
const CASES = join(REPO, 'test', 'fixtures', 'sae-cases');
const FILE = 'sae.ffn.json';
const TITLE = 'FFN Lens: gpt2 with an SAE';
const TEXT = `{
  "version": 1,
  "name": "gpt2 with an SAE",
  "checkpoint": "./gpt2",
  "token_ids": [5, 17, 3, 38, 22, 9],
  "saes": [{ "path": "./sae", "at": "layers.0.out" }],
  "sae_scale": { "layers.0.sae.5": 1 }
}
`;
const bytes = (...p: string[]): Buffer => readFileSync(join(CASES, ...p));
// the fixture's SAE, naming a Neuronpedia release (as SAELens' cfg.json does) for the link
const CFG = JSON.stringify({ ...JSON.parse(bytes('sae-gpt2-relu', 'cfg.json').toString()), neuronpedia_id: 'gpt2-small/0-res-jb' });

interface CliSae { error_norm: number; variance_explained: number; tokens: Array<{ top: Array<{ feature: number; value: number }> }> }

describe('SAE features (see features) in a real VS Code', function () {
  this.timeout(240_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({
      name: 'saeFeatures',
      files: {
        [FILE]: TEXT, 'gpt2/config.json': bytes('gpt2', 'config.json'), 'gpt2/model.safetensors': bytes('gpt2', 'model.safetensors'),
        'sae/cfg.json': CFG, 'sae/sae_weights.safetensors': bytes('sae-gpt2-relu', 'sae_weights.safetensors'),
      },
      waitForFile: FILE, viewport: { width: 1500, height: 1100 },
    });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`sae-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
  });

  const until = <T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> => waitUntil(what, f, { timeoutMs: ms, everyMs: 150 });
  const cli = (): CliSae => (JSON.parse(execFileSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'sae', join(wb.folder, FILE)], { encoding: 'utf8' })) as { sae: CliSae[] }).sae[0];
  const near = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-5 + 1e-5 * Math.abs(b);

  it('the .acts card lists each token\'s top features as `ffn-lens sae` does; the .error card its error norm and variance explained', async () => {
    const view = await wb.visualize(FILE, TITLE);
    const want = cli();
    const card = view.locator('section.card[data-stage-id="layers.0.sae.acts"]');
    await card.scrollIntoViewIfNeeded();
    const rows = card.locator('.sae-row');
    await until('a row per token', async () => (await rows.count()) === want.tokens.length);
    for (let t = 0; t < want.tokens.length; t++) {
      const chips = await rows.nth(t).locator('.sae-chip').evaluateAll((els) => els.map((e) => [Number((e as any).dataset.feature), Number((e as any).dataset.value)]));
      const top = want.tokens[t].top;
      assert.deepEqual(chips.map(([f]) => f), top.map((x) => x.feature), `token ${t}: the features`);
      chips.forEach(([, v], i) => assert.ok(near(v, top[i].value), `token ${t}, feature ${top[i].feature}: ${v} vs the CLI's ${top[i].value}`));
    }
    const fit = view.locator('section.card[data-stage-id="layers.0.sae.error"] .sae-fit');
    const norm = await until('the error card\'s fit', () => fit.getAttribute('data-error-norm'));
    assert.ok(near(Number(norm), want.error_norm), `error norm ${norm}, the CLI's ${want.error_norm}`);
    assert.ok(near(Number(await fit.getAttribute('data-variance-explained')), want.variance_explained));
    assert.match(await fit.innerText(), /fraction of variance explained/);
    const errorCard = view.locator('section.card[data-stage-id="layers.0.sae.error"]');
    await errorCard.scrollIntoViewIfNeeded();
    console.log(`      ${await wb.screenshot('sae-error-fit', { locator: errorCard })}`);
    await card.scrollIntoViewIfNeeded();
    console.log(`      ${await wb.screenshot('sae-acts-sparse')}`);
  });

  it('a click on the last token\'s top feature shows its tokens, promoted words (as computed here), attribution and Neuronpedia link', async () => {
    const view = await wb.webview(TITLE);
    const want = cli();
    const last = want.tokens[want.tokens.length - 1].top[0].feature;
    const card = view.locator('section.card[data-stage-id="layers.0.sae.acts"]');
    await card.locator('.sae-row').last().locator(`.sae-chip[data-feature="${last}"]`).click();
    const fv = card.locator(`.sae-feature[data-feature="layers.0.sae.${last}"][data-state="drawn"]`);
    await fv.waitFor({ timeout: 60_000 });
    // the promoted words: W_dec[f] · W_U's top 10, computed in this process from the same files
    const path = join(wb.folder, FILE);
    const r = await resolveReadNow(readModel(TEXT, path), path, new CheckpointStore(nodeFiles), new CheckpointResolver());
    const model = r.file!.model;
    const run = runOf(model, forward(model, tsKernel));
    const words = featureWords(run, saeAt(run, 'layers.0.out'), last, 10);
    const shown = await fv.locator('.sae-promoted li').evaluateAll((els) => els.map((e) => Number((e as any).dataset.word)));
    assert.deepEqual(shown, words.promoted.map(([w]) => w), 'the promoted words');
    const down = await fv.locator('.sae-suppressed li').evaluateAll((els) => els.map((e) => Number((e as any).dataset.word)));
    assert.deepEqual(down, words.suppressed.map(([w]) => w), 'the suppressed words');
    assert.equal(await fv.locator('.colored-token').count(), want.tokens.length);
    assert.match(await fv.locator('.sae-dla').innerText(), /Attribution to .* of its logit/);
    // another token, then another word there: the attribution read as the lens computes it here
    const sae = saeAt(run, 'layers.0.out');
    const pickIn = async (cls: string, value: number): Promise<void> => {
      await fv.locator(`vscode-single-select.${cls}`).evaluate((el: any, v: string) => { el.value = v; el.dispatchEvent(new Event('change')); }, String(value));
    };
    await pickIn('sae-dla-pos', 2);
    await until('the attribution at token 2', async () => (await fv.locator('.sae-dla[data-pos="2"]').count()) === 1);
    const second = predictionsAt(run, 2, 3)[2]; // (the third word predicted there: not the default)
    await pickIn('sae-dla-target', second);
    const p = fv.locator(`.sae-dla[data-pos="2"][data-target="${second}"]`);
    await until('the attribution to the word picked', async () => (await p.count()) === 1);
    const want2 = saeDla(run, sae, { pos: 2, target: second }).features.find(([f]) => f === last)?.[1] ?? 0;
    assert.ok(near(Number(await p.getAttribute('data-value')), want2), `attribution ${await p.getAttribute('data-value')} vs ${want2}`);
    assert.equal(await fv.locator('a.sae-neuronpedia').getAttribute('href'), `https://www.neuronpedia.org/gpt2-small/0-res-jb/${last}`);
    await fv.scrollIntoViewIfNeeded();
    console.log(`      ${await wb.screenshot('sae-feature-view')}`);

    // its edit button: the quick pick's "Switch off" writes it into "sae_ablate"
    await fv.locator('vscode-button.sae-edit').click();
    await wb.pickQuickItem(new RegExp(`Switch off layers\\.0\\.sae\\.${last}`));
    await until('the sae_ablate entry in the file', async () => {
      const text = await wb.page.locator('.editor-group-container .view-lines').first().innerText();
      return text.includes('"sae_ablate"') && text.includes(`"layers.0.sae.${last}"`);
    });
    // the next render marks it: its chips, and the feature's view says what the file does to it
    await card.locator(`.sae-chip.edited[data-feature="${last}"]`).first().waitFor({ timeout: 60_000 });
    await until('the feature view says it is switched off', async () => /switched off \(sae_ablate\)/.test(await fv.locator('.sae-edited').innerText().catch(() => '')));
    console.log(`      ${await wb.screenshot('sae-feature-ablated')}`);
  });

  it('a hover over a feature id in the file shows its summary: activation max and where, promoted words, attribution', async () => {
    // (the file is in its editor beside the panel, as the test before left it)
    const id = 'layers.0.sae.5';
    const word = wb.page.locator('.editor-group-container .view-lines span span', { hasText: id }).first();
    const hover = wb.page.locator('.monaco-hover:not(.hidden) .monaco-hover-content', { hasText: 'SAE feature 5' }).first();
    for (let i = 0; i < 10 && !(await hover.isVisible()); i++) {
      await wb.page.mouse.move(0, 0);
      await word.hover();
      await hover.waitFor({ state: 'visible', timeout: 3000 }).catch(() => undefined);
    }
    const text = (await hover.innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /SAE feature 5 of layers\.0\.out/, text);
    assert.match(text, /(Fires on \d+ of 6 tokens; most at|Does not fire)/, text);
    assert.match(text, /Promotes: /, text);
    assert.match(text, /Attribution to /, text);
    assert.match(text, /scaled by 1 \(sae_scale\)/, text);
    console.log(`      ${await wb.screenshot('sae-hover')}`);
    await wb.page.keyboard.press('Escape');
  });

  it('"Export all activations (.npy)": the whole [6, 48] stage, equal to PyTorch\'s (the SAE case\'s reference)', async () => {
    const view = await wb.webview(TITLE);
    const name = 'sae.layers.0.sae.acts.npy';
    await view.locator('section.card[data-stage-id="layers.0.sae.acts"] vscode-button.sae-export').click();
    await acceptFileDialog(wb, (v) => v.endsWith(`/${name}`));
    const npy = await writtenFile(join(wb.folder, name), npyComplete);
    const hl = npy[8] + 256 * npy[9];
    assert.match(npy.subarray(10, 10 + hl).toString('latin1'), /'shape': \(6, 48\)/);
    const got = new Float32Array(npy.buffer.slice(npy.byteOffset + 10 + hl, npy.byteOffset + npy.length));
    // (sae_ablate acts downstream: the encoder's activations are the observation case's)
    const want = (JSON.parse(bytes('gpt2_relu_observe.json').toString()) as { expected: Record<string, { data: number[] }> }).expected['layers.0.sae.acts'].data;
    assert.equal(got.length, want.length);
    want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 2e-5 + 2e-4 * Math.abs(w), `acts[${i}] ${got[i]}, PyTorch ${w}`));
  });
});
