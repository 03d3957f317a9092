// Attention's products by head, shared over a kernel's threads: each head's bits are those of
// matmulOnce on a kernel without helpers (the loop over heads it replaces), for both forms of B,
// grouped-query heads, rows and columns that are not whole panels, and inputs in blocks of
// key/value heads; the helpers take heads.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { nodeMatmulHelper } from '../../worker/nodeMatmulHelper';
import { matmulHeads, matmulOnce, tsKernel } from '../kernel';
import { createMultiKernel, createWasmKernel, type WasmMatmulKernel } from '.';

const helperScript = join(__dirname, '..', '..', 'worker', 'matmulHelperThread.js');
const rand = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => (Math.sin(i * 12.9898 + seed) * 43758.5453) % 1);
const bits = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

async function until(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('the helper threads did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The loop over heads, one matmulOnce each (what attention did before). */
function headByHead(k: WasmMatmulKernel, a: Float32Array, b: Float32Array, NH: number, KVH: number, M: number, K: number, N: number, layout: 'kn' | 'nk'): Float32Array {
  const out = new Float32Array(NH * M * N);
  for (let h = 0; h < NH; h++) {
    const g = Math.floor(h / (NH / KVH));
    matmulOnce(k, out.subarray(h * M * N, (h + 1) * M * N), a.subarray(h * M * K, (h + 1) * M * K), b.subarray(g * K * N, (g + 1) * K * N), M, K, N, layout);
  }
  return out;
}

describe('attention products by head', () => {
  let one: WasmMatmulKernel;
  const threaded: WasmMatmulKernel[] = [];
  before(async () => {
    one = createWasmKernel()!;
    for (const threads of [2, 3]) threaded.push(createWasmKernel(nodeMatmulHelper(helperScript), { threads })!);
    await until(() => threaded.every((k, i) => k.threads === i + 2), 10_000);
  });
  after(() => {
    for (const k of [one, ...threaded]) k.dispose();
  });

  // [NH, KVH, M, K, N, layout]: GPT-2's scores and context at T = 32; grouped heads, T = 37 and HS = 24 (no whole panels)
  const shapes = [[12, 12, 32, 64, 32, 'nk'], [12, 12, 32, 32, 64, 'kn'], [8, 2, 37, 24, 37, 'nk'], [8, 2, 37, 37, 24, 'kn'], [3, 1, 5, 16, 5, 'nk']] as const;
  for (const [NH, KVH, M, K, N, layout] of shapes) {
    it(`${NH} heads over ${KVH}, ${M}×${K}×${N} (${layout}): each head the bits of matmulOnce, on 1, 2 and 3 threads`, () => {
      const a = rand(NH * M * K, 1);
      const b = rand(KVH * K * N, 2);
      const want = headByHead(one, a, b, NH, KVH, M, K, N, layout);
      assert.ok(want.some((v) => v !== 0));
      for (const k of [one, ...threaded]) {
        const got = new Float32Array(NH * M * N).fill(NaN);
        k.matmulHeads(got, a, b, NH, KVH, M, K, N, layout);
        assert.ok(bits(got).equals(bits(want)), `${k.threads} threads`);
      }
    });
  }

  it('heads whose outputs pass the scratch bound go a key/value head at a time: the same bits', () => {
    const [NH, KVH, M, K, N] = [4, 4, 2200, 4, 2200]; // (19 MB of output a head: 64 MB hold three)
    const a = rand(NH * M * K, 9);
    const b = rand(KVH * N * K, 10);
    const want = headByHead(one, a, b, NH, KVH, M, K, N, 'nk');
    const got = new Float32Array(NH * M * N);
    threaded[0].matmulHeads(got, a, b, NH, KVH, M, K, N, 'nk');
    assert.ok(bits(got).equals(bits(want)));
  });

  it('matmulHeads of kernel.ts: the kernel\'s where it has one, else head by head (the TypeScript kernel\'s numbers)', () => {
    const [NH, KVH, M, K, N] = [4, 2, 6, 8, 6];
    const a = rand(NH * M * K, 3);
    const b = rand(KVH * N * K, 4);
    const ts = new Float32Array(NH * M * N);
    matmulHeads(tsKernel, ts, a, b, NH, KVH, M, K, N, 'nk');
    for (let h = 0; h < NH; h++) {
      const g = Math.floor(h / 2);
      let s = 0;
      for (let k = 0; k < K; k++) s += a[h * M * K + k] * b[g * N * K + k]; // (row 0, column 0 of head h, by hand)
      assert.ok(Math.abs(ts[h * M * N] - s) < 1e-5, `head ${h}`);
    }
    const wasm = new Float32Array(NH * M * N);
    matmulHeads(one, wasm, a, b, NH, KVH, M, K, N, 'nk');
    assert.ok(bits(wasm).equals(bits(headByHead(one, a, b, NH, KVH, M, K, N, 'nk'))));
  });

  it('the helpers take heads: of 12 GPT-2 heads a call, some over a few calls', async () => {
    const k = threaded[0];
    const a = rand(12 * 32 * 64, 5);
    const b = rand(12 * 32 * 64, 6);
    const out = new Float32Array(12 * 32 * 32);
    const before = k.helpedPanels;
    // (calls until a helper thread took a head: on a busy machine it may wake only after many; the
    // bound is on a failure, the event loop let run between calls)
    const deadline = Date.now() + 60_000;
    let calls = 0;
    while (k.helpedPanels === before && Date.now() < deadline) {
      k.matmulHeads(out, a, b, 12, 12, 32, 64, 32, 'nk');
      calls++;
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(k.helpedPanels > before, `no head taken by a helper in ${calls} calls`);
  });

  it('the multi-memory kernel: the same bits, in its first memory', () => {
    const multi = createMultiKernel()!;
    const [NH, KVH, M, K, N] = [6, 3, 9, 20, 9];
    const a = rand(NH * M * K, 7);
    const b = rand(KVH * N * K, 8);
    const got = new Float32Array(NH * M * N);
    multi.matmulHeads!(got, a, b, NH, KVH, M, K, N, 'nk');
    assert.ok(bits(got).equals(bits(headByHead(one, a, b, NH, KVH, M, K, N, 'nk'))));
    multi.dispose();
  });

  it('says what is wrong with its operands', () => {
    assert.throws(() => one.matmulHeads(new Float32Array(10), new Float32Array(10), new Float32Array(10), 3, 2, 1, 1, 1, 'kn'), /3 heads over 2 key\/value heads/);
    assert.throws(() => one.matmulHeads(new Float32Array(1), new Float32Array(4), new Float32Array(4), 2, 1, 1, 2, 1, 'kn'), /need 4, 2, 2/);
  });
});
