import * as assert from 'node:assert/strict';
import type { Problem } from '../model/problems';
import { moreLine, shownProblems } from './problemLines';

const problem = (severity: 'error' | 'warning', i: number): Problem => ({ severity, code: 'syntax', message: `p${i}`, path: [], start: i, end: i + 1 });

describe('cli: which problems are printed', () => {
  it('all of them up to the bound, in their order', () => {
    const ps = [problem('warning', 0), problem('error', 1)];
    assert.deepEqual(shownProblems(ps, 2), { shown: ps, more: 0 });
  });

  it('past it, the first ones with errors before warnings, and how many are left out', () => {
    // (was: a file nested 5,000 deep printed 64 lines, one per container left open)
    const ps = [...Array.from({ length: 30 }, (_, i) => problem('warning', i)), problem('error', 30)];
    const { shown, more } = shownProblems(ps, 20);
    assert.equal(shown.length, 20);
    assert.equal(more, 11);
    assert.equal(shown[0].message, 'p30');
    assert.deepEqual(shown.slice(1).map((p) => p.message), Array.from({ length: 19 }, (_, i) => `p${i}`));
    assert.equal(moreLine('m.ffn.json', more), 'ffn-lens: … and 11 more problems in m.ffn.json, not shown (VS Code\'s Problems view lists them all)');
    assert.match(moreLine('m.ffn.json', 1), /and 1 more problem in/);
  });
});
