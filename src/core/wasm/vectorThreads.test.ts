// The vector ops split over a kernel's threads give the one-thread form's bits (each row or block
// of elements computed whole by one thread), and so does a whole forward: every stage of a model
// whose products, softmax and activation all split is bit-identical on 1, 2 and 3 threads.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { nodeMatmulHelper } from '../../worker/nodeMatmulHelper';
import { createWasmKernel, type WasmMatmulKernel } from '.';
import { createWasmExp, type WasmExp } from './wasmExp';
import { shareVectorOps } from '../expf';
import { forward } from '../forward';
import { generateModelText } from '../../model/generate';
import { readModel } from '../../model/read';

const helperScript = join(__dirname, '..', '..', 'worker', 'matmulHelperThread.js');
const rand = (n: number, seed: number, scale = 8): Float32Array => Float32Array.from({ length: n }, (_, i) => scale * ((Math.sin(i * 12.9898 + seed) * 43758.5453) % 1));
const bits = (x: Float32Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

async function until(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('the helper threads did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('vector ops on several threads', () => {
  const kernels: WasmMatmulKernel[] = [];
  let plain: WasmExp;
  before(async () => {
    plain = createWasmExp()!;
    for (const threads of [2, 3]) kernels.push(createWasmKernel(nodeMatmulHelper(helperScript), { threads })!);
    await until(() => kernels.every((k, i) => k.threads === i + 2), 10_000);
  });
  after(() => {
    shareVectorOps({});
    for (const k of kernels) k.dispose();
  });

  for (const [R, N] of [[32, 4099], [7, 8192], [64, 1024]] as const) {
    it(`softmax ${R}×${N}: the bits of one thread, on 2 and 3`, () => {
      const inp = rand(R * N, 1);
      const want = new Float32Array(R * N);
      plain.softmax(want, inp, R, N, 0.7);
      for (const k of kernels) {
        const got = new Float32Array(R * N);
        const before = k.helpedPanels;
        k.vectorForm(plain)!.softmax(got, inp, R, N, 0.7);
        assert.ok(bits(got).equals(bits(want)), `${k.threads} threads`);
        assert.ok(k.helpedPanels >= before);
      }
      assert.ok(want.some((v) => v > 0));
    });
  }

  for (const rms of [false, true]) {
    it(`${rms ? 'RMSNorm' : 'LayerNorm'} 48×1024: the bits of one thread, on 2 and 3`, () => {
      const [T, C] = [48, 1024];
      const inp = rand(T * C, 2);
      const gamma = rand(C, 3, 1);
      const beta = rms ? null : rand(C, 4, 1);
      const want = new Float32Array(T * C);
      plain.norm(want, inp, gamma, beta, 1e-5, T, C, rms);
      for (const k of kernels) {
        const got = new Float32Array(T * C);
        k.vectorForm(plain)!.norm(got, inp, gamma, beta, 1e-5, T, C, rms);
        assert.ok(bits(got).equals(bits(want)), `${k.threads} threads`);
      }
    });
  }

  for (const [kind, gated, n] of [['gelu_tanh', false, 32 * 3072], ['silu', true, 33 * 1537], ['gelu_tanh', true, 100_001]] as const) {
    it(`${kind}${gated ? ' gated' : ''} over ${n} values: the bits of one thread, on 2 and 3`, () => {
      const x = rand(n, 5);
      const up = gated ? rand(n, 6) : null;
      const want = new Float32Array(n);
      plain.sigmoidAct(want, x, up, n, kind);
      for (const k of kernels) {
        const got = new Float32Array(n);
        k.vectorForm(plain)!.sigmoidAct(got, x, up, n, kind);
        assert.ok(bits(got).equals(bits(want)), `${k.threads} threads`);
      }
    });
  }

  for (const [gated, n] of [[false, 32 * 3072], [true, 33 * 1537], [false, 9001]] as const) {
    it(`exact GELU${gated ? ' gated' : ''} over ${n} values (erf's table in the kernel's memory): the bits of one thread, on 2 and 3`, () => {
      const x = rand(n, 7);
      const up = gated ? rand(n, 8) : null;
      const want = new Float32Array(n);
      plain.geluAct(want, x, up, n);
      assert.ok(want.some((v) => v !== 0));
      for (const k of kernels) {
        const got = new Float32Array(n).fill(NaN);
        k.vectorForm(plain)!.geluAct(got, x, up, n);
        assert.ok(bits(got).equals(bits(want)), `${k.threads} threads`);
      }
    });
  }

  it('a forward (products, attention by head, softmax over the vocabulary, GELU-tanh, SwiGLU, exact GELU, GeGLU split): every stage bit-identical on 1, 2 and 3 threads', () => {
    for (const activation of ['gelu_tanh', 'swiglu', 'gelu', 'geglu'] as const) {
      const text = generateModelText({ preset: 'd256', layers: 2, vocab: 2048, activation, digits: 4, seed: 3 });
      const model = readModel(text, 'm.ffn.json').file!.model;
      const runs = [1, 2, 3].map((threads) => {
        const k = kernels[threads === 3 ? 1 : 0];
        k.setThreads(threads);
        shareVectorOps(k);
        // (whether the helpers took part depends on the machine's load: a late helper stands aside)
        const stages = forward(model, k);
        return new Map(stages.map((s) => [s.id, s.data]));
      });
      shareVectorOps({});
      kernels[0].setThreads(2);
      assert.ok(runs[0].size > 10);
      for (const [id, want] of runs[0]) {
        for (const r of runs.slice(1)) assert.ok(bits(r.get(id)!).equals(bits(want)), `${activation}: stage ${id}`);
      }
    }
  });
});
