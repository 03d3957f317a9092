// Products from 16-bit panels (matmulHalves.ts) against the float32 product of the widened
// weights, bit for bit: random shapes with ragged N and K, both dtypes, both kinds of kernel
// (fused multiply-add or not), the panels in the kernel's memory or copied in, matmulColumns, a
// bias; and on two threads against one.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { halfPanelProduct, halfPanelsInto, widen, type HalfBits, type HalfDtype } from '../halfWeights';
import { toPanels } from '../params';
import { nodeMatmulHelper } from '../../worker/nodeMatmulHelper';
import { createWasmKernel, type WasmMatmulKernel } from './wasmKernel';

// Random 16-bit patterns of weights of either sign, about 1e-3 … 10 (a few exact zeros and subnormal halves)
function randomBits(n: number, seed: number, dtype: HalfDtype): Uint16Array {
  let t = seed >>> 0;
  const next = (): number => ((t = (Math.imul(t ^ (t >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0), t);
  return Uint16Array.from({ length: n }, () => {
    const r = next();
    if (r % 29 === 0) return r % 3; // zero, or the two smallest subnormals
    const sign = r & 0x8000;
    return dtype === 'BF16' ? sign | (0x3a80 + (r >>> 20) % 0x600) : sign | (0x1400 + (r >>> 20) % 0x3000);
  });
}

const bytes = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

function shapes(count: number, seed: number): Array<[number, number, number]> {
  let t = seed;
  const r = (n: number): number => ((t = (t * 1103515245 + 12345) % 2 ** 31), 1 + (t % n));
  return [[1, 1, 1], [2, 16, 16], [3, 5, 17], ...Array.from({ length: count }, () => [r(9), r(140), r(90)] as [number, number, number])];
}

describe('16-bit panels in the product (src/core/wasm/matmulHalves)', () => {
  for (const fused of [true, false]) {
    const k = createWasmKernel(undefined, { fused })!;
    for (const dtype of ['BF16', 'F16'] as const) {
      it(`${dtype}, ${fused ? 'fused' : 'mul then add'}: out, matmulColumns and a bias are the float32 product's bits`, () => {
        let seed = 1;
        for (const [M, K, N] of shapes(25, dtype === 'BF16' ? 3 : 4)) {
          const nk = randomBits(N * K, seed++, dtype);
          const panelsLen = Math.ceil(N / 16) * 16 * K;
          const own = k.halfArray(panelsLen);
          halfPanelsInto(nk, own, K, N, 'nk');
          const copied = Uint16Array.from(own);
          const f32Panels = toPanels(widen({ dtype, bits: nk }), K, N, 'nk');
          const a = Float32Array.from({ length: M * K }, (_, i) => Math.sin(i * 7.1 + seed) * 3);
          const bias = Float32Array.from({ length: N }, (_, i) => i / 7 - 1);
          const want = new Float32Array(M * N);
          const wantSum = new Float32Array(M * N);
          const pf = k.pack(f32Panels, K, N, 'panels');
          k.matmul(want, a, M, pf, { b: bias, out: wantSum });
          for (const bits of [own, copied]) {
            const half: HalfBits = { dtype, bits };
            const used = k.usedBytes;
            const ph = k.pack(half, K, N, 'panels');
            if (bits === own) assert.equal(k.usedBytes, used, 'multiplied where they lie');
            const got = new Float32Array(M * N).fill(NaN);
            const sum = new Float32Array(M * N).fill(NaN);
            k.matmul(got, a, M, ph, { b: bias, out: sum });
            const what = `${M}×${K}×${N} ${bits === own ? 'in place' : 'copied'}`;
            assert.equal(bytes(got).compare(bytes(want)), 0, what);
            assert.equal(bytes(sum).compare(bytes(wantSum)), 0, `${what} + bias`);
            const cols = [0, N - 1, Math.floor(N / 2)];
            const colsOut = new Float32Array(M * N).fill(NaN);
            k.matmulColumns(colsOut, a, M, ph, cols);
            for (const j of cols) for (let i = 0; i < M; i++) assert.ok(Object.is(colsOut[i * N + j], want[i * N + j]), `${what} column ${j}`);
            k.release(ph);
          }
          k.release(pf);
          assert.ok(want.some((v) => v !== 0));
        }
      });
    }
  }

  it('a 16-bit matrix packed in another layout is widened: the same bits as its float32 numbers', () => {
    const k = createWasmKernel()!;
    const [M, K, N] = [3, 20, 21];
    const bits = randomBits(K * N, 9, 'F16');
    const a = Float32Array.from({ length: M * K }, (_, i) => i % 5 - 2);
    for (const layout of ['kn', 'nk'] as const) {
      const [got, want] = [new Float32Array(M * N), new Float32Array(M * N)];
      k.matmul(got, a, M, k.pack({ dtype: 'F16', bits }, K, N, layout));
      k.matmul(want, a, M, k.pack(widen({ dtype: 'F16', bits }), K, N, layout));
      assert.equal(bytes(got).compare(bytes(want)), 0, layout);
    }
  });

  it('intoPanels of a halfArray: the panels halfPanelsInto makes, where it lies when there is room', () => {
    const k = createWasmKernel()!;
    for (const [K, N] of [[7, 40], [16, 16], [5, 3]]) {
      for (const layout of ['kn', 'nk'] as const) {
        const src = randomBits(K * N, K + N, 'BF16');
        const want = new Uint16Array(Math.ceil(N / 16) * 16 * K);
        halfPanelsInto(src, want, K, N, layout);
        for (const room of [want.length, K * N]) {
          const w = k.halfArray(K * N, room);
          w.set(src);
          const p = k.intoPanels(w, K, N, layout)!;
          assert.ok(p !== null && p.buffer === w.buffer, 'in the kernel\'s memory');
          if (room === want.length) assert.equal(p.byteOffset, w.byteOffset, 'where it lay');
          assert.deepEqual(p, want, `${K}×${N} ${layout} room ${room}`);
        }
      }
    }
  });

  describe('on two threads', () => {
    let two: WasmMatmulKernel;
    before(async () => {
      two = createWasmKernel(nodeMatmulHelper(join(__dirname, '..', '..', 'worker', 'matmulHelperThread.js')))!;
      for (let i = 0; i < 1000 && two.threads < 2; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(two.threads, 2, 'the helper started');
    });
    after(() => two.dispose());
    for (const dtype of ['BF16', 'F16'] as const) {
      it(`${dtype} 32×256×1000: the bits of the float32 product on one thread, the helper taking part`, async () => {
        const one = createWasmKernel()!;
        const [M, K, N] = [32, 256, 1000];
        const nk = randomBits(N * K, 5, dtype);
        const own = two.halfArray(Math.ceil(N / 16) * 16 * K);
        halfPanelsInto(nk, own, K, N, 'nk');
        const a = Float32Array.from({ length: M * K }, (_, i) => Math.cos(i));
        const [got, want] = [new Float32Array(M * N), new Float32Array(M * N)];
        const helped = two.helpedPanels;
        one.matmul(want, a, M, one.pack(widen({ dtype, bits: nk }), K, N, 'nk'));
        const packed = two.pack({ dtype, bits: own }, K, N, 'panels');
        // (a helper the loaded machine wakes late stands aside for a while: products until it has taken part)
        for (let i = 0; i < 400 && !(i >= 4 && two.helpedPanels > helped); i++) {
          two.matmul(got, a, M, packed);
          assert.equal(bytes(got).compare(bytes(want)), 0, `product ${i}`);
          if (i >= 4) await new Promise((r) => setTimeout(r, 20));
        }
        assert.ok(two.helpedPanels > helped, 'the helper computed panels');
      });
    }
  });
});

describe('one or two rows from 16-bit panels, widened in registers (src/core/wasm/matmulHalves)', () => {
  // The row of an appended token is multiplied alone (M = 1), the whole input's with the others (M
  // = T ≥ 3, the panel widened into scratch first): the two must give the same bits.
  const cases: Array<[number, number]> = [[1, 1], [3, 17], [16, 16], [64, 100], [130, 33], [256, 1000], [7, 1]];
  for (const fused of [true, false]) {
    const k = createWasmKernel(undefined, { fused })!;
    for (const dtype of ['BF16', 'F16'] as const) {
      it(`${dtype}, ${fused ? 'fused' : 'mul then add'}: rows alone are those rows of a product of 5, bit for bit${fused ? '' : ', and the scalar reference\'s'}`, () => {
        let seed = 40;
        for (const [K, N] of cases) {
          const bits = k.halfArray(Math.ceil(N / 16) * 16 * K);
          halfPanelsInto(randomBits(N * K, seed++, dtype), bits, K, N, 'nk');
          const packed = k.pack({ dtype, bits }, K, N, 'panels');
          const M = 5;
          const a = Float32Array.from({ length: M * K }, (_, i) => Math.sin(i * 3.7 + seed) * 2);
          const all = new Float32Array(M * N);
          k.matmul(all, a, M, packed);
          assert.ok(all.some((v) => v !== 0));
          for (const [from, rows] of [[0, 1], [4, 1], [2, 1], [1, 2], [3, 2]]) {
            const got = new Float32Array(rows * N).fill(NaN);
            k.matmul(got, a.subarray(from * K, (from + rows) * K), rows, packed);
            assert.equal(bytes(got).compare(bytes(all.subarray(from * N, (from + rows) * N))), 0, `${K}×${N}: ${rows} row(s) from ${from}`);
          }
          if (!fused) {
            const want = new Float32Array(M * N);
            halfPanelProduct(want, a, { dtype, bits }, M, K, N);
            assert.equal(bytes(all).compare(bytes(want)), 0, `${K}×${N}: the reference`);
            const one = new Float32Array(N);
            k.matmul(one, a, 1, packed);
            assert.equal(bytes(one).compare(bytes(want.subarray(0, N))), 0, `${K}×${N}: one row, the reference`);
          }
          k.release(packed);
        }
      });
    }
  }
});

describe('the SIMD widening (src/core/wasm/matmulHalves)', () => {
  for (const dtype of ['BF16', 'F16'] as const) {
    it(`${dtype}: all 65,536 patterns through a product by 1 are the scalar widening's numbers`, () => {
      const k = createWasmKernel()!;
      const N = 65536;
      const own = k.halfArray(N);
      halfPanelsInto(Uint16Array.from({ length: N }, (_, i) => i), own, 1, N, 'nk');
      const out = new Float32Array(N);
      k.matmul(out, Float32Array.of(1), 1, k.pack({ dtype, bits: own }, 1, N, 'panels'));
      const want = widen({ dtype, bits: Uint16Array.from({ length: N }, (_, i) => i) });
      for (let h = 0; h < N; h++) {
        // (0 + 1·w: −0 sums to +0; a NaN stays a NaN)
        const ok = Object.is(out[h], want[h]) || (Number.isNaN(want[h]) && Number.isNaN(out[h])) || (Object.is(want[h], -0) && out[h] === 0);
        assert.ok(ok, `0x${h.toString(16)}: ${out[h]} against ${want[h]}`);
      }
    });
  }
});
