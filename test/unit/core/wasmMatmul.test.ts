// The WebAssembly SIMD kernel against the float64 reference, matmulColumns bit for bit against
// matmul, a checkpoint's matrices turned into panels, memory that stays bounded over thousands of
// packs, and no view into wasm memory.
import * as assert from 'node:assert/strict';
import { biasAdd } from '../../../src/core/bias';
import { tsKernel, type Packed } from '../../../src/core/kernel';
import { matmulNaive, type BLayout } from '../../../src/core/matmulNaive';
import { panelsLength, toPanels } from '../../../src/core/params';
import { createWasmKernel, hasFusedMadd, hasWasmSimd, type WasmMatmulKernel } from '../../../src/core/wasm/wasmKernel';

const LAYOUTS: readonly ('kn' | 'nk')[] = ['kn', 'nk'];

// Deterministic values of mixed sign and magnitude (1e-3 … 1e3), with some exact zeros.
function mixed(n: number, seed: number): Float32Array {
  let t = seed >>> 0;
  const rand = (): number => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r ^= r + Math.imul(r ^ (r >>> 7), 61 | r);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = rand();
    out[i] = u < 0.05 ? 0 : (rand() < 0.5 ? -1 : 1) * 10 ** (6 * rand() - 3) * (0.5 + u);
  }
  return out;
}

function bAt(b: Float32Array, k: number, j: number, K: number, N: number, layout: BLayout): number {
  return layout === 'kn' ? b[k * N + j] : b[j * K + k];
}

// |got − exact| ≤ γ·Σ|a·b| with γ = (K+2)·2⁻²⁴: the error bound of a float32 dot product
// accumulated in order (K roundings of sums, one of each product, one of the float64 reference),
// so about 1e-5 relative to the size of the terms for the K used here.
function assertClose(
  got: Float32Array, want: Float32Array, a: Float32Array, b: Float32Array,
  M: number, K: number, N: number, layout: BLayout, what: string,
): void {
  const gamma = (K + 2) * 2 ** -24;
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let mag = 0;
      for (let k = 0; k < K; k++) mag += Math.abs(a[i * K + k] * bAt(b, k, j, K, N, layout));
      const err = Math.abs(got[i * N + j] - want[i * N + j]);
      if (!(err <= gamma * mag)) {
        assert.fail(`${what}: out[${i},${j}] = ${got[i * N + j]}, reference ${want[i * N + j]}, error ${err} > ${gamma * mag}`);
      }
    }
  }
}

// A weight array's block: its numbers and 16 of slack, in 64-byte blocks (wasmKernel.ts, wasmHeap.ts)
function alignedBytes(n: number): number {
  return Math.ceil(((n + 16) * 4) / 64) * 64;
}

function bits(x: Float32Array): Uint32Array {
  return new Uint32Array(x.buffer, x.byteOffset, x.length);
}

/** b as the kernel would be given it: an ordinary array (packed: a copy), or its own weight array (read where it lies). */
function held(k: WasmMatmulKernel, b: Float32Array, inPlace: boolean): Float32Array {
  if (!inPlace) return b;
  const w = k.weightArray(b.length);
  w.set(b);
  return w;
}
const FORMS = [false, true].map((inPlace) => ({ inPlace, name: inPlace ? 'in place' : 'packed' }));

function kernel(fused = true): WasmMatmulKernel {
  const k = createWasmKernel(undefined, { fused });
  assert.ok(k, 'Node 20 has WebAssembly simd128: createWasmKernel() should not return null');
  assert.equal(k.fused, fused);
  return k;
}
// The module with relaxed_madd (what the worker and the CLI run, relaxed-simd on: test/unit/setup.ts) and without.
const FUSED = [true, false].map((fused) => ({ fused, name: fused ? 'fused multiply-add' : 'multiply then add' }));

describe('wasm-simd matmul kernel (src/core/wasm)', () => {
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
