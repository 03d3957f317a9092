// Every stage of every PyTorch reference case, within the case's tolerance.
import * as assert from 'node:assert/strict';
import { forward } from '../../../src/core/forward';
import { planModel } from '../../../src/core/plan';
import { tsKernel } from '../../../src/core/kernel';
import { readModel } from '../../../src/model/read';
import { compareClose } from '../../helpers/compare';
import { goldenCases } from '../../helpers/fixtures';

describe('PyTorch reference cases (test/fixtures/golden)', () => {
  const cases = goldenCases();
  it('has the cases', () => assert.ok(cases.length >= 18, `found ${cases.length}`));
  for (const c of cases) {
    it(`${c.name}: every stage matches`, () => {
      const res = readModel(JSON.stringify(c.model, null, 1), `${c.name}.ffn.json`);
      assert.deepEqual(res.problems.filter((p) => p.severity === 'error'), [], `${c.name}: the model file should read without errors`);
      assert.ok(res.file);
      const stages = forward(res.file.model, tsKernel);
      const ids = stages.map((s) => s.id);
      assert.deepEqual(ids, Object.keys(c.expected), `${c.name}: stage ids and their order`);
      assert.deepEqual(planModel(res.file.model.spec).map((p) => ({ id: p.id, shape: [...p.shape] })), stages.map((s) => ({ id: s.id, shape: [...s.shape] })), `${c.name}: planStages agrees with the forward pass`);
      for (const s of stages) {
        const want = c.expected[s.id];
        assert.deepEqual(s.shape, want.shape, `${c.name}: stage ${s.id}: shape`);
        const msg = compareClose(s.data, want.data, c.tolerance, `${c.name}: stage ${s.id}`);
        assert.equal(msg, null, msg ?? '');
      }
    });
  }
  it('the in_out case and its out_in twin give the same stages', () => {
    const byName = new Map(cases.map((c) => [c.name, c]));
    const a = readModel(JSON.stringify(byName.get('ffn_gelu_in_out')!.model), 'a.ffn.json').file!;
    const b = readModel(JSON.stringify(byName.get('ffn_gelu_out_in_twin')!.model), 'b.ffn.json').file!;
    const sa = forward(a.model, tsKernel);
    const sb = forward(b.model, tsKernel);
    sa.forEach((s, i) => {
      const msg = compareClose(s.data, sb[i].data, { abs: 1e-6, rel: 1e-6 }, s.id);
      assert.equal(msg, null, msg ?? '');
    });
  });
});
