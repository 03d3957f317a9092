// The engine against the reference forward pass, bit for bit: a first run on every reference case,
// and runs after random edits of weights, biases, norms and inputs typed into the text (the
// worker's path: ReadPatch's param changes), on generated model files of several kinds.
import * as assert from 'node:assert/strict';
import type { TextChange } from '../../../src/protocol/worker';
import { Engine } from '../../../src/core/engine';
import { forward } from '../../../src/core/forward';
import { tsKernel, type MatmulKernel } from '../../../src/core/kernel';
import type { Stage } from '../../../src/core/stages';
import { createWasmKernel } from '../../../src/core/wasm';
import { ReadPatch } from '../../../src/model/incremental';
import { readModel } from '../../../src/model/read';
import { TextChunks } from '../../../src/model/textChunks';
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

describe('Engine on model files', () => {
  for (const [kname, kernel] of kernels) {
    it(`a first run equals the reference forward pass bit for bit, every reference case (${kname})`, () => {
      for (const c of goldenCases()) {
        const m = readModel(JSON.stringify(c.model), 'g.ffn.json').file!.model;
        sameBits(new Engine(kernel()).run(m), forward(m, kernel()), c.name);
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
      it(`random edits typed into the text: incremental == full (${name}, ${kname})`, () => {
        const text = modelText(opts);
        const chunks = new TextChunks(text);
        const read = readModel(text, 'm.ffn.json');
        assert.deepEqual(read.problems, [], name);
        const engine = new Engine(kernel());
        engine.run(read.file!.model);
        const r = rng(opts.seed * 7919);
        let kept = 0;
        for (let step = 0; step < 80; step++) {
          // retype one, two or three numbers (sometimes in the same event), then compute
          const patch = new ReadPatch(read);
          const edits = 1 + Math.floor(r() * 3);
          for (let e = 0; e < edits; e++) {
            const now = chunks.toString();
            const numbers = [...now.matchAll(/-?\d+\.\d+/g)].filter((m) => !/:\s*$/.test(now.slice(m.index! - 3, m.index))); // array numbers, not scalars
            const pick = numbers[Math.floor(r() * numbers.length)];
            const change: TextChange = { offset: pick.index!, length: pick[0].length, text: (r() * 4 - 2).toFixed(1 + Math.floor(r() * 5)) };
            const removed = chunks.slice(change.offset, change.offset + change.length);
            chunks.edit(change.offset, change.length, change.text);
            assert.ok(patch.apply(chunks, change, removed), `${name}: edit at ${pick.index} should be incremental`);
          }
          const got = copy(engine.run(read.file!.model, patch.paramChanges()!));
          kept += got.filter((s) => s.kept).length;
          sameBits(got, forward(readModel(chunks.toString(), 'm.ffn.json').file!.model, kernel()), `${name}, step ${step}`);
        }
        assert.ok(kept > 80, `only ${kept} stages were kept over 80 edits: the incremental paths were barely used`);
      });
    }
  }

  it('recomputes only what an edit can change (counted in matmul calls)', () => {
    const text = modelText({ ...configs[0][1], layers: 2 });
    const read = readModel(text, 'm.ffn.json');
    let calls = 0;
    let columnCalls = 0;
    const counting: MatmulKernel = {
      ...tsKernel, name: 'counting',
      matmul: (...a) => { calls++; tsKernel.matmul(...a); },
      matmulColumns: (...a) => { columnCalls++; tsKernel.matmulColumns(...a); },
    };
    const engine = new Engine(counting);
    engine.run(read.file!.model);
    const full = calls;
    let now = text;
    // retypes the first number after `at` and runs the engine: how many full matmuls?
    const edit = (at: number, text = '1.25'): number => {
      const m = /-?\d+\.\d+/.exec(now.slice(at))!;
      const change = { offset: at + m.index, length: m[0].length, text };
      const patch = new ReadPatch(read);
      const removed = now.slice(change.offset, change.offset + change.length);
      now = now.slice(0, change.offset) + change.text + now.slice(change.offset + change.length);
      assert.ok(patch.apply(now, change, removed));
      calls = 0;
      columnCalls = 0;
      engine.run(read.file!.model, patch.paramChanges()!);
      return calls;
    };
    // the last layer's b2: the down-projection's product before its bias again (a full run keeps
    // only the sum of a biased linear: linear.ts), and the head; then b2 is re-added to the kept product
    assert.equal(edit(now.lastIndexOf('"b2"')), 2, 'down\'s product and the head after the first b2 edit in the last layer');
    assert.equal(edit(now.lastIndexOf('"b2"'), '1.5'), 1, 'only the head matmul after the next b2 edit');
    // W1's row: the first edit multiplies up's product whole, the next its column alone
    assert.equal(edit(now.lastIndexOf('"W1"')), 3, 'up (whole, its first edit), down and the head');
    assert.equal(columnCalls, 0);
    const n = edit(now.lastIndexOf('"W1"'), '1.5');
    assert.equal(columnCalls, 1, 'one column recompute of up for the next W1 row edit');
    assert.equal(n, 2, 'then only the down-projection and the head are multiplied');
    assert.ok(full > 20, `a full run multiplies ${full} times`);
  });
});
