// Every part of FFN Lens on issue 29's new families in a real VS Code (Node extension host): for
// gpt_neox, gemma2, gemma3 and qwen3 (small random-weight checkpoints: lib/archFamilies.ts), the
// panel draws every stage, an "ablate" entry typed recomputes incrementally, a hover over it shows
// the neuron's values, compare with the file without it works, and a stage's .npy export equals
// what `ffn-lens stages` computes from the saved file.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ablateIncrementally, compareWithPlain, everyStageDrawn, FAMILIES, familyFiles, hoverNeuron, type Family } from './lib/archFamilies';
import { acceptFileDialog, chooseMenuItem, npyComplete, writtenFile } from './lib/dialogs';
import { savedText } from './lib/editor';
import { Workbench } from './lib/workbench';

const CLI = join(__dirname, '..', '..', '..', 'dist', 'cli.js');

describe('every part of FFN Lens on gpt_neox, gemma2, gemma3, qwen3 in a real VS Code', function () {
  this.timeout(600_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'arch-families', files: familyFiles(), waitForFile: FAMILIES[0].file, viewport: { width: 1600, height: 1000 }, timeoutMs: 120_000 });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`arch-families-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
    // (each family's test leaves no editor behind, failed or not: the next one opens its own; saved
    // first, so no "save changes?" dialog stops the close)
    await wb.runCommand('File: Save All Files');
    await wb.closeAllEditors();
  });

  /** The stage's .npy exported from the panel against the CLI's numbers from the saved file, bit for bit. */
  async function exportMatchesCli(f: Family, id: string): Promise<void> {
    const view = await wb.webview(f.title);
    const card = view.locator(`section.card[data-stage-id="${id}"]`);
    await card.scrollIntoViewIfNeeded();
    const path = join(wb.folder, `${f.type}.${id}.npy`);
    await card.click({ button: 'right', position: { x: 40, y: 10 } });
    await chooseMenuItem(wb, 'Export Stage as .npy');
    await acceptFileDialog(wb, (v) => v.endsWith('.npy'), { fill: path });
    const npy = await writtenFile(path, npyComplete, 60_000);
    const hl = npy[8] + 256 * npy[9];
    const got = new Float32Array(npy.buffer.slice(npy.byteOffset + 10 + hl, npy.byteOffset + npy.length));
    await savedText(wb, f.file);
    const out = JSON.parse(execFileSync(process.execPath, [CLI, 'stages', join(wb.folder, f.file), '--only', id], { encoding: 'utf8' })) as { stages: Array<{ shape: number[]; data: number[] }> };
    const want = out.stages[0];
    assert.match(npy.subarray(10, 10 + hl).toString('latin1'), new RegExp(`'shape': \\(${want.shape.join(', ')}\\)`));
    assert.equal(got.length, want.data.length);
    for (let i = 0; i < got.length; i++) assert.ok(Object.is(got[i], Math.fround(want.data[i])), `${f.type} ${id}[${i}]: panel ${got[i]}, CLI ${want.data[i]}`);
    return void (await wb.screenshot(`arch-${f.type}-export`));
  }

  for (const f of FAMILIES) {
    it(`${f.type}: every stage drawn; ablate recomputes incrementally; hover; compare; export = CLI`, async () => {
      await everyStageDrawn(wb, f);
      await wb.screenshot(`arch-${f.type}-open`);
      await ablateIncrementally(wb, f);
      const said = await hoverNeuron(wb, f);
      console.log(`      ${f.type} hover: ${said.split('\n').slice(0, 4).join(' ⏎ ')}  ${await wb.screenshot(`arch-${f.type}-hover`)}`);
      await compareWithPlain(wb, f);
      await exportMatchesCli(f, 'layers.1.ffn.act');
    });
  }
});
