import * as assert from 'node:assert/strict';
import { progressText } from './progressLine';

describe('the command line\'s progress of a checkpoint read', () => {
  const r = (done: number, state: 'reading' | 'read' | 'cancelled' | 'failed' = 'reading') => ({ folder: '/w/gpt2-small-random/', done, total: 497_772_544, state });

  it('on a terminal: one line rewritten at each report, ended by a newline', () => {
    const t = { n: -1 };
    assert.equal(progressText(r(209_000_000), true, t), '\rffn-lens: reading the checkpoint gpt2-small-random: 41 % of 498 MB\u001b[K');
    assert.equal(progressText(r(497_772_544, 'read'), true, t), '\rffn-lens: reading the checkpoint gpt2-small-random: 100 % of 498 MB\u001b[K\n');
  });

  it('into a log: a line every 10 %, and the end', () => {
    const t = { n: -1 };
    const lines = [0, 0.05, 0.105, 0.15, 0.31, 0.32, 1].map((f) => progressText(r(Math.round(f * 497_772_544), f === 1 ? 'read' : 'reading'), false, t));
    assert.deepEqual(lines.map((l) => l && l.match(/(\d+) %/)![1]), ['0', null, '10', null, '31', null, '100']);
    assert.match(progressText(r(1e8, 'failed'), false, { n: 5 })!, /stopped at 20 % of 498 MB\n$/);
  });

  it('a folder\'s name reaches the terminal without its control characters', () => {
    const line = progressText({ ...r(0), folder: '/w/evil\u001b[2J' }, true, { n: -1 })!;
    assert.ok(!line.slice(1).replace('\u001b[K', '').includes('\u001b'), JSON.stringify(line));
  });
});
