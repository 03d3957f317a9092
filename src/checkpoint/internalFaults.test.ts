// A fault nothing foresaw inside a load (a TypeError or RangeError out of a library or our own
// code) reaches the user as "internal error in <step>" (which file, which step) with the engine's
// text after it, bounded, and where to report it: never the bare TypeError text. Each step of the
// checkpoint's, the SAE's and the tokenizer's loads, at the key that named it; and the CLI's.
import * as assert from 'node:assert/strict';
import { ISSUES_URL } from '../common/faultText';
import { run } from '../cli/main';
import { readModel } from '../model/read';
import { asOurs, CheckpointError } from './errors';
import type { CheckpointFiles } from './files';
import { memoryFiles } from './memoryFiles';
import { CheckpointResolver } from './resolve';
import { CheckpointStore, resolveReadNow, type Loading } from './store';
import { safetensorsBytes, tinyGpt2 } from './testing';

const enc = (v: unknown): Uint8Array => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));

/** A GPT-2 checkpoint at /m, an SAE at /m/sae and a tokenizer, in memory. */
function folder(): Map<string, Uint8Array> {
  const ck = tinyGpt2();
  const C = ck.config.n_embd as number;
  const map = new Map<string, Uint8Array>([
    ['/m/config.json', enc(ck.config)],
    ['/m/model.safetensors', safetensorsBytes(ck.tensors)],
    ['/m/sae/cfg.json', enc({ d_in: C, d_sae: 3 })],
    ['/m/sae/sae_weights.safetensors', safetensorsBytes({ W_enc: { shape: [C, 3], data: new Array<number>(3 * C).fill(0.1) }, W_dec: { shape: [3, C], data: new Array<number>(3 * C).fill(0.1) } })],
    ['/m/tok/tokenizer.json', enc('{}')],
  ]);
  return map;
}

/** memoryFiles whose read of a path ending in `suffix` (from byte `from` on) throws `fault`. */
function faulty(map: Map<string, Uint8Array>, suffix: string, fault: Error, from = 0): CheckpointFiles {
  const inner = memoryFiles(map);
  return {
    ...inner,
    read: (p, start = 0, end) => {
      if (p.endsWith(suffix) && start >= from) throw fault;
      return inner.read(p, start, end);
    },
  };
}

async function settled<T>(get: () => Loading<T>): Promise<Loading<T>> {
  const l = get();
  if (l.state !== 'loading') return l;
  await l.done;
  return get();
}

const failure = (l: Loading<unknown>): string => {
  assert.equal(l.state, 'failed');
  return (l as { message: string }).message;
};

