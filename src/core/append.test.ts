// Tokens appended to a causal model's input: the engine computes only the new rows of every
// row-by-row stage (embedding, norms, Q/K/V with RoPE at their positions, every linear layer, the
// activation, residuals, the head, the lens) and of attention (the new queries' scores, weights
// and context, the new keys' scores of the queries before), and gets every stage bit for bit as
// the reference forward of the longer input does: with float32 weights, and with BF16 / F16 ones
// in panels (one row multiplied by the 16-bit panel where it lies, the longer input's rows by its
// widened copy). Every matmul of the appending run multiplies the new rows alone.
import * as assert from 'node:assert/strict';
import { Engine } from './engine';
import { forward } from './forward';
import { tsKernel, type MatmulKernel, type Packed } from './kernel';
import type { Model } from './model';
import { halfPanelsInto, type HalfDtype } from './halfWeights';
import type { Param } from './params';
import type { ModelSpec } from './spec';
import type { Stage } from './stages';
import { createWasmKernel } from './wasm';
import { rng } from './rng';

type Arch = 'gpt2' | 'llama';

function params(arch: Arch, r: () => number, C: number, F: number, NH: number, KVH: number, V: number, L: number): Map<string, Param> {
  const HS = C / NH;
  const num = (): number => Math.fround(r() * 2 - 1);
  const m = new Map<string, Param>();
  const mat = (id: string, out: number, inp: number): void => {
    const layout = arch === 'gpt2' ? 'in_out' : 'out_in';
    m.set(id, { data: Float32Array.from({ length: out * inp }, num), shape: layout === 'out_in' ? [out, inp] : [inp, out], layout });
  };
  const vec = (id: string, n: number, base = 0): void => void m.set(id, { data: Float32Array.from({ length: n }, () => base + num() * 0.2), shape: [n] });
  m.set('embed', { data: Float32Array.from({ length: V * C }, num), shape: [V, C], layout: 'out_in' });
  if (arch === 'gpt2') m.set('pos', { data: Float32Array.from({ length: 16 * C }, num), shape: [16, C], layout: 'out_in' });
  for (let i = 0; i < L; i++) {
    const p = `layers.${i}.`;
    vec(`${p}ln1.gamma`, C, 1); vec(`${p}ln2.gamma`, C, 1);
    if (arch === 'gpt2') { vec(`${p}ln1.beta`, C); vec(`${p}ln2.beta`, C); }
    mat(`${p}attn.Wq`, NH * HS, C); mat(`${p}attn.Wk`, KVH * HS, C); mat(`${p}attn.Wv`, KVH * HS, C); mat(`${p}attn.Wo`, C, NH * HS);
    vec(`${p}attn.bq`, NH * HS); vec(`${p}attn.bk`, KVH * HS);
    mat(`${p}ffn.W1`, F, C); mat(`${p}ffn.W2`, C, F);
    if (arch === 'llama') mat(`${p}ffn.Wg`, F, C);
    else { vec(`${p}ffn.b1`, F); vec(`${p}ffn.b2`, C); }
  }
  vec('ln_f.gamma', C, 1);
  m.set('head.W', m.get('embed')!); // tied
  return m;
}

/** The same params with every array in the kernel's own memory (as a checkpoint's are), read where they lie. */
function inKernel(ps: Map<string, Param>, k: MatmulKernel): Map<string, Param> {
  const moved = new Map<Float32Array, Float32Array>(); // (the tied head stays the embedding's array)
  const out = new Map<string, Param>();
  for (const [id, p] of ps) {
    let d = moved.get(p.data!);
    if (!d) {
      d = k.weightArray(p.data!.length);
      d.set(p.data!);
      moved.set(p.data!, d);
    }
    out.set(id, { shape: p.shape, layout: p.layout, data: d });
  }
  return out;
}

