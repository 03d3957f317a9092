// The WebAssembly SIMD kernel's weights: arrays in its memory read where they lie, a checkpoint's
// matrices turned into panels, and memory that stays bounded over thousands of packs, with no
// view into wasm memory left to callers.
import * as assert from 'node:assert/strict';
import { tsKernel } from '../kernel';
import { matmulNaive } from '../matmulNaive';
import { panelsLength, toPanels } from '../params';
import { alignedBytes, assertClose, bits, FUSED, held, kernel, LAYOUTS, mixed } from '../../../test/helpers/wasmKernelCases';

describe('wasm-simd kernel weights (src/core/wasm/wasmWeights)', () => {
  describe('weight arrays, read where they lie', () => {
    it('live in the shared memory here (Node), and pack() of one takes no memory; (N,K) needs K a multiple of 4', () => {
      const k = kernel();
      assert.equal(k.sharedMemory, true);
      for (const [K, N, layout, copies] of [[64, 48, 'kn', false], [64, 48, 'nk', false], [30, 48, 'kn', false], [30, 48, 'nk', true]] as const) {
        const w = held(k, mixed(K * N, K), true);
        const used = k.usedBytes;
        const p = k.pack(w, K, N, layout);
        assert.equal(k.usedBytes > used, copies, `${K}×${N} ${layout}: pack() ${copies ? 'copies' : 'reads in place'}`);
        k.release(p);
        assert.equal(k.usedBytes, used);
      }
    });

    it('an edit of the array is what the next matmul reads, with no repack (and repackColumns accepts it)', () => {
      const k = kernel();
      const [M, K, N] = [5, 64, 40];
      for (const layout of LAYOUTS) {
        const a = mixed(M * K, 41);
        const w = held(k, mixed(K * N, 42), true);
        const p = k.pack(w, K, N, layout);
        const before = new Float32Array(M * N);
        k.matmul(before, a, M, p);
        const fresh = mixed(K * N, 43);
        for (let kk = 0; kk < K; kk++) w[layout === 'kn' ? kk * N + 7 : 7 * K + kk] = fresh[kk];
        k.repackColumns(p, w, layout, [7]);
        const after = new Float32Array(M * N);
        k.matmul(after, a, M, p);
        const want = new Float32Array(M * N);
        const q = k.pack(held(k, w, true), K, N, layout);
        k.matmul(want, a, M, q);
        assert.deepEqual(bits(after), bits(want), layout);
        for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) if (j !== 7) assert.ok(Object.is(after[i * N + j], before[i * N + j]), `${layout} out[${i},${j}] changed`);
        assert.ok([0, 1, 2, 3, 4].some((i) => after[i * N + 7] !== before[i * N + 7]), `${layout}: column 7 changed`);
      }
    });

    it('keep their numbers while the memory grows, and multiply right after', () => {
      const k = kernel();
      const [M, K, N] = [3, 32, 20];
      const b = mixed(K * N, 51);
      const w = held(k, b, true);
      const grown = k.memoryBytes;
      const big = k.weightArray(16 << 20); // 64 MB: the memory grows
      assert.ok(k.memoryBytes > grown);
      assert.deepEqual(w, b);
      for (const layout of LAYOUTS) {
        const a = mixed(M * K, 52);
        const want = new Float32Array(M * N);
        matmulNaive(want, a, b, M, K, N, layout);
        const got = new Float32Array(M * N);
        const p = k.pack(w, K, N, layout);
        k.matmul(got, a, M, p);
        assertClose(got, want, a, b, M, K, N, layout, `after growth, ${layout}`);
      }
      assert.equal(big.length, 16 << 20);
    });
  });

  describe('panels: a checkpoint\'s matrices, rearranged once and multiplied where they lie', () => {
    const SHAPES = [[5, 37], [8, 16], [36, 50], [64, 48], [3, 1], [12, 33]] as const;
    for (const layout of ['kn', 'nk'] as const) {
      for (const room of [true, false]) {
        it(`intoPanels of (${layout === 'kn' ? 'K,N' : 'N,K'}) ${room ? 'with the room: where it lies, no memory taken' : 'without the room: a new array, the old one freed'}; the numbers toPanels gives`, () => {
          const k = kernel();
          const big = k.weightArray(64 * 64, false, 64 * 64);
          k.intoPanels(big, 64, 64, 'kn'); // (the scratch the copy aside takes, kept: grown once, first)
          for (const [K, N] of SHAPES) {
            const b = mixed(K * N, K * 100 + N);
            const w = k.weightArray(K * N, false, room ? panelsLength(K, N) : K * N);
            w.set(b);
            const used = k.usedBytes;
            const at = w.byteOffset;
            const p = k.intoPanels(w, K, N, layout);
            assert.ok(p, `${K}×${N}`);
            assert.deepEqual(bits(p), bits(toPanels(b, K, N, layout)), `${K}×${N} ${layout}: the panels`);
            if (room) assert.equal(p.byteOffset, at, `${K}×${N}: where it lay`);
            assert.equal(k.usedBytes, room ? used : used - alignedBytes(K * N) + alignedBytes(panelsLength(K, N)), `${K}×${N}: no block taken but the panels', none left`);
            k.release(k.pack(p, K, N, 'panels'));
          }
        });
      }
    }

    it('an ordinary array is left as it is (null): it is not the kernel\'s', () => {
      const k = kernel();
      assert.equal(k.intoPanels(mixed(8 * 16, 1), 8, 16, 'nk'), null);
      assert.equal(tsKernel.intoPanels(mixed(8 * 16, 1), 8, 16, 'nk'), null);
    });

    for (const { fused, name: how } of FUSED) {
      it(`pack() of panels in the kernel's memory takes none; matmul and matmulColumns give the bits of the same panels packed from (K,N) (${how})`, () => {
        const k = kernel(fused);
        for (const [M, K, N] of [[1, 5, 37], [2, 64, 48], [7, 36, 50], [32, 64, 97]]) {
          const a = mixed(M * K, M);
          const b = mixed(K * N, K + N);
          const w = k.weightArray(K * N, false, panelsLength(K, N));
          w.set(b);
          const panels = k.intoPanels(w, K, N, 'kn')!;
          const used = k.usedBytes;
          const p = k.pack(panels, K, N, 'panels');
          assert.equal(k.usedBytes, used, 'read where it lies');
          const q = k.pack(b, K, N, 'kn'); // (a packed copy: the same panels, the same product)
          const copy = k.pack(Float32Array.from(panels), K, N, 'panels'); // (an ordinary array of panels: copied in)
          const want = new Float32Array(M * N);
          k.matmul(want, a, M, q);
          for (const r of [p, copy]) {
            const got = new Float32Array(M * N);
            k.matmul(got, a, M, r);
            assert.deepEqual(bits(got), bits(want), `${M}×${K}×${N}`);
            const cols = new Float32Array(M * N).fill(NaN);
            k.matmulColumns(cols, a, M, r, [0, N - 1, Math.floor(N / 2)]);
            for (let i = 0; i < M; i++) for (const j of [0, N - 1, Math.floor(N / 2)]) assert.ok(Object.is(cols[i * N + j], want[i * N + j]));
          }
          const exact = new Float32Array(M * N);
          matmulNaive(exact, a, b, M, K, N, 'kn');
          assertClose(want, exact, a, b, M, K, N, 'kn', `${M}×${K}×${N} against the reference`);
          for (const r of [p, q, copy]) k.release(r);
          assert.equal(k.usedBytes, used, 'release() of panels read in place frees nothing');
        }
      });
    }

    it('repackColumns of a packed copy of panels takes the edited panel columns', () => {
      const k = kernel();
      const [M, K, N] = [4, 24, 40];
      const a = mixed(M * K, 3);
      const panels = toPanels(mixed(K * N, 4), K, N, 'kn');
      const p = k.pack(panels, K, N, 'panels');
      const fresh = mixed(K, 5);
      for (let kk = 0; kk < K; kk++) panels[Math.floor(33 / 16) * K * 16 + kk * 16 + (33 % 16)] = fresh[kk];
      k.repackColumns(p, panels, 'panels', [33]);
      const want = new Float32Array(M * N);
      const q = k.pack(panels, K, N, 'panels');
      k.matmul(want, a, M, q);
      const got = new Float32Array(M * N);
      k.matmul(got, a, M, p);
      assert.deepEqual(bits(got), bits(want));
      k.release(p);
      k.release(q);
    });

    it('the TypeScript kernel multiplies panels as it does the layout they came from, bit for bit', () => {
      const [M, K, N] = [5, 33, 37];
      const a = mixed(M * K, 7);
      const b = mixed(N * K, 8);
      const want = new Float32Array(M * N);
      tsKernel.matmul(want, a, M, tsKernel.pack(b, K, N, 'nk'));
      const got = new Float32Array(M * N);
      tsKernel.matmul(got, a, M, tsKernel.pack(toPanels(b, K, N, 'nk'), K, N, 'panels'));
      assert.deepEqual(bits(got), bits(want));
    });
  });

  describe('memory', () => {
    it('2000 packs of a 256×1024 matrix, each released, keep memory bounded', () => {
      const k = kernel();
      const [K, N] = [256, 1024];
      const b = mixed(K * N, 5);
      const a = mixed(4 * K, 6);
      const out = new Float32Array(4 * N);
      const p0 = k.pack(b, K, N, 'nk');
      k.matmul(out, a, 4, p0);
      k.release(p0);
      const settled = k.memoryBytes;
      const used = k.usedBytes;
      for (let i = 0; i < 2000; i++) {
        const p = k.pack(b, K, N, i % 2 === 0 ? 'nk' : 'kn');
        if (i % 100 === 0) k.matmul(out, a, 4, p);
        k.release(p);
      }
      assert.equal(k.memoryBytes, settled, 'memory grew although every pack was released');
      assert.equal(k.usedBytes, used);
    });

    it('pack-then-release-the-old (an editing session) reuses freed blocks', () => {
      const k = kernel();
      const [K, N] = [256, 1024];
      const b = mixed(K * N, 9);
      let w1 = k.pack(b, K, N, 'nk');
      let w2 = k.pack(b, N, K, 'nk');
      let peak = 0;
      for (let i = 0; i < 2000; i++) {
        const next = k.pack(b, K, N, 'nk'); // the new weights exist before the old are dropped
        k.release(w1);
        w1 = next;
        if (i % 7 === 0) {
          const n2 = k.pack(b, N, K, 'nk');
          k.release(w2);
          w2 = n2;
        }
        if (i === 20) peak = k.memoryBytes;
      }
      assert.ok(peak > 0 && k.memoryBytes <= peak, `memory ${k.memoryBytes} grew past ${peak}`);
      assert.ok(k.memoryBytes <= 6 * K * N * 4 + (1 << 20), `memory ${k.memoryBytes} for two live ${K * N * 4}-byte weights`);
      k.release(w1);
      k.release(w2);
    });

    it('results are the caller\'s arrays, never views into wasm memory', () => {
      const k = kernel();
      const [M, K, N] = [4, 32, 48];
      const a = mixed(M * K, 1);
      const b = mixed(K * N, 2);
      const p = k.pack(b, K, N, 'kn');
      const out = new Float32Array(M * N);
      k.matmul(out, a, M, p);
      const copy = Float32Array.from(out);
      assert.equal(out.buffer.byteLength, M * N * 4, 'out keeps its own buffer');
      for (const v of Object.values(p)) assert.ok(!ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer), 'Packed holds no view');
      const before = k.memoryBytes;
      const big = k.pack(new Float32Array(1024 * 1024), 1024, 1024, 'nk'); // forces memory.grow
      assert.ok(k.memoryBytes > before);
      assert.deepEqual(out, copy, 'out survives memory.grow');
      const out2 = new Float32Array(M * N);
      k.matmul(out2, a, M, p); // the kernel's own view is renewed after grow
      assert.deepEqual(out2, copy);
      k.release(big);
      k.release(p);
    });

    it('two kernels have separate memories', () => {
      const k1 = kernel();
      const k2 = kernel();
      const b = mixed(16 * 16, 3);
      const p1 = k1.pack(b, 16, 16, 'nk');
      assert.throws(() => k2.matmul(new Float32Array(16), new Float32Array(16), 1, p1), /another kernel/);
      k1.release(p1);
    });
  });
});