/** The message is ours: the step, the engine's text after it, the issue hint; no error class name, no stack. */
function assertFault(message: string, step: RegExp, detail: string): void {
  assert.match(message, /^internal error in /, message);
  assert.match(message, step, message);
  assert.ok(message.includes(`(${detail})`), message);
  assert.ok(message.includes(ISSUES_URL), message);
  assert.doesNotMatch(message, /TypeError|RangeError|\bat \S+ \(|\n/, message);
}

describe('internal faults in a load, said in our words', () => {
  it('asOurs: our errors as they are, the memory running out as that, anything else as an internal error in its step', () => {
    const ours = new CheckpointError('config.json is not JSON');
    assert.equal(asOurs(ours, 'x'), ours);
    assertFault(asOurs(new TypeError('config.merges.map is not a function'), 'reading config.json').message, /^internal error in reading config\.json /, 'config.merges.map is not a function');
    const oom = asOurs(new RangeError('Array buffer allocation failed'), 'reading the tensor wte.weight').message;
    assert.equal(oom, 'the memory ran out while reading the tensor wte.weight: close other model files, or open a smaller model');
    const long = asOurs(new TypeError(`${'x'.repeat(10_000)}\n    at f (/a.js:1:2)`), 'step').message;
    assert.ok(long.length < 220, long);
    assert.doesNotMatch(long, /a\.js/);
    assert.match(asOurs('a string thrown', 'step').message, /\("a string thrown"\)/);
  });

  const steps: Array<[string, string, Error, number, RegExp]> = [
    ['config.json', '/m/config.json', new TypeError('cfg.x is not a function'), 0, /reading config\.json/],
    ['the header', '/m/model.safetensors', new RangeError('Offset is outside the bounds of the DataView'), 0, /reading the safetensors headers/],
    ['a tensor', '/m/model.safetensors', new TypeError("Cannot read properties of undefined (reading 'length')"), 1000, /reading the tensor \S+ of model\.safetensors/],
  ];
  for (const [what, path, fault, from, step] of steps) {
    it(`the checkpoint: a fault reading ${what}, at the checkpoint key`, async () => {
      const store = new CheckpointStore(faulty(folder(), path, fault, from));
      assertFault(failure(await settled(() => store.checkpoint('/m'))), step, fault.message);
      const read = await resolveReadNow(readModel('{"version": 1, "checkpoint": "/m", "token_ids": [1, 2]}', '/m/x.ffn.json'), '/m/x.ffn.json', store, new CheckpointResolver());
      const errors = read.problems.filter((p) => p.severity === 'error');
      assert.equal(errors.length, 1);
      assert.deepEqual(errors[0].path, ['checkpoint']);
      assertFault(errors[0].message, step, fault.message);
    });
  }

  it('the SAE: a fault reading cfg.json, its header, a tensor; at saes[0].path', async () => {
    const cases: Array<[string, Error, number, RegExp]> = [
      ['/m/sae/cfg.json', new TypeError('raw.d_in is not a function'), 0, /reading cfg\.json/],
      ['/m/sae/sae_weights.safetensors', new TypeError('bad header'), 0, /reading the header of sae_weights\.safetensors/],
      ['/m/sae/sae_weights.safetensors', new TypeError('bad tensor'), 100, /reading the tensor W_\w+ of sae_weights\.safetensors/],
    ];
    for (const [path, fault, from, step] of cases) {
      const store = new CheckpointStore(faulty(folder(), path, fault, from));
      assertFault(failure(await settled(() => store.sae('/m/sae'))), step, fault.message);
      const text = '{"version": 1, "checkpoint": "/m", "token_ids": [1, 2], "saes": [{"path": "/m/sae", "at": "layers.0.out"}]}';
      const read = await resolveReadNow(readModel(text, '/m/x.ffn.json'), '/m/x.ffn.json', store, new CheckpointResolver());
      const errors = read.problems.filter((p) => p.severity === 'error');
      assert.deepEqual(errors.map((p) => p.path), [['saes', 0, 'path']]);
      assert.match(errors[0].message, /^the SAE "\/m\/sae": internal error in /);
    }
  });

  it('the tokenizer: a fault reading it, at the tokenizer key', async () => {
    const store = new CheckpointStore(faulty(folder(), 'tokenizer.json', new TypeError('t.model is not iterable')));
    const text = '{"version": 1, "checkpoint": "/m", "tokenizer": "./tok/tokenizer.json", "prompt": "ab"}';
    const read = await resolveReadNow(readModel(text, '/m/x.ffn.json'), '/m/x.ffn.json', store, new CheckpointResolver());
    const errors = read.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(errors.map((p) => p.path), [['tokenizer']]);
    assertFault(errors[0].message, /loading the tokenizer/, 't.model is not iterable');
  });

  it('the command line: the same line at the checkpoint key, exit 1, nothing raw', async () => {
    const map = folder();
    map.set('/m/x.ffn.json', enc('{"version": 1, "checkpoint": "/m", "token_ids": [1, 2]}'));
    let err = '';
    const code = await run(['stages', '/m/x.ffn.json', '--summary'], { out: () => undefined, err: (s) => void (err += s) }, (f) => new TextDecoder().decode(map.get(f)!), faulty(map, '/m/model.safetensors', new TypeError('x is not a function'), 1000));
    assert.equal(code, 1);
    assert.match(err, /^\/m\/x\.ffn\.json:1:\d+: error: checkpoint: internal error in reading the tensor \S+ of model\.safetensors \(x is not a function\); please report it: https/);
    assert.equal(err.trim().split('\n').length, 1, err);
  });
});