/** Random 16-bit weights of `dtype` (about ±(1e-2 … 1), a few zeros) for every matrix of `ps`, as panels in the kernel's memory (as a checkpoint's are). */
function halfPanels(ps: Map<string, Param>, k: MatmulKernel, dtype: HalfDtype, r: () => number): Map<string, Param> {
  const made = new Map<Param, Param>(); // (the tied head stays the embedding's)
  const out = new Map<string, Param>();
  for (const [id, p] of ps) {
    if (p.shape.length !== 2 || id === 'pos') {
      out.set(id, p);
      continue;
    }
    let q = made.get(p);
    if (!q) {
      const [K, N] = p.layout === 'in_out' ? p.shape : [p.shape[1], p.shape[0]];
      const src = Uint16Array.from({ length: K * N }, () => {
        const x = Math.floor(r() * 0x10000);
        if (x % 23 === 0) return 0;
        return (x & 0x8000) | (dtype === 'BF16' ? 0x3c00 + (x % 0x380) : 0x2000 + (x % 0x1c00));
      });
      const bits = k.halfArray(Math.ceil(N / 16) * 16 * K);
      halfPanelsInto(src, bits, K, N, p.layout === 'in_out' ? 'kn' : 'nk');
      q = { shape: [N, K], layout: 'panels', half: { dtype, bits } };
      made.set(p, q);
    }
    out.set(id, q);
  }
  return out;
}

function spec(arch: Arch, ids: number[], C: number, F: number, NH: number, KVH: number, V: number, L: number): ModelSpec {
  return {
    T: ids.length, C, normKind: arch === 'gpt2' ? 'layernorm' : 'rmsnorm', eps: new Map(), residual: true, norm: 'pre', finalNorm: true,
    embedding: { kind: 'tokens', ids, positional: arch === 'gpt2' ? 'learned' : 'none' },
    layers: Array.from({ length: L }, () => ({
      attention: { NH, KVH, HS: C / NH, causal: true, rope: arch === 'llama' ? { theta: 10000 } : null },
      ffn: { F, activation: arch === 'gpt2' ? 'gelu_tanh' as const : 'swiglu' as const },
    })),
    head: { V, temperature: 1 }, lens: true,
  };
}

/**
 * A kernel that records how many rows each matmul of a layer's own weights multiplies (attention's
 * Q·Kᵀ and weights·V pack their operands for one product and release them at once: left out).
 */
function counting(k: MatmulKernel): { kernel: MatmulKernel; rows: number[]; attention: number[]; reset(): void } {
  let calls: Array<{ M: number; p: Packed }> = [];
  const once = new Set<Packed>();
  return {
    get rows() { return calls.filter((c) => !once.has(c.p)).map((c) => c.M); },
    /** M·N of each of attention's products (the ones packed for one call). */
    get attention() { return calls.filter((c) => once.has(c.p)).map((c) => c.M * c.p.N); },
    reset() { calls = []; once.clear(); },
    kernel: {
      name: k.name, threads: k.threads, fused: k.fused, pack: k.pack.bind(k), matmulColumns: k.matmulColumns.bind(k), repackColumns: k.repackColumns.bind(k), weightArray: k.weightArray.bind(k), halfArray: k.halfArray.bind(k), intoPanels: k.intoPanels.bind(k),
      release: (p) => { once.add(p); k.release(p); },
      matmul: (out, a, M, p, biased) => { calls.push({ M, p }); k.matmul(out, a, M, p, biased); },
    },
  };
}

