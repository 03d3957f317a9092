// Issue 29's new families (gpt_neox, gemma2, gemma3, qwen3: small random-weight checkpoints,
// ../e2e/lib/archFamilies.ts) in the web worker extension host, where the compute worker asks the
// host for the checkpoint's files: every stage drawn, an "ablate" entry recomputed incrementally,
// its hover, compare with the file without it.
// Run: node scripts/run-e2e.mjs --settings test/e2e-web/settings.json --files out/test/e2e-web/webArchitectures.test.js
import { ablateIncrementally, compareWithPlain, everyStageDrawn, FAMILIES, familyFiles, hoverNeuron } from '../e2e/lib/archFamilies';
import { Workbench } from '../e2e/lib/workbench';

describe('gpt_neox, gemma2, gemma3, qwen3 in the web worker extension host', function () {
  this.timeout(600_000);
  let wb: Workbench;

  before(async () => {
    wb = await Workbench.open({ name: 'web-arch-families', files: familyFiles(), waitForFile: FAMILIES[0].file, viewport: { width: 1600, height: 1000 }, timeoutMs: 120_000 });
  });
  after(async () => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.screenshot(`web-arch-families-failed-${this.currentTest.title.slice(0, 40)}`).catch(() => undefined);
    // (each family's test leaves no editor behind, failed or not: the next one opens its own; saved
    // first, so no "save changes?" dialog stops the close)
    await wb.runCommand('File: Save All Files');
    await wb.closeAllEditors();
  });

  for (const f of FAMILIES) {
    it(`${f.type}: every stage drawn; ablate recomputes incrementally; hover; compare`, async () => {
      await everyStageDrawn(wb, f);
      await wb.screenshot(`web-arch-${f.type}-open`);
      await ablateIncrementally(wb, f);
      await hoverNeuron(wb, f);
      await wb.screenshot(`web-arch-${f.type}-hover`);
      await compareWithPlain(wb, f);
    });
  }
});
