// Every stage of every PyTorch reference case with the wasm-simd kernel doing the matmuls
// (float32 accumulation, where the TS kernel accumulates in float64): within the case's tolerance.
import * as assert from 'node:assert/strict';
import { forward } from '../../../src/core/forward';
import { readModel } from '../../../src/model/read';
import { createWasmKernel } from '../../../src/core/wasm/wasmKernel';
import { compareClose } from '../../helpers/compare';
import { goldenCases } from '../../helpers/fixtures';

describe('PyTorch reference cases with the wasm-simd kernel', () => {
  const kernel = createWasmKernel();
  it('the kernel is available', () => assert.ok(kernel));
  for (const c of goldenCases()) {
    it(`${c.name}: every stage matches`, () => {
      assert.ok(kernel);
      const model = readModel(JSON.stringify(c.model), `${c.name}.ffn.json`).file;
      assert.ok(model);
      const before = kernel.usedBytes;
      for (const s of forward(model.model, kernel)) {
        const msg = compareClose(s.data, c.expected[s.id].data, c.tolerance, `${c.name}: stage ${s.id}`);
        assert.equal(msg, null, msg ?? '');
      }
      const scratch = 1 << 20; // the matmul scratch may have grown; packed weights are all released
      assert.ok(kernel.usedBytes <= before + scratch, `${c.name}: ${kernel.usedBytes - before} bytes still held`);
    });
  }
});