describe('engine: tokens appended to a causal input', () => {
  const wasm = createWasmKernel();
  const kernels: Array<[string, MatmulKernel | null, boolean]> = [['ts', tsKernel, false], ['wasm', wasm, false], ['wasm, weights in its memory,', wasm, true]];
  for (const [kname, base, resident] of kernels) {
    for (const arch of ['gpt2', 'llama'] as const) {
      it(`${arch}, ${kname} kernel: only the new rows are multiplied; every stage equals the reference forward`, function () {
        if (!base) this.skip();
        const r = rng(arch === 'gpt2' ? 7 : 11);
        const [C, F, NH, KVH, V, L] = arch === 'gpt2' ? [8, 16, 2, 2, 11, 2] : [8, 12, 4, 2, 13, 3];
        const ps = resident ? inKernel(params(arch, r, C, F, NH, KVH, V, L), base!) : params(arch, r, C, F, NH, KVH, V, L);
        if (resident) assert.ok([...ps.values()].every((p) => p.data!.buffer instanceof SharedArrayBuffer), 'the weights are in the kernel\'s memory');
        const count = counting(base!);
        const engine = new Engine(count.kernel);
        let ids = [3, 1, 4];
        for (const grow of [1, 2, 1, 3]) {
          const model0: Model = { spec: spec(arch, ids, C, F, NH, KVH, V, L), params: ps };
          engine.run(model0);
          const T0 = ids.length;
          ids = [...ids, ...Array.from({ length: grow }, () => Math.floor(r() * V))];
          const model: Model = { spec: spec(arch, ids, C, F, NH, KVH, V, L), params: ps };
          count.reset();
          const got = engine.run(model);
          assert.ok(count.rows.length >= 7 * L, `${count.rows.length} products`);
          assert.deepEqual([...new Set(count.rows)], [ids.length - T0], `every matmul of the appending run multiplies ${ids.length - T0} rows`);
          const n = ids.length - T0;
          // (scores: the new queries × every key, the queries before × the new keys; context: the new rows × HS)
          assert.ok(count.attention.length >= 3 * L * KVH && count.attention.every((mn) => mn <= n * Math.max(ids.length, C / NH)), `attention's products: ${count.attention.join(' ')}`);
          const want = forward(model, base!);
          assert.deepEqual(got.map((s) => s.id), want.map((s) => s.id));
          got.forEach((s, i) => {
            assert.deepEqual(s.shape, want[i].shape, s.id);
            assert.ok(Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength).equals(Buffer.from(want[i].data.buffer, want[i].data.byteOffset, want[i].data.byteLength)), `${s.id} bit for bit (T ${T0} → ${ids.length})`);
          });
        }
        engine.dispose();
      });
    }
  }

  for (const dtype of ['BF16', 'F16'] as const) {
    for (const arch of ['gpt2', 'llama'] as const) {
      it(`${arch}, ${dtype} weights in panels: every stage of T 31 → 32 and of widths past whole panels equals the reference forward`, function () {
        if (!wasm) this.skip();
        // (C 24, F 20, V 19, HS 6 / 3: no whole panel of 16 nor of 4 lanes)
        const shapes: Array<[number, number, number, number, number, number, number, number]> = [[24, 20, 4, 2, 19, 2, 31, 1], [24, 40, 8, 8, 37, 1, 5, 2], [16, 16, 2, 1, 16, 2, 1, 1]];
        for (const [C, F, NH, KVH, V, L, T0, grow] of shapes) {
          const r = rng(C + F + T0);
          const ps = halfPanels(params(arch, r, C, F, NH, KVH, V, L), wasm!, dtype, r);
          if (arch === 'gpt2') ps.set('pos', { data: Float32Array.from({ length: 64 * C }, () => Math.fround(r() - 0.5)), shape: [64, C], layout: 'out_in' }); // (positions for T 32)
          const engine: Engine = new Engine(wasm!);
          const ids = Array.from({ length: T0 + grow }, () => Math.floor(r() * V));
          engine.run({ spec: spec(arch, ids.slice(0, T0), C, F, NH, KVH, V, L), params: ps });
          const model: Model = { spec: spec(arch, ids, C, F, NH, KVH, V, L), params: ps };
          const got = engine.run(model);
          const want = forward(model, wasm!);
          assert.deepEqual(got.map((s) => s.id), want.map((s) => s.id));
          got.forEach((s, i) => assert.ok(Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength).equals(Buffer.from(want[i].data.buffer, want[i].data.byteOffset, want[i].data.byteLength)), `${s.id} bit for bit (C ${C}, T ${T0} → ${ids.length})`));
          const logits = want.find((s) => s.id === 'head.logits')!.data;
          assert.ok(logits.every(Number.isFinite) && logits.some((x) => x !== 0), 'finite logits');
          engine.dispose();
        }
      });
    }
  }

  it('computes everything again when no first token is kept (the first id changed, a non-causal layer, other params)', () => {
    const r = rng(3);
    const ps = params('llama', r, 8, 12, 4, 2, 13, 1);
    const count = counting(tsKernel);
    const engine = new Engine(count.kernel);
    engine.run({ spec: spec('llama', [1, 2, 3], 8, 12, 4, 2, 13, 1), params: ps });
    count.reset();
    engine.run({ spec: spec('llama', [6, 2, 3, 4], 8, 12, 4, 2, 13, 1), params: ps });
    assert.ok(count.rows.length > 0 && count.rows.every((m) => m === 4), 'the first id changed: all rows');
    count.reset();
    engine.run({ spec: spec('llama', [1, 5, 3, 4], 8, 12, 4, 2, 13, 1), params: ps });
    count.reset();
    engine.run({ spec: spec('llama', [1, 5, 3, 4], 8, 12, 4, 2, 13, 1), params: new Map([...ps].map(([id, p]) => [id, id === 'layers.0.ffn.W1' ? { ...p } : p])) });
    assert.ok(count.rows.length > 0 && count.rows.every((m) => m === 4), 'another param object: all rows');
    const s = spec('llama', [1, 5, 3, 4, 2], 8, 12, 4, 2, 13, 1);
    count.reset();
    engine.run({ spec: { ...s, layers: s.layers.map((l) => ({ ...l, attention: { ...l.attention!, causal: false } })) }, params: ps });
    const rows: number[] = count.rows;
    assert.ok(rows.length > 0 && rows.every((m) => m === 5), 'not causal: all rows');
  });
});

