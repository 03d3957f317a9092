// The matmul shared by two and three threads: the same bits as one thread computes (each output
// column is computed whole by one of them), for shapes whose panels split evenly and unevenly, and
// one thread does it all while the helper has not started (or never does). The thread count asked
// for caps the helpers that take part; the setting's count (threadCount).
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { nodeMatmulHelper } from '../../worker/nodeMatmulHelper';
import { createWasmKernel, threadCount, type WasmMatmulKernel } from '.';

const helperScript = join(__dirname, '..', '..', 'worker', 'matmulHelperThread.js');
const rand = (n: number, seed: number): Float32Array => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + seed) * 43758.5453 % 1);

async function until(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('the helper thread did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('matmul on several threads', () => {
  let two: WasmMatmulKernel;
  let three: WasmMatmulKernel;
  let one: WasmMatmulKernel;
  before(async () => {
    two = createWasmKernel(nodeMatmulHelper(helperScript))!;
    three = createWasmKernel(nodeMatmulHelper(helperScript), { threads: 3 })!;
    one = createWasmKernel()!;
    await until(() => two.threads === 2 && three.threads === 3, 10_000);
  });
  after(() => {
    two.dispose();
    three.dispose();
    one.dispose();
  });

  it('threadCount: 0 every core, else at most one per core', () => {
    assert.equal(threadCount(0, 8), 8);
    assert.equal(threadCount(undefined, 2), 2);
    assert.equal(threadCount(3, 8), 3);
    assert.equal(threadCount(16, 4), 4);
    assert.equal(threadCount(1, 4), 1);
    assert.equal(threadCount(0, 0), 1);
  });

  for (const [M, K, N, layout] of [[32, 256, 1024, 'kn'], [7, 300, 1000, 'nk'], [33, 768, 50], [1, 2048, 2048, 'nk']] as const) {
    it(`${M}×${K}×${N} (${layout ?? 'kn'}) on 3 threads: the bits of one thread`, () => {
      const a = rand(M * K, 1);
      const b = rand(K * N, 2);
      const got = new Float32Array(M * N);
      const want = new Float32Array(M * N);
      const pt = three.pack(b, K, N, layout ?? 'kn');
      const po = one.pack(b, K, N, layout ?? 'kn');
      three.matmul(got, a, M, pt);
      one.matmul(want, a, M, po);
      three.release(pt);
      one.release(po);
      assert.equal(Buffer.compare(Buffer.from(got.buffer), Buffer.from(want.buffer)), 0);
      assert.ok(want.some((v) => v !== 0));
    });

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

  it('the helpers of a 3-thread kernel take part; asked for 1, none does', () => {
    const [M, K, N] = [32, 768, 3072];
    const a = rand(M * K, 5);
    const p = three.pack(rand(K * N, 6), K, N, 'kn');
    const out = new Float32Array(M * N);
    const before = three.helpedPanels;
    for (let i = 0; i < 20; i++) three.matmul(out, a, M, p);
    assert.ok(three.helpedPanels > before, 'the helpers computed panels');
    three.setThreads(1);
    assert.equal(three.threads, 1);
    const alone = three.helpedPanels;
    for (let i = 0; i < 5; i++) three.matmul(out, a, M, p);
    assert.equal(three.helpedPanels, alone);
    three.setThreads(3);
    three.release(p);
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
