// Index ticks of a wide heatmap's columns: round steps, never closer than their labels are wide.
import * as assert from 'node:assert/strict';
import { indexTickStep } from '../../../webview/heatmap/labels';

describe('indexTickStep', () => {
  it('keeps ticks at least a label apart, whatever the number of digits', () => {
    for (const [n, px] of [[3072, 550], [3072, 1024], [50257, 900], [768, 300], [64, 400], [8, 200]] as const) {
      const step = indexTickStep(n, px);
      const digits = String(n - 1).length;
      const gap = (step / n) * px;
      assert.ok(gap >= digits * 7 + 10 || step === 1, `${n} columns in ${px} px: step ${step} puts ticks ${gap.toFixed(1)} px apart, labels of ${digits} digits`);
    }
    assert.equal(indexTickStep(3072, 550), 256, 'the case seen: 200 put 1000 1200 1400 together at 36 px apart');
    assert.equal(indexTickStep(64, 400), 4, 'short labels keep the finer step');
  });
});
