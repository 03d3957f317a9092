// Live edits never show wrong numbers: random edits of every kind, on every sample and every
// reference case, each in the formattings people use, go through the worker's real document
// session (text deltas in, stages out) with both matmul kernels; after each event every stage the
// panel would show must equal, bit for bit, a from-scratch read and forward pass of the same text.
// (scripts/fuzz-edits.mjs runs the same with as many events as asked.)
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsKernel, type MatmulKernel } from '../../../src/core/kernel';
import { createWasmKernel } from '../../../src/core/wasm';
import { applyChanges, formattings, fuzzEdits } from '../../helpers/editFuzz';
import { goldenCases, REPO } from '../../helpers/fixtures';
import { readModel } from '../../../src/model/read';
import { DocSession } from '../../../src/worker/session';
import type { FromWorker } from '../../../src/protocol/worker';
import { applyStageMessage, type StageView } from '../../helpers/stageView';

const kernels: Array<[string, MatmulKernel]> = [['ts', tsKernel]];
const wasm = createWasmKernel();
if (wasm) kernels.push(['wasm', wasm]);

const SAMPLES = join(REPO, 'samples');
const models: Array<[string, string]> = [
  // (a sample that names a checkpoint holds no inline numbers to edit: src/worker/checkpointSession.test.ts)
  ...readdirSync(SAMPLES).filter((f) => f.endsWith('.ffn.json')).sort().map((f): [string, string] => [f, readFileSync(join(SAMPLES, f), 'utf8')]).filter(([, t]) => !/"checkpoint"\s*:/.test(t)),
  ...goldenCases().map((c): [string, string] => [`${c.name}.ffn.json`, JSON.stringify(c.model, null, 2)]),
];

/** Events per (model, formatting, kernel): a few thousand in all. */
const EVENTS = 8;

describe('live edits through the document session equal a fresh read and forward, bit for bit', () => {
  it('the minimal case of the report: a row written "[ 1, 0]", its second number retyped', () => {
    const text = '{"version":1,"input":[[1,2]],"ffn":{"W1":[[ 1, 0]],"W2":[[1],[1]]}}';
    for (const [, kernel] of kernels) {
      const posted: FromWorker[] = [];
      const s = new DocSession('doc', 'm.ffn.json', text, 1, (m) => posted.push(m), () => kernel, () => 0);
      s.subscribe(true);
      s.flush();
      const at = text.indexOf('0]]');
      s.change(2, [{ offset: at, length: 1, text: '5' }], text.length);
      s.flush();
      assert.equal(s.incrementalEdits, 1);
      // (what the panel holds after both runs: `output` is the numbers of the last layer's, named)
      const view: StageView = new Map();
      for (const m of posted) assert.equal(applyStageMessage(view, m), null);
      assert.ok(posted.some((m) => m.type === 'same' && m.id === 'output' && m.version === 2));
      assert.deepEqual([...view.get('output')!.data], [11, 11]);
      assert.equal(posted.filter((m) => m.type === 'log').length, 0);
      s.dispose();
    }
  });

  it('every formatting reads as the same model', () => {
    for (const [name, text] of models) {
      const want = readModel(text, name).file!.model;
      for (const [f, t] of formattings(text)) {
        const got = readModel(t, name);
        assert.ok(got.file, `${name} (${f}): ${got.problems.map((p) => p.message).join('; ')}`);
        assert.deepEqual(got.file.model, want, `${name} (${f})`);
      }
    }
  });

  let total = 0;
  let incremental = 0;
  for (const [kname, kernel] of kernels) {
    for (const [name, text] of models) {
      it(`${name} (${kname} kernel), ${EVENTS} events in each of ${formattings(text).length} formattings`, () => {
        formattings(text).forEach(([f, t], i) => {
          const r = fuzzEdits(name, t, kernel, 1000 * i + name.length, EVENTS);
          total += r.events;
          incremental += r.incremental;
          assert.deepEqual({ wrong: r.wrong, exceptions: r.exceptions }, { wrong: 0, exceptions: 0 }, `${name} (${f}):\n${r.failures.join('\n\n')}`);
        });
      });
    }
  }

  after(() => {
    // (a run that exercised nothing incremental would prove nothing about it)
    assert.ok(total === 0 || incremental > total / 5, `only ${incremental} of ${total} events were incremental`);
  });

  it('applyChanges applies changes in order, each relative to the text after the previous', () => {
    assert.equal(applyChanges('abcdef', [{ offset: 4, length: 1, text: 'X' }, { offset: 1, length: 2, text: '' }]), 'adXf');
  });
});
