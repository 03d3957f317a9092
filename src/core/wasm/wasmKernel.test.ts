// The WebAssembly SIMD kernel against the float64 reference, matmulColumns bit for bit against
// matmul, a bias added in wasm memory, and misuse. (Its weights, panels and memory:
// wasmWeights.test.ts.)
import * as assert from 'node:assert/strict';
import { biasAdd } from '../bias';
import { tsKernel, type Packed } from '../kernel';
import { matmulNaive } from '../matmulNaive';
import { hasFusedMadd, hasWasmSimd } from './wasmFeatures';
import { createWasmKernel } from './wasmKernel';
import { assertClose, bits, FORMS, FUSED, held, kernel, LAYOUTS, mixed } from '../../../test/helpers/wasmKernelCases';

describe('wasm-simd matmul kernel (src/core/wasm/wasmKernel)', () => {
  it('is available in Node 20 and named wasm-simd', () => {
    assert.equal(hasWasmSimd(), true);
    assert.equal(kernel().name, 'wasm-simd');
  });

  it('multiplies with relaxed-simd\'s madd where the runtime has it (Node 20 once the flag is set), and by default', () => {
    assert.equal(hasFusedMadd(), true);
    assert.equal(createWasmKernel()!.fused, true);
    assert.equal(hasFusedMadd({ ...((globalThis as { WebAssembly?: unknown }).WebAssembly as object), validate: () => false } as never), false);
  });

  it('returns null without WebAssembly or without simd128, so callers fall back to TS', () => {
    assert.equal(hasWasmSimd(null), false);
    const api = (globalThis as { WebAssembly?: unknown }).WebAssembly as object;
    assert.equal(hasWasmSimd({ ...api, validate: () => false } as never), false);
    const g = globalThis as { WebAssembly?: unknown };
    const saved = g.WebAssembly;
    try {
      delete g.WebAssembly;
      assert.equal(createWasmKernel(), null);
    } finally {
      g.WebAssembly = saved;
    }
    assert.ok(createWasmKernel());
  });

  for (const { fused, name: how } of FUSED) describe(`matches matmulNaive (${how})`, () => {
    const k = kernel(fused);
    const Ms = [1, 2, 3, 4, 5, 7, 8, 17];
    const Ks = [1, 2, 3, 16, 33, 100];
    const Ns = [1, 2, 7, 15, 16, 17, 31, 32, 33, 48, 70];
    for (const layout of LAYOUTS) for (const { inPlace, name } of FORMS) {
      it(`every M ∈ {${Ms}} × K ∈ {${Ks}} × N ∈ {${Ns}}, layout ${layout}, ${name}`, () => {
        let seed = layout === 'kn' ? 1 : 2;
        for (const K of [...Ks, ...(inPlace ? [4, 8, 36, 128] : [])]) {
          for (const N of Ns) {
            const b = mixed(K * N, seed++);
            const p = k.pack(held(k, b, inPlace), K, N, layout);
            for (const M of Ms) {
              const a = mixed(M * K, seed++);
              const want = new Float32Array(M * N);
              matmulNaive(want, a, b, M, K, N, layout);
              const got = new Float32Array(M * N).fill(NaN);
              k.matmul(got, a, M, p);
              assertClose(got, want, a, b, M, K, N, layout, `${M}×${K}×${N} ${layout}`);
            }
            k.release(p);
          }
        }
      });
    }

    for (const [M, K, N] of [[8, 512, 2048], [5, 768, 200], [1, 1024, 17], [33, 64, 256]]) {
      for (const layout of LAYOUTS) for (const { inPlace, name } of FORMS) {
        it(`FFN-sized ${M}×${K}×${N}, layout ${layout}, ${name}`, () => {
          const a = mixed(M * K, M + K);
          const b = mixed(K * N, K + N);
          const want = new Float32Array(M * N);
          matmulNaive(want, a, b, M, K, N, layout);
          const p = k.pack(held(k, b, inPlace), K, N, layout);
          const got = new Float32Array(M * N);
          k.matmul(got, a, M, p);
          k.release(p);
          assertClose(got, want, a, b, M, K, N, layout, `${M}×${K}×${N} ${layout}`);
        });
      }
    }

    it('agrees with the TS kernel to ~1e-5 relative on well-scaled inputs', () => {
      const [M, K, N] = [9, 256, 100];
      const a = mixed(M * K, 7).map((v) => Math.tanh(v));
      const b = mixed(K * N, 8).map((v) => Math.tanh(v) / 16);
      for (const layout of LAYOUTS) {
        const want = new Float32Array(M * N);
        const pt = tsKernel.pack(b, K, N, layout);
        tsKernel.matmul(want, a, M, pt);
        const p = k.pack(b, K, N, layout);
        const got = new Float32Array(M * N);
        k.matmul(got, a, M, p);
        k.release(p);
        const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        const err = got.reduce((m, v, i) => Math.max(m, Math.abs(v - want[i])), 0);
        assert.ok(err <= 1e-5 * scale, `${layout}: max error ${err} vs scale ${scale}`);
      }
    });

    it('K = 0 gives zeros, M = 0 and N = 0 do nothing', () => {
      const p0 = k.pack(new Float32Array(0), 0, 5, 'nk');
      const out = new Float32Array(3 * 5).fill(7);
      k.matmul(out, new Float32Array(0), 3, p0);
      assert.deepEqual([...out], new Array(15).fill(0));
      k.release(p0);
      const p = k.pack(mixed(6, 3), 2, 3, 'kn');
      const untouched = new Float32Array(4).fill(7);
      k.matmul(untouched, new Float32Array(0), 0, p);
      assert.deepEqual([...untouched], [7, 7, 7, 7]);
      k.release(p);
      const pn = k.pack(new Float32Array(0), 4, 0, 'kn');
      k.matmul(new Float32Array(0), mixed(8, 4), 2, pn);
      k.release(pn);
    });

    it('reads only the first M·K of a and writes only the first M·N of out', () => {
      const [M, K, N] = [3, 10, 20];
      const b = mixed(K * N, 11);
      const a = mixed(M * K + 5, 12);
      const p = k.pack(b, K, N, 'nk');
      const out = new Float32Array(M * N + 4).fill(-1);
      k.matmul(out, a, M, p);
      const want = new Float32Array(M * N);
      matmulNaive(want, a, b, M, K, N, 'nk');
      assertClose(out.subarray(0, M * N), want, a, b, M, K, N, 'nk', 'longer operands');
      assert.deepEqual([...out.subarray(M * N)], [-1, -1, -1, -1]);
      k.release(p);
    });
  });

  for (const { fused, name: how } of FUSED) describe(`matmulColumns is bit-identical to matmul (${how})`, () => {
    const k = kernel(fused);
    // (M = 1 and 2: mm_kn's row-by-row path for weights in place)
    for (const [M, K, N] of [[1, 1, 1], [2, 64, 40], [2, 300, 33], [1, 768, 97], [3, 7, 17], [5, 64, 40], [8, 512, 2048], [7, 300, 33], [32, 768, 97], [9, 4, 6], [3, 36, 50257 % 64]]) {
      for (const layout of LAYOUTS) for (const { inPlace, name } of FORMS) {
        it(`${M}×${K}×${N}, layout ${layout}, ${name}, random column subsets`, () => {
          const a = mixed(M * K, 100 + M);
          const b = mixed(K * N, 200 + N);
          const p = k.pack(held(k, b, inPlace), K, N, layout);
          const full = new Float32Array(M * N);
          k.matmul(full, a, M, p);
          let seed = 1;
          for (let trial = 0; trial < 6; trial++) {
            const cols = [...mixed(1 + trial * 3, seed++)].map((v) => Math.floor(Math.abs(v) * 7919) % N);
            if (trial === 0) cols.push(N - 1, 0);
            const part = new Float32Array(M * N).fill(NaN);
            k.matmulColumns(part, a, M, p, cols);
            const fb = bits(full), pb = bits(part), nan = bits(Float32Array.of(NaN))[0];
            const picked = new Set(cols);
            for (let i = 0; i < M; i++) {
              for (let j = 0; j < N; j++) {
                const o = i * N + j;
                if (picked.has(j)) assert.equal(pb[o], fb[o], `out[${i},${j}]: ${part[o]} vs matmul ${full[o]}`);
                else assert.equal(pb[o], nan, `out[${i},${j}] is not in cols and must stay untouched`);
              }
            }
          }
          k.release(p);
        });
      }
    }

    it('K = 0: the columns asked for are zeros, the others untouched; M = 0 writes nothing', () => {
      for (const layout of LAYOUTS) {
        const p = k.pack(new Float32Array(0), 0, 5, layout);
        const out = new Float32Array(3 * 5).fill(7);
        k.matmulColumns(out, new Float32Array(0), 3, p, [1, 4]);
        assert.deepEqual([...out], [7, 0, 7, 7, 0, 7, 0, 7, 7, 0, 7, 0, 7, 7, 0], layout);
        k.release(p);
        const q = k.pack(mixed(8 * 5, 9), 8, 5, layout);
        const none = new Float32Array(4).fill(7);
        k.matmulColumns(none, new Float32Array(0), 0, q, [0, 3]);
        assert.deepEqual([...none], [7, 7, 7, 7]);
        k.release(q);
      }
    });

    it('after repackColumns, matmul and matmulColumns match a fresh pack of the edited weights', () => {
      const [M, K, N] = [6, 96, 50];
      for (const layout of LAYOUTS) {
        const a = mixed(M * K, 31);
        const b = mixed(K * N, 32);
        const p = k.pack(b, K, N, layout);
        const edited = Float32Array.from(b);
        const cols = [3, 17, 49];
        const fresh = mixed(K * N, 33);
        for (const j of cols) for (let kk = 0; kk < K; kk++) {
          const o = layout === 'kn' ? kk * N + j : j * K + kk;
          edited[o] = fresh[o];
        }
        k.repackColumns(p, edited, layout, cols);
        const q = k.pack(edited, K, N, layout);
        const want = new Float32Array(M * N);
        k.matmul(want, a, M, q);
        const got = new Float32Array(M * N);
        k.matmul(got, a, M, p);
        assert.deepEqual(bits(got), bits(want), `${layout}: matmul after repackColumns`);
        const cols2 = new Float32Array(M * N);
        k.matmulColumns(cols2, a, M, p, cols);
        for (let i = 0; i < M; i++) for (const j of cols) assert.ok(Object.is(cols2[i * N + j], want[i * N + j]));
        k.release(p);
        k.release(q);
      }
    });
  });

  describe('a bias added to the product (matmul\'s `biased`)', () => {
    for (const [name, k] of [['wasm', kernel()], ['ts', tsKernel]] as const) {
      it(`${name}: the sum biasAdd gives, bit for bit, beside the product or written over it; K = 0 and M = 1 included`, () => {
        for (const [M, K, N] of [[1, 8, 5], [3, 16, 17], [7, 33, 64], [32, 64, 97], [4, 0, 6], [2, 5, 1]]) {
          const a = mixed(M * K, M + K);
          const b = mixed(N * K, N);
          const bias = mixed(N, 3 * N);
          const p = k.pack(b, K, N, 'nk');
          const pre = new Float32Array(M * N);
          k.matmul(pre, a, M, p);
          const want = Float32Array.from(pre);
          biasAdd(want, bias, M, N);
          const got = new Float32Array(M * N).fill(NaN);
          const pre2 = new Float32Array(M * N).fill(NaN);
          k.matmul(pre2, a, M, p, { b: bias, out: got });
          assert.deepEqual(bits(pre2), bits(pre), `${M}×${K}×${N}: the product as without a bias`);
          assert.deepEqual(bits(got), bits(want), `${M}×${K}×${N}: the sum`);
          const over = new Float32Array(M * N);
          k.matmul(over, a, M, p, { b: bias, out: over });
          assert.deepEqual(bits(over), bits(want), `${M}×${K}×${N}: written over the product`);
          k.release(p);
        }
      });
    }
  });

  describe('misuse', () => {
    const k = kernel();
    it('rejects weights packed by another kernel, or used after release', () => {
      const b = mixed(8 * 8, 4);
      const tp: Packed = tsKernel.pack(b, 8, 8, 'kn');
      assert.throws(() => k.matmul(new Float32Array(8), new Float32Array(8), 1, tp), /another kernel/);
      const p = k.pack(b, 8, 8, 'kn');
      k.release(p);
      k.release(p); // twice is harmless
      assert.throws(() => k.matmul(new Float32Array(8), new Float32Array(8), 1, p), /after release/);
    });
    it('rejects operands that are too short and columns out of range', () => {
      const p = k.pack(mixed(8 * 8, 4), 8, 8, 'kn');
      assert.throws(() => k.pack(new Float32Array(63), 8, 8, 'kn'), RangeError);
      assert.throws(() => k.matmul(new Float32Array(16), new Float32Array(15), 2, p), RangeError);
      assert.throws(() => k.matmul(new Float32Array(15), new Float32Array(16), 2, p), RangeError);
      assert.throws(() => k.matmulColumns(new Float32Array(16), new Float32Array(16), 2, p, [8]), RangeError);
      assert.throws(() => k.matmulColumns(new Float32Array(16), new Float32Array(16), 2, p, [-1]), RangeError);
      k.release(p);
    });
  });
});
