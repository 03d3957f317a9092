// The matmul shared by two threads: the same bits as one thread computes (each output column is
// computed whole by one of them), for shapes whose panels split evenly and unevenly, and one
// thread does it all while the helper has not started (or never does).
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { nodeMatmulHelper } from '../../worker/nodeMatmulHelper';
import { createWasmKernel, type WasmMatmulKernel } from '.';

const helperScript = join(__dirname, '..', '..', 'worker', 'matmulHelperThread.js');
const rand = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + seed) * 43758.5453 % 1);

async function until(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('the helper thread did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('matmul on two threads', () => {
  let two: WasmMatmulKernel;
  let one: WasmMatmulKernel;
  before(async () => {
    two = createWasmKernel(nodeMatmulHelper(helperScript))!;
    one = createWasmKernel()!;
    await until(() => two.threads === 2, 10_000);
  });
  after(() => {
    two.dispose();
    one.dispose();
  });

  for (const [M, K, N, layout] of [[32, 256, 1024, 'kn'], [7, 300, 1000, 'nk'], [33, 768, 50], [1, 2048, 2048, 'nk']] as const) {
    it(`${M}×${K}×${N} (${layout ?? 'kn'}): the bits of one thread`, () => {
      const a = rand(M * K, 1);
      const b = rand(K * N, 2);
      const got = new Float32Array(M * N);
      const want = new Float32Array(M * N);
      const pt = two.pack(b, K, N, layout ?? 'kn');
      const po = one.pack(b, K, N, layout ?? 'kn');
      two.matmul(got, a, M, pt);
      one.matmul(want, a, M, po);
      two.release(pt);
      one.release(po);
      assert.equal(Buffer.compare(Buffer.from(got.buffer), Buffer.from(want.buffer)), 0);
      assert.ok(want.some((v) => v !== 0));
    });

    it(`${M}×${K}×${N} (${layout ?? 'kn'}), weights read where they lie: the bits of one thread`, () => {
      const a = rand(M * K, 1);
      const b = rand(K * N, 2);
      const [wt, wo] = [two, one].map((k) => { const w = k.weightArray(b.length); w.set(b); return w; });
      const got = new Float32Array(M * N);
      const want = new Float32Array(M * N);
      const used = two.usedBytes;
      const pt = two.pack(wt, K, N, layout ?? 'kn');
      assert.equal(two.usedBytes, used, 'no packed copy');
      two.matmul(got, a, M, pt);
      one.matmul(want, a, M, one.pack(wo, K, N, layout ?? 'kn'));
      assert.equal(Buffer.compare(Buffer.from(got.buffer), Buffer.from(want.buffer)), 0);
      assert.ok(want.some((v) => v !== 0));
    });
  }

  it('the helper takes part: panels computed by it over a few large products', () => {
    const [M, K, N] = [32, 768, 3072];
    const a = rand(M * K, 5);
    const p = two.pack(rand(K * N, 6), K, N, 'kn');
    const out = new Float32Array(M * N);
    const before = two.helpedPanels;
    for (let i = 0; i < 20; i++) two.matmul(out, a, M, p);
    two.release(p);
    assert.ok(two.helpedPanels > before, `the helper computed ${two.helpedPanels - before} of ${20 * 192} panels`);
  });

  it('computes everything on one thread while the helper has not started', () => {
    let terminated = false;
    const k = createWasmKernel(() => ({ terminate: () => (terminated = true) }))!; // (a helper that never gets ready)
    assert.equal(k.threads, 1);
    const [M, K, N] = [32, 256, 1024];
    const a = rand(M * K, 3);
    const b = rand(K * N, 4);
    const got = new Float32Array(M * N);
    const want = new Float32Array(M * N);
    k.matmul(got, a, M, k.pack(b, K, N, 'kn'));
    one.matmul(want, a, M, one.pack(b, K, N, 'kn'));
    assert.deepEqual(got, want);
    k.dispose();
    assert.ok(terminated);
  });
});
