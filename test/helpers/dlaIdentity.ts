// The attribution's identity, as the lens tests check it on each model: at the first and the last
// position, against the runner-up and against nothing, the parts and the constant sum to the logit
// difference, and the heads' parts are not all zero (an identity that could not fail is worthless).
import * as assert from 'node:assert/strict';
import type { Run } from '../../src/lenses/cache';
import { directLogitAttribution, type Dla } from '../../src/lenses/dla';

export function checkDlaIdentity(run: Run, T: number, label: string, more?: (d: Dla) => void): void {
  for (const alt of [null, 'second'] as const) {
    for (const pos of [0, T - 1]) {
      const d = directLogitAttribution(run, { pos, alt });
      const sum = d.parts.reduce((s, p) => s + p.value, d.constant);
      const scale = d.parts.reduce((s, p) => s + Math.abs(p.value), Math.abs(d.constant));
      assert.ok(Math.abs(sum - d.logitDiff) <= 1e-5 * scale + 1e-5, `${label} pos ${pos} alt ${alt}: Σ parts ${sum} vs logit difference ${d.logitDiff}`);
      assert.ok(d.parts.some((p) => p.kind === 'head' && Math.abs(p.value) > 1e-4), `${label}: the heads' parts are not all zero`);
      more?.(d);
    }
  }
}
