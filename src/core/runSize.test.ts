// runSize counts what planModel's stages hold without making the plan: checked here against the
// plan itself for every kind of model (pre/post norm, residual or not, gated FFN, GQA, head and
// logit lens), so the two cannot drift; and the words runTooLarge gives.
import * as assert from 'node:assert/strict';
import { planModel } from './plan';
import { formatBytes, isOutOfMemory, MAX_ARRAY_LENGTH, runBudget, runSize, runTooLarge, setRunBudget } from './runSize';
import type { ModelSpec } from './spec';
import { sizeOf } from './tensor';

function spec(over: Partial<ModelSpec> = {}, T = 7): ModelSpec {
  return {
    T, C: 12, embedding: { kind: 'tokens', ids: Array.from({ length: T }, (_, i) => i % 5), positional: 'none' }, norm: 'pre', normKind: 'rmsnorm',
    eps: new Map(), residual: true, finalNorm: true, head: { V: 23, temperature: 1 }, lens: true,
    layers: [
      { attention: { NH: 6, KVH: 2, HS: 3, causal: true, rope: null }, ffn: { F: 17, activation: 'swiglu' } },
      { attention: null, ffn: { F: 9, activation: 'relu' } },
      { attention: { NH: 4, KVH: 4, HS: 3, causal: false, rope: null }, ffn: null },
    ],
    ...over,
  };
}

/** What the plan's stages hold, aliases (another stage's numbers) not counted. */
function planned(s: ModelSpec): { bytes: number; largest: number } {
  const stages = planModel(s).filter((d) => d.op.name !== 'alias');
  return { bytes: stages.reduce((n, d) => n + sizeOf(d.shape) * 4, 0), largest: Math.max(...stages.map((d) => sizeOf(d.shape))) };
}

describe('runSize: a run\'s memory from its spec', () => {
  it('is what the plan\'s stages hold, for every kind of model', () => {
    const cases: ModelSpec[] = [
      spec(),
      spec({ norm: 'post', residual: false, lens: false }),
      spec({ norm: 'none', finalNorm: false, head: null }),
      spec({ norm: 'post', residual: true, embedding: { kind: 'vectors', positional: 'sinusoidal' } }),
      spec({}, 1),
      spec({}, 300),
    ];
    for (const s of cases) assert.deepEqual(runSize(s), planned(s), JSON.stringify({ norm: s.norm, residual: s.residual, T: s.T }));
  });

  it('costs nothing for absurd sizes: 10⁶ tokens of 10⁴ layers is a number, not an allocation', () => {
    const layers = Array.from({ length: 10_000 }, () => ({ attention: { NH: 8, KVH: 8, HS: 8, causal: true, rope: null }, ffn: { F: 256, activation: 'gelu' as const } }));
    const { bytes } = runSize(spec({ layers, T: 1e6, embedding: { kind: 'vectors', positional: 'none' } }));
    assert.ok(bytes > 6.4e17, String(bytes));
  });

  it('runTooLarge: null within the budget; past it, what is needed and what is available', () => {
    const s = spec({}, 300);
    const { bytes, largest } = runSize(s);
    const needs = bytes + largest * 4;
    assert.equal(runTooLarge(s, needs), null);
    assert.equal(runTooLarge(s, needs - 1), `needs ${formatBytes(needs)} for its stages, available ${formatBytes(needs - 1)}`);
    // one stage longer than a typed array can be, whatever the budget
    const wide = spec({ head: { V: 2 ** 20, temperature: 1 }, lens: false }, 2 ** 13);
    assert.equal(runTooLarge(wide, Infinity), `its largest stage would hold ${(2 ** 33).toLocaleString('en-US')} numbers, more than an array can (${MAX_ARRAY_LENGTH.toLocaleString('en-US')})`);
  });

  it('the budget: 2 GiB unless the platform sets it; only a positive number', () => {
    const before = runBudget();
    try {
      assert.equal(before, 2 ** 31);
      setRunBudget(1e9);
      assert.equal(runBudget(), 1e9);
      assert.throws(() => setRunBudget(NaN), RangeError);
      assert.throws(() => setRunBudget(0), RangeError);
    } finally {
      setRunBudget(before);
    }
  });

  it('formatBytes and isOutOfMemory', () => {
    assert.deepEqual([512, 1500, 2.5e6, 8.94e9, 141e9, 4.3e12].map(formatBytes), ['512 bytes', '1.5 KB', '2.5 MB', '8.9 GB', '141 GB', '4.3 TB']);
    assert.equal(isOutOfMemory(new RangeError('Array buffer allocation failed')), true);
    assert.equal(isOutOfMemory(new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded')), true);
    let caught: unknown;
    try {
      new Float32Array(MAX_ARRAY_LENGTH + 1);
    } catch (e) {
      caught = e;
    }
    assert.equal(isOutOfMemory(caught), true, String(caught));
    assert.equal(isOutOfMemory(new RangeError('pack: b has 3 values')), false);
    assert.equal(isOutOfMemory(new Error('Array buffer allocation failed')), false, 'only a RangeError');
  });
});