describe('engine: tokens appended while the run of the tokens before is stopped', () => {
  for (const arch of ['gpt2', 'llama'] as const) {
    it(`${arch}: every stage of the longer input equals the reference forward`, () => {
      const r = rng(arch === 'gpt2' ? 17 : 19);
      const [C, F, NH, KVH, V, L] = arch === 'gpt2' ? [8, 16, 2, 2, 11, 2] : [8, 12, 4, 2, 13, 3];
      const ps = params(arch, r, C, F, NH, KVH, V, L);
      const engine = new Engine(tsKernel);
      let ids = [3, 1, 4];
      engine.run({ spec: spec(arch, ids, C, F, NH, KVH, V, L), params: ps });
      for (const stopAt of [1, 5, 12, 20, 1000]) {
        // a token typed: its run stopped after `stopAt` stages by the next one
        ids = [...ids, Math.floor(r() * V)];
        const walk = engine.walk({ spec: spec(arch, ids, C, F, NH, KVH, V, L), params: ps });
        for (let i = 0; i < stopAt && !walk.next().done;) i++;
        walk.return([]);
        ids = [...ids, Math.floor(r() * V)];
        const model: Model = { spec: spec(arch, ids, C, F, NH, KVH, V, L), params: ps };
        const got = engine.run(model);
        const want = forward(model, tsKernel);
        got.forEach((s, i) => assert.ok(Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength).equals(Buffer.from(want[i].data.buffer, want[i].data.byteOffset, want[i].data.byteLength)), `${s.id} bit for bit (stopped after ${stopAt})`));
      }
    });
  }
});

describe('engine: the last tokens of a causal input replaced (a prompt typed at its end)', () => {
  const wasm = createWasmKernel();
  for (const [kname, base] of [['ts', tsKernel], ['wasm', wasm]] as const) {
    for (const arch of ['gpt2', 'llama'] as const) {
      it(`${arch}, ${kname} kernel: only the rows after the ids kept are multiplied; every stage equals the reference forward`, function () {
        if (!base) this.skip();
        const r = rng(arch === 'gpt2' ? 23 : 29);
        const [C, F, NH, KVH, V, L] = arch === 'gpt2' ? [8, 16, 2, 2, 11, 2] : [8, 12, 4, 2, 13, 3];
        const ps = params(arch, r, C, F, NH, KVH, V, L);
        const count = counting(base);
        const engine = new Engine(count.kernel);
        // each: the ids after the last run's, and how many of the first are kept (at least the last row is computed)
        const steps: Array<[number[], number]> = [
          [[3, 1, 4, 1, 5], 0], // (the first run)
          [[3, 1, 4, 1, 9], 4], // the last token another
          [[3, 1, 4, 2, 6, 5], 3], // the last two others, one more
          [[3, 1, 4, 2], 3], // shorter, its last kept: it is computed again
          [[3, 1, 4, 2], 4], // the same ids, another model object: nothing computed
          [[3, 7], 1], // shorter, another last
          [[3, 7, 2, 8, 1, 0, 4], 2], // longer (the plain append)
        ];
        for (const [ids, T0] of steps) {
          const model: Model = { spec: spec(arch, ids, C, F, NH, KVH, V, L), params: ps };
          count.reset();
          const got = engine.run(model);
          assert.deepEqual([...new Set(count.rows)], T0 === ids.length ? [] : [ids.length - T0], `every matmul multiplies ${ids.length - T0} rows (${ids})`);
          const want = forward(model, base);
          assert.deepEqual(got.map((s) => s.id), want.map((s) => s.id));
          got.forEach((s, i) => {
            assert.deepEqual(s.shape, want[i].shape, s.id);
            assert.ok(Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength).equals(Buffer.from(want[i].data.buffer, want[i].data.byteOffset, want[i].data.byteLength)), `${s.id} bit for bit (${ids})`);
          });
        }
        engine.dispose();
      });
    }
  }

  it('a run stopped part way (each key stops the last), then the last token another: only the rows after the ids kept, from the stages of both runs; every stage equals the reference forward', () => {
    const r = rng(31);
    const [C, F, NH, KVH, V, L] = [8, 16, 2, 2, 11, 2];
    const ps = params('gpt2', r, C, F, NH, KVH, V, L);
    const count = counting(tsKernel);
    const engine = new Engine(count.kernel);
    engine.run({ spec: spec('gpt2', [3, 1, 4, 1], C, F, NH, KVH, V, L), params: ps });
    for (const stopAt of [1, 5, 12, 1000]) {
      const walk = engine.walk({ spec: spec('gpt2', [3, 1, 4, 1 + (stopAt % 5)], C, F, NH, KVH, V, L), params: ps });
      for (let i = 0; i < stopAt && !walk.next().done;) i++;
      walk.return([]);
      const model: Model = { spec: spec('gpt2', [3, 1, 4, 10 - (stopAt % 7), 2], C, F, NH, KVH, V, L), params: ps };
      count.reset();
      const got = engine.run(model);
      // (2 rows after the ids the stopped run kept; 1 for a stage the stopped run did not reach, of an earlier run with these ids but its last)
      assert.ok(count.rows.length > 0 && count.rows.every((m) => m === 2 || m === 1), `every matmul multiplies the rows after the ids kept, not all 5: ${[...new Set(count.rows)]} (stopped after ${stopAt})`);
      if (stopAt === 12) assert.ok(count.rows.includes(1), 'a stage the stopped run did not reach: its rows of an earlier run kept');
      const want = forward(model, tsKernel);
      got.forEach((s, i) => assert.ok(Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength).equals(Buffer.from(want[i].data.buffer, want[i].data.byteOffset, want[i].data.byteLength)), `${s.id} bit for bit (stopped after ${stopAt})`));
    }
  });
});

