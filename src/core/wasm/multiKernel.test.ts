// The kernel over several memories against the one-memory kernel: checkpoints whose weights a
// small cap spreads over 3 or more memories give every stage of the forward bit for bit; each
// Packed is multiplied, edited and released in its own memory; what one memory cannot hold is
// refused up front, saying what it needed.
import * as assert from 'node:assert/strict';
import { archSpec, loadCheckpoint, type Checkpoint } from '../../checkpoint/load';
import { checkpointFolder, exactNumbers, folderOf, safetensorsBytes, tinyGpt2, tinyLlama, type TestTensors, type TinyCheckpoint } from '../../checkpoint/testing';
import { forward } from '../forward';
import type { MatmulKernel } from '../matmulKernel';
import { createMultiKernel, type MultiMatmulKernel } from './multiKernel';
import { weightsOf } from '../params';
import { WASM_PAGE_BYTES } from './wasmApi';
import { createWasmKernel } from './wasmKernel';

const MB = 1 << 20;

/** A tiny checkpoint with its dimensions replaced (`dims`: tiny size → new size, as in every shape), its numbers new. */
function widened(ck: TinyCheckpoint, dims: Record<number, number>, config: Record<string, unknown>): TinyCheckpoint {
  const tensors: TestTensors = {};
  let seed = 500;
  for (const [name, t] of Object.entries(ck.tensors)) {
    if (name.endsWith('.attn.bias')) {
      tensors[name] = t; // (GPT-2's mask buffer: positions, unchanged)
      continue;
    }
    const shape = t.shape.map((d) => dims[d] ?? d);
    tensors[name] = { shape, data: exactNumbers(shape.reduce((a, b) => a * b, 1), seed++) };
  }
  return { config: { ...ck.config, ...config }, tensors };
}

// Llama (Linear weights, (N,K): panels where they are read) of 5.8 MB; GPT-2 (Conv1D weights,
// (K,N), c_attn cut into three arrays without room, tied head) of 6.4 MB
const LLAMA = widened(tinyLlama(), { 16: 256, 8: 128, 12: 688, 13: 300 }, { hidden_size: 256, intermediate_size: 688, vocab_size: 300 });
const GPT2 = widened(tinyGpt2(), { 8: 256, 24: 768, 16: 1024, 11: 300 }, { n_embd: 256, n_inner: 1024, vocab_size: 300 });
const IDS = [5, 299, 17, 0, 42];

const load = (ck: TinyCheckpoint, k: MatmulKernel): Promise<Checkpoint> => loadCheckpoint(checkpointFolder(ck).files, '/m', k);

function run(ck: Checkpoint, kernel: MatmulKernel): Map<string, Float32Array> {
  const spec = archSpec(ck.arch, { ids: IDS, temperature: 1, lens: true });
  return new Map(forward({ spec, params: ck.params }, kernel).map((s) => [s.id, s.data]));
}

const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.length);

function sameStages(got: Map<string, Float32Array>, want: Map<string, Float32Array>, what: string): void {
  assert.deepEqual([...got.keys()], [...want.keys()], what);
  for (const [id, s] of want) assert.deepEqual(bits(got.get(id)!), bits(s), `${what}: ${id}`);
}

