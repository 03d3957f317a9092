// A long prompt on a GPT-2-small-shaped checkpoint in a real VS Code (code-server + Chromium):
// 400 tokens, so head.logits and head.probs are 400 × 50,257 floats (80 MB each). Timed from the
// Enter of Quick Open on its model file to the panel's frame with every stage drawn, split as the
// webview stamps it (the model message, the worker's done, its forward, the panel's own busy time).
// Run by `npm run bench` (section "open"); writes its figures to $FFN_BENCH_OUT.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { generateModelText } from '../../src/model/generate';
import { GPT2_SMALL_FOLDER, writeGpt2SmallCheckpoint } from '../../test/e2e/lib/gpt2Checkpoint';
import { Workbench } from '../../test/e2e/lib/workbench';
import { bodyStamps, drawnAfter, quickOpenReady } from './panelProbe';

const SMALL = 'd64-long.ffn.json';
const FILE = 'gpt2-small-long.ffn.json';
export const LONG_TOKENS = 400;

describe('a 400-token prompt on a GPT-2-small-shaped checkpoint (benchmark)', function () {
  this.timeout(900_000);
  it('times Quick Open of its model file → every stage drawn in the panel', async () => {
    const ids = Array.from({ length: LONG_TOKENS }, (_, i) => (i * 7919) % 50000);
    const text = `{\n  "version": 1,\n  "name": "GPT-2 small, ${LONG_TOKENS} tokens",\n  "checkpoint": "./${GPT2_SMALL_FOLDER}",\n  "token_ids": [${ids.join(', ')}]\n}\n`;
    const wb = await Workbench.open({ name: 'long', files: { [SMALL]: generateModelText({ preset: 'd64', seed: 3 }), [FILE]: text }, waitForFile: SMALL, viewport: { width: 1600, height: 1000 }, timeoutMs: 180_000 });
    try {
      writeGpt2SmallCheckpoint(wb.folder);
      await wb.visualize(SMALL, 'FFN Lens: d64', { timeoutMs: 120_000 });
      const frame = await wb.webviewFrame('FFN Lens: d64');
      await quickOpenReady(wb, FILE);
      const t0 = Date.now();
      await wb.page.keyboard.press('Enter');
      const drawn = await drawnAfter(wb, frame, t0, `${LONG_TOKENS} tokens`, 6000, 100);
      assert.ok(drawn > 0, 'the panel drew the long prompt');
      const d = await bodyStamps(frame);
      await wb.screenshot('long-prompt-gpt2-small');
      const out = { openToDrawnMs: drawn - t0, toModelMs: Number(d.modelAt) - t0, toDoneMs: Number(d.doneAt) - t0, computeMs: Number(d.computeMs), panelBusyMs: Number(d.busyMs), arrivals: d.arrivals };
      console.log(`  ${LONG_TOKENS} tokens: open → drawn ${out.openToDrawnMs} ms (the model message at ${out.toModelMs} ms, done at ${out.toDoneMs} ms; the worker's forward ${out.computeMs} ms; the panel busy ${out.panelBusyMs} ms)`);
      if (process.env.FFN_BENCH_OUT) writeFileSync(process.env.FFN_BENCH_OUT, JSON.stringify(out));
    } finally {
      await wb.close();
    }
  });
});
