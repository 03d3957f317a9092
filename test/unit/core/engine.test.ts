// The engine against the reference forward pass, bit for bit; and every incremental result
// (after random edits of weights, biases, norms, inputs) against a full computation of the same text.
import * as assert from 'node:assert/strict';
import type { TextChange } from '../../../src/compute/protocol';
import { EVERYTHING, ForwardEngine } from '../../../src/core/engine';
import { modelForward } from '../../../src/core/forward';
import { tsKernel, type MatmulKernel } from '../../../src/core/kernel';
import type { Stage } from '../../../src/core/stages';
import { createWasmKernel } from '../../../src/core/wasm';
import { applyToString as applyIncrementally } from '../../helpers/incremental';
import { readModel } from '../../../src/model/read';
import { everything, markRows, noChange } from '../../../src/worker/dirty';
import { goldenCases } from '../../helpers/fixtures';
import { modelText, type TestModelOptions } from '../../helpers/models';
import { rng } from '../../helpers/random';

function sameBits(a: readonly Stage[], b: readonly Stage[], what: string): void {
  assert.deepEqual(a.map((s) => s.id), b.map((s) => s.id), `${what}: stage ids`);
  a.forEach((s, i) => {
    const x = new Uint32Array(s.data.buffer, s.data.byteOffset, s.data.length);
    const y = new Uint32Array(b[i].data.buffer, b[i].data.byteOffset, b[i].data.length);
    for (let k = 0; k < x.length; k++) {
      if (x[k] !== y[k] && !(Number.isNaN(s.data[k]) && Number.isNaN(b[i].data[k]))) {
        assert.fail(`${what}: stage ${s.id} differs at ${k}: ${s.data[k]} vs ${b[i].data[k]}`);
      }
    }
  });
}

const copy = (stages: Stage[]): Stage[] => stages.map((s) => ({ ...s, data: s.data.slice() }));

const kernels: Array<[string, () => MatmulKernel]> = [['ts', () => tsKernel]];
const wasm = createWasmKernel();
if (wasm) kernels.push(['wasm', () => wasm]);

describe('ForwardEngine', () => {
  for (const [kname, kernel] of kernels) {
    it(`full run equals the reference forward pass bit for bit, every reference case (${kname})`, () => {
      for (const c of goldenCases()) {
        const m = readModel(JSON.stringify(c.model), 'g.ffn.json').model!;
        sameBits(new ForwardEngine(kernel()).run(m.weights, EVERYTHING), modelForward(m.weights, kernel()), c.name);
      }
    });
  }

  const configs: Array<[string, TestModelOptions]> = [
    ['pre-LN, 2 layers, SwiGLU, head, out_in', { seq: 5, d: 8, ff: 24, heads: 2, layers: 2, activation: 'swiglu', norm: 'pre', layout: 'out_in', residual: true, causal: true, head: 6, biases: true, finalNorm: true, seed: 1 }],
    ['post-LN, GELU, in_out, positions', { seq: 4, d: 8, ff: 16, heads: 4, layers: 1, activation: 'gelu', norm: 'post', layout: 'in_out', residual: true, causal: false, biases: true, positional: true, seed: 2 }],
    ['no norm, ReLU, no biases, head', { seq: 3, d: 4, ff: 12, heads: 1, layers: 2, activation: 'relu', norm: 'none', layout: 'out_in', residual: false, causal: true, head: 5, biases: false, seed: 3 }],
    ['pre-LN, GeGLU, in_out, head with bias', { seq: 6, d: 8, ff: 16, heads: 2, layers: 1, activation: 'geglu', norm: 'pre', layout: 'in_out', residual: true, causal: true, head: 4, biases: true, finalNorm: true, seed: 4 }],
  ];

  for (const [kname, kernel] of kernels) {
    for (const [name, opts] of configs) {
      it(`random edits, incremental == full (${name}, ${kname})`, () => {
        let text = modelText(opts);
        let read = readModel(text, 'm.ffn.json');
        assert.deepEqual(read.problems, [], name);
        const engine = new ForwardEngine(kernel());
        let dirty = everything();
        engine.run(read.model!.weights, dirty);
        const r = rng(opts.seed * 7919);
        let incremental = 0;
        for (let step = 0; step < 80; step++) {
          // retype one, two or three numbers (sometimes in the same event), then compute
          dirty = noChange();
          const edits = 1 + Math.floor(r() * 3);
          for (let e = 0; e < edits; e++) {
            const numbers = [...text.matchAll(/-?\d+\.\d+/g)].filter((m) => !/:\s*$/.test(text.slice(m.index! - 3, m.index))); // array numbers, not scalars
            const pick = numbers[Math.floor(r() * numbers.length)];
            const change: TextChange = { offset: pick.index!, length: pick[0].length, text: (r() * 4 - 2).toFixed(Math.floor(r() * 6)) };
            const res = applyIncrementally(text, read, [change]);
            assert.ok(res.ok, `${name}: edit at ${pick.index} should be incremental`);
            text = res.text;
            markRows(dirty, res.rows, read.model!.weights, engine);
            incremental++;
          }
          const got = copy(engine.run(read.model!.weights, dirty));
          const want = new ForwardEngine(kernel()).run(readModel(text, 'm.ffn.json').model!.weights, EVERYTHING);
          sameBits(got, want, `${name}, step ${step}`);
        }
        assert.equal(incremental > 80, true);
        read = readModel(text, 'm.ffn.json'); // (a structural edit would go this way)
        sameBits(copy(engine.run(read.model!.weights, everything())), modelForward(read.model!.weights, kernel()), `${name}: after a full read`);
      });
    }
  }

  it('recomputes only what an edit can change (counted in matmul calls)', () => {
    const opts = configs[0][1];
    const text = modelText({ ...opts, layers: 2 });
    const read = readModel(text, 'm.ffn.json');
    let calls = 0;
    let columnCalls = 0;
    const counting: MatmulKernel = {
      ...tsKernel, name: 'counting',
      matmul: (...a) => { calls++; tsKernel.matmul(...a); },
      matmulColumns: (...a) => { columnCalls++; tsKernel.matmulColumns(...a); },
    };
    const engine = new ForwardEngine(counting);
    engine.run(read.model!.weights, everything());
    const full = calls;
    // retypes the first number after `at` and runs the engine: how many full matmuls?
    const edit = (at: number): number => {
      const m = /-?\d+\.\d+/.exec(text.slice(at))!;
      const d = noChange();
      const res = applyIncrementally(text, read, [{ offset: at + m.index, length: m[0].length, text: '1.25' }]);
      assert.ok(res.ok);
      markRows(d, res.rows, read.model!.weights, engine);
      calls = 0;
      columnCalls = 0;
      engine.run(read.model!.weights, d);
      return calls;
    };
    // the second layer's b2 (the last "b2" in the text) and then the head
    // the last layer's b2: only the head is multiplied (b2 is re-added to the kept product)
    assert.equal(edit(text.lastIndexOf('"b2"')), 1, 'only the head matmul after a b2 edit in the last layer');
    const n = edit(text.lastIndexOf('"W1"'));
    assert.equal(columnCalls, 1, 'one column recompute of up for a W1 row edit');
    assert.equal(n, 2, 'then only the down-projection and the head are multiplied');
    assert.ok(full > 20, `a full run multiplies ${full} times`);
  });
});