describe('the WebAssembly kernel over several memories (multiKernel)', () => {
  const one = createWasmKernel()!;

  for (const [name, ck] of [['llama', LLAMA], ['gpt2', GPT2]] as const) {
    it(`${name}: a checkpoint spread over 3+ memories gives every stage bit for bit as one memory, in one call or in blocks of rows`, async () => {
      const want = run(await load(ck, one), one);
      for (const scratchBytes of [64 * MB, 8 * 1024]) {
        const multi = createMultiKernel(undefined, { cap: 2 * MB, scratchBytes })!;
        const held = await load(ck, multi);
        assert.ok(multi.instances.length >= 3, `${multi.instances.length} memories`);
        // each memory within the cap (a page's rounding; GPT-2's (K,N) panels made in place take a matrix aside)
        const aside = name === 'gpt2' ? 256 * 1024 * 4 : 0;
        for (const k of multi.instances) assert.ok(k.memoryBytes <= multi.cap + WASM_PAGE_BYTES + aside, `${k.memoryBytes} bytes`);
        // every matrix the forward multiplies is held in one of them, as panels
        for (const [id, p] of held.params) if (p.layout === 'panels') assert.ok(weightsOf(p) instanceof Float32Array ? (weightsOf(p) as Float32Array).buffer instanceof SharedArrayBuffer : (weightsOf(p) as { bits: Uint16Array }).bits.buffer instanceof SharedArrayBuffer, id);
        sameStages(run(held, multi), want, `${name}, scratch ${scratchBytes}`);
        multi.dispose();
      }
    });
  }

  it('sends matmul, matmulColumns, repackColumns and release to the memory that holds the weights', () => {
    const multi = createMultiKernel(undefined, { cap: MB, scratchBytes: 4096 })!;
    const K = 64, N = 40, M = 7;
    const b = exactNumbers(K * N, 1);
    const a = exactNumbers(M * K, 2);
    const first = multi.pack(b, K, N, 'kn'); // a copy as panels, in memory 0
    const kept: Float32Array[] = [];
    while (multi.instances.length < 3) kept.push(multi.weightArray(64 * 1024));
    const w = multi.weightArray(K * N); // in memory 2, multiplied where it lies
    w.set(b);
    const inPlace = multi.pack(w, K, N, 'kn');
    const last = multi.pack(b, K, N, 'kn'); // a copy, in memory 2
    const want = new Float32Array(M * N);
    const bias = exactNumbers(N, 3);
    const wantSum = new Float32Array(M * N);
    const p1 = one.pack(b, K, N, 'kn');
    one.matmul(want, a, M, p1, { b: bias, out: wantSum });
    for (const p of [first, inPlace, last]) {
      const out = new Float32Array(M * N);
      const sum = new Float32Array(M * N);
      multi.matmul(out, a, M, p, { b: bias, out: sum }); // (7 rows as 6 + 1: 4096 bytes of scratch)
      assert.deepEqual(bits(out), bits(want));
      assert.deepEqual(bits(sum), bits(wantSum));
      const cols = new Float32Array(M * N);
      multi.matmulColumns(cols, a, M, p, [0, 17, 39]);
      for (const j of [0, 17, 39]) for (let i = 0; i < M; i++) assert.equal(cols[i * N + j], want[i * N + j], `${i}, ${j}`);
    }
    // an edited column of the copy in memory 0
    const edited = Float32Array.from(b);
    for (let k = 0; k < K; k++) edited[k * N + 17] = 0.5;
    multi.repackColumns(first, edited, 'kn', [17]);
    one.repackColumns(p1, edited, 'kn', [17]);
    const out = new Float32Array(M * N);
    multi.matmul(out, a, M, first);
    one.matmul(want, a, M, p1);
    assert.deepEqual(bits(out), bits(want));
    // release frees in memory 0 alone
    const used = multi.instances.map((k) => k.usedBytes);
    multi.release(first);
    const after = multi.instances.map((k) => k.usedBytes);
    assert.equal(used[0] - after[0], Math.ceil(Math.ceil(N / 16) * 16 * K * 4 / 64) * 64);
    assert.deepEqual(after.slice(1), used.slice(1));
    assert.throws(() => multi.matmul(out, a, M, first), /used after release/);
    multi.release(last);
    assert.equal(multi.instances[2].usedBytes, used[2] - Math.ceil(Math.ceil(N / 16) * 16 * K * 4 / 64) * 64);
    assert.throws(() => multi.matmul(out, a, M, p1), /packed by another kernel/);
    one.release(p1);
    multi.dispose();
    assert.equal(kept.length > 0, true);
  });

  it('a matrix without the room for its panels, in a memory that cannot take them: moved to the next memory and made panels there, the same numbers', () => {
    const multi = createMultiKernel(undefined, { cap: MB })!;
    const K = 100, N = 1000; // (1000 columns: 63 panels of 16, 1008 columns as panels)
    const b = exactNumbers(K * N, 4);
    const kept: Float32Array[] = [];
    const w = multi.weightArray(K * N, false); // (no room: its panels would be a new block)
    w.set(b);
    while (multi.instances.length === 1) kept.push(multi.weightArray(32 * 1024));
    kept.pop(); // (the one that started memory 1)
    const used = multi.instances.map((k) => k.usedBytes);
    const panels = multi.intoPanels(w, K, N, 'nk')!;
    const after = multi.instances.map((k) => k.usedBytes);
    assert.equal(after[0], used[0], 'nothing more in memory 0 (w is freed when it is collected)');
    assert.ok(after[1] - used[1] >= panels.length * 4, 'the panels in memory 1');
    const w1 = one.weightArray(K * N, false);
    w1.set(b);
    assert.deepEqual(bits(panels), bits(one.intoPanels(w1, K, N, 'nk')!));
    const a = exactNumbers(3 * K, 5);
    const [got, want] = [new Float32Array(3 * N), new Float32Array(3 * N)];
    multi.matmul(got, a, 3, multi.pack(panels, K, N, 'panels'));
    one.matmul(want, a, 3, one.pack(b, K, N, 'nk'));
    assert.deepEqual(bits(got), bits(want));
    multi.dispose();
  });

  it('refuses, before any memory grows, an array more than one memory holds, saying what it needed', () => {
    const multi: MultiMatmulKernel = createMultiKernel(undefined, { cap: 2 * MB })!;
    const before = multi.instances.map((k) => k.memoryBytes);
    assert.throws(() => multi.weightArray(600_000), { name: 'RangeError', message: 'an array of 600,000 weights needs 2.4 MB, more than one WebAssembly memory holds here (2.1 MB)' });
    assert.throws(() => multi.pack(new Float32Array(512 * 512), 512, 512, 'nk'), { message: 'packed weights of 512 × 512 needs 2.1 MB, more than one WebAssembly memory holds here (2.1 MB)' });
    assert.deepEqual(multi.instances.map((k) => k.memoryBytes), before);
    assert.deepEqual(multi.weightLimits(), { total: Infinity, array: 2 * MB });
    assert.throws(() => createMultiKernel(undefined, { cap: 2 ** 31 }), { message: 'multi-memory kernel: a cap of 2147483648 bytes per memory, expected 1 MiB … 2.0 GB' });
    multi.dispose();
  });

  it('a checkpoint: a tensor past one memory refused at its name, from the headers; weights past one memory in all load over several', async () => {
    const multi = createMultiKernel(undefined, { cap: 2 * MB })!;
    const wide = widened(tinyLlama(), { 12: 2048 }, { intermediate_size: 2048 }); // (2048 × 16 of F, 0.13 MB… below: 1 MB)
    const big = widened(wide, { 16: 128, 8: 64 }, { hidden_size: 128 });
    const { files } = folderOf({ 'config.json': big.config, 'model.safetensors': safetensorsBytes(big.tensors) });
    await assert.rejects(loadCheckpoint(files, '/m', { ...holderOf(multi), weightLimits: () => ({ total: Infinity, array: 1e6 }) }), {
      message: 'model.layers.0.mlp.gate_proj.weight needs 1.2 MB as FFN Lens holds it, available 1 MB: FFN Lens holds each tensor in one WebAssembly memory',
    });
    const ck = await loadCheckpoint(files, '/m', multi); // (cap 2 MB: each in a memory, 2.2 MB of weights in all over 2)
    assert.ok(multi.instances.length >= 2);
    sameStages(run(ck, multi), run(await load(big, one), one), 'wide');
    multi.dispose();
  });
});

function holderOf(k: MatmulKernel): { weightArray: MatmulKernel['weightArray']; halfArray: MatmulKernel['halfArray']; intoPanels: MatmulKernel['intoPanels'] } {
  return { weightArray: (n, z, r) => k.weightArray(n, z, r), halfArray: (n, r) => k.halfArray(n, r), intoPanels: (w, K, N, l) => k.intoPanels(w, K, N, l) };
}
