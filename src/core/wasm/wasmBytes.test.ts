// The WebAssembly encoder and the generated kernel module.
import * as assert from 'node:assert/strict';
import { matmulModuleBytes } from './matmulModule';
import { fusedProbeBytes, simdProbeBytes } from './wasmFeatures';
import { wasmApi } from './wasmApi';
import { encodeModule, FuncBuilder, I32, sleb, uleb } from './wasmBytes';

describe('wasm encoder (src/core/wasm/wasmBytes)', () => {
  it('encodes LEB128', () => {
    assert.deepEqual(uleb(0), [0]);
    assert.deepEqual(uleb(127), [127]);
    assert.deepEqual(uleb(128), [0x80, 1]);
    assert.deepEqual(uleb(624485), [0xe5, 0x8e, 0x26]);
    assert.deepEqual(sleb(0), [0]);
    assert.deepEqual(sleb(-1), [0x7f]);
    assert.deepEqual(sleb(63), [63]);
    assert.deepEqual(sleb(64), [0xc0, 0]);
    assert.deepEqual(sleb(-64), [0x40]);
    assert.deepEqual(sleb(-123456), [0xc0, 0xbb, 0x78]);
  });

  it('builds a module that runs: loop, locals, branches', () => {
    // sum(n) = 0 + 1 + … + (n-1)
    const f = new FuncBuilder([I32], [I32]);
    const n = f.param(0);
    const i = f.local(I32);
    const s = f.local(I32);
    f.block(() => {
      f.get(n).i32Eqz().brIf(0);
      f.loop(() => {
        f.get(s).get(i).i32Add().set(s);
        f.get(i).i32(1).i32Add().tee(i).get(n).i32LtU().brIf(0);
      });
    });
    f.get(s);
    const api = wasmApi();
    assert.ok(api);
    const inst = new api.Instance(new api.Module(encodeModule({ functions: [{ name: 'sum', fn: f }] })), {});
    const sum = inst.exports.sum as (n: number) => number;
    assert.equal(sum(0), 0);
    assert.equal(sum(10), 45);
    assert.equal(sum(1000), 499500);
  });

  it('the kernel module and the simd probe validate', () => {
    const api = wasmApi();
    assert.ok(api);
    assert.equal(api.validate(simdProbeBytes()), true);
    assert.equal(api.validate(matmulModuleBytes()), true);
    // relaxed-simd is on in this process (test/unit/setup.ts), as in the worker
    assert.equal(api.validate(fusedProbeBytes()), true);
    assert.equal(api.validate(matmulModuleBytes(true, true)), true);
    assert.equal(api.validate(matmulModuleBytes(false, true)), true);
  });

  it('the fused module uses relaxed_madd (0xfd 0x85 0x02) and the plain one does not', () => {
    const has = (b: Uint8Array): boolean => b.some((x, i) => x === 0xfd && b[i + 1] === 0x85 && b[i + 2] === 0x02);
    assert.equal(has(matmulModuleBytes(false, true)), true);
    assert.equal(has(matmulModuleBytes(false, false)), false);
  });
});