describe('engine: appended rows written in place (rowBuffer.ts)', () => {
  it('a token appended after the last run\'s leaves no stage handed out changed, and writes the row-by-row stages\' new rows after their kept ones without copying them', () => {
    const r = rng(37);
    const [C, F, NH, KVH, V, L] = [8, 16, 2, 2, 11, 2];
    const ps = params('gpt2', r, C, F, NH, KVH, V, L);
    const engine = new Engine(tsKernel);
    const handed: Array<[string, Float32Array, Float32Array]> = [];
    let last: Stage[] = [];
    // appended, appended, a branch from the same three (the last replaced), appended, shorter, appended, the first another
    const steps = [[3, 1, 4], [3, 1, 4, 1], [3, 1, 4, 1, 5], [3, 1, 4, 2], [3, 1, 4, 2, 6], [3, 1, 4, 2, 6, 5], [3, 1], [3, 1, 9], [7, 1, 9, 2]];
    let inPlace = 0;
    let lastIds: number[] = [];
    let shorter = false; // (the last run a view of fewer rows than its buffer holds: a token appended to it copies)
    for (const ids of steps) {
      const model: Model = { spec: spec('gpt2', ids, C, F, NH, KVH, V, L), params: ps };
      const got = engine.run(model);
      const want = forward(model, tsKernel);
      got.forEach((s, i) => assert.deepEqual([...s.data], [...want[i].data], `${s.id} (${ids})`));
      const before = new Map(last.map((s) => [s.id, s]));
      const appended = ids.length === lastIds.length + 1 && lastIds.every((x, i) => ids[i] === x);
      for (const id of ['head.logits', 'layers.1.ffn.act', 'layers.0.out']) {
        const s = got.find((x) => x.id === id)!;
        if (s.data.buffer === before.get(id)?.data.buffer) inPlace++;
        // (the first token after a full forward too: that run's stages were made with room)
        else if (appended && !shorter) assert.fail(`${id}: T ${ids.length - 1} → ${ids.length} copied its rows`);
      }
      shorter = ids.length < lastIds.length;
      lastIds = ids;
      for (const s of got) handed.push([`${s.id} (${ids})`, s.data, s.data.slice()]);
      for (const [name, now, was] of handed) assert.ok(Buffer.from(now.buffer, now.byteOffset, now.byteLength).equals(Buffer.from(was.buffer, was.byteOffset, was.byteLength)), `${name} unchanged after the run of ${ids}`);
      last = got;
    }
    assert.ok(inPlace >= 12, `stages written in place: ${inPlace}`);
    engine.dispose();
  });
});
