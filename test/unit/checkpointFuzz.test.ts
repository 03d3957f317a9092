// The checkpoint fuzzer's own parts (test/helpers/checkpointFuzz): its judge of a run, its witness
// of file access (a symlink out of the folder is seen, one into the Hugging Face cache's blobs is
// not a fault), and cases that are the same on every run.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCase, writeCase } from '../helpers/checkpointFuzz/cases';
import { classifyRun } from '../helpers/checkpointFuzz/classify';
import { seeds } from '../helpers/checkpointFuzz/seeds';
import { caseZones, inZones, installWatch, startRecording, stopRecording } from '../helpers/checkpointFuzz/watch';

const REPO = join(__dirname, '../../..');
const run = (o: { code?: number | null; stdout?: string; stderr?: string; thrown?: string | null }): ReturnType<typeof classifyRun> =>
  classifyRun({ code: o.code ?? 1, stdout: o.stdout ?? '', stderr: o.stderr ?? '', thrown: o.thrown ?? null, stray: [] });

describe('checkpoint fuzzer: the judge of a run', () => {
  it('tells a clean error from internal errors, raw text, long messages and bad output', () => {
    const line = (m: string): string => `/x/m.ffn.json:4:17: error: checkpoint: ${m}\n`;
    assert.equal(run({ stderr: line('config.json: "n_embd" must be a positive whole number, found -1') }).outcome, 'clean-error');
    assert.equal(run({ stderr: 'ffn-lens: internal error: boom\n' }).outcome, 'internal-error');
    assert.equal(run({ thrown: 'TypeError: x is not a function' }).outcome, 'internal-error');
    assert.equal(run({ stderr: line("Cannot read properties of undefined (reading 'shape')") }).outcome, 'raw-message');
    // the library's detail after our words is allowed; alone, or an engine fault inside a library, it is raw
    assert.equal(run({ stderr: line('the tokenizer is not JSON (Unexpected end of JSON input)') }).outcome, 'clean-error');
    assert.equal(run({ stderr: line('Unexpected end of JSON input') }).outcome, 'raw-message');
    assert.equal(run({ stderr: line('the tokenizer cannot be read: config.merges.map is not a function') }).outcome, 'raw-message');
    assert.equal(run({ stderr: line('holds 32 bytes; [8] of toString needs NaN') }).outcome, 'raw-message');
    // the reader's own words for a NaN written in the file are not raw
    assert.equal(run({ stderr: '/x/m.ffn.json:8:5: error: token_ids[2]: is NaN, which is not a number JSON allows: write a finite number\n' }).outcome, 'clean-error');
    assert.equal(run({ stderr: '/x/m.ffn.json:12:18: error: temperature: must be a finite number, found NaN, which is not a number JSON allows\n' }).outcome, 'clean-error');
    // a bare NaN reads like one we computed, whatever follows it
    assert.equal(run({ stderr: '/x/m.ffn.json:12:18: error: temperature: must be a finite number, found NaN (JSON has no NaN)\n' }).outcome, 'raw-message');
    assert.equal(run({ stderr: line('the scale is found NaN') }).outcome, 'raw-message');
    const long = run({ stderr: line(`tensor ${'x'.repeat(400)} is missing`) });
    assert.equal(long.outcome, 'long-message');
    assert.match(long.detail, /^\d+ chars/);
    assert.equal(run({ code: 0, stdout: '{"model":' }).outcome, 'bad-output');
    assert.equal(run({ code: 0, stdout: '{"model":{},"stages":[]}\n' }).outcome, 'ok');
    assert.deepEqual(run({ stderr: line('Maximum call stack size exceeded'), thrown: 'RangeError: y' }).flags, ['internal-error', 'raw-message']);
  });
});

describe('checkpoint fuzzer: the witness of file access', () => {
  let dir: string;
  before(() => {
    installWatch();
    dir = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'fuzz-watch-')));
    fs.mkdirSync(join(dir, 'case/ckpt'), { recursive: true });
    fs.mkdirSync(join(dir, 'case/hub/models--a--b/blobs'), { recursive: true });
    fs.mkdirSync(join(dir, 'case/hub/models--a--b/snapshots/r1'), { recursive: true });
    fs.mkdirSync(join(dir, 'outside'));
    fs.writeFileSync(join(dir, 'outside/secret.txt'), 'secret');
    fs.writeFileSync(join(dir, 'case/ckpt/config.json'), '{}');
    fs.writeFileSync(join(dir, 'case/hub/models--a--b/blobs/abc'), '{}');
    fs.symlinkSync('../../blobs/abc', join(dir, 'case/hub/models--a--b/snapshots/r1/config.json'));
    fs.symlinkSync('../../outside/secret.txt', join(dir, 'case/ckpt/tokenizer.json'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sees a read through a symlink that leads out of the folder, whichever form of the file API makes it', async () => {
    const zones = caseZones(join(dir, 'case/m.ffn.json'), './ckpt', undefined);
    startRecording();
    fs.readFileSync(join(dir, 'case/ckpt/config.json'));
    await fs.promises.stat(join(dir, 'case/ckpt/tokenizer.json'));
    const fh = await fs.promises.open(join(dir, 'case/ckpt/tokenizer.json'), 'r');
    await fh.close();
    fs.lstatSync(join(dir, 'case/ckpt/tokenizer.json')); // (looks at the link itself: inside)
    const seen = stopRecording();
    assert.deepEqual(seen.map((a) => a.op), ['readFile', 'stat', 'open', 'lstat']);
    assert.deepEqual(seen.map((a) => inZones(a.real, zones)), [true, false, false, true]);
    assert.equal(seen[2].real, join(dir, 'outside/secret.txt'));
    // nothing is recorded once stopped
    fs.readFileSync(join(dir, 'outside/secret.txt'));
    assert.equal(stopRecording().length, 0);
  });

  it('lets a Hugging Face cache snapshot read its blobs, and a model file name a tokenizer anywhere', () => {
    const zones = caseZones(join(dir, 'case/m.ffn.json'), './hub/models--a--b/snapshots/r1', '../outside/secret.txt');
    startRecording();
    fs.readFileSync(join(dir, 'case/hub/models--a--b/snapshots/r1/config.json'));
    fs.readFileSync(join(dir, 'outside/secret.txt'));
    fs.existsSync(join(dir, 'outside/tokenizer_config.json'));
    fs.existsSync(join(dir, 'case/ckpt/config.json')); // (outside this case's checkpoint folder)
    const seen = stopRecording();
    assert.deepEqual(seen.map((a) => inZones(a.real, zones)), [true, true, true, false]);
  });
});

describe('checkpoint fuzzer: the witness inside the built command line', () => {
  // The fuzz child loads dist/cli.js after patching node:fs: every form of the file API the bundle
  // uses must reach the patch (its readFileSync, fs.promises' realpath, stat and open; reads go
  // through the handles those opens return, so a handle's read is covered by its opening).
  let dir: string;
  type Cli = { run(argv: string[], io: { out(s: string): void; err(s: string): void }): Promise<number> };
  let cli: Cli;
  before(() => {
    installWatch();
    cli = require(join(REPO, 'dist', 'cli.js')) as Cli; // (built before the unit tests, as cli.test.ts needs)
    dir = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'fuzz-cli-')));
    fs.mkdirSync(join(dir, 'linked'));
    fs.copyFileSync(join(REPO, 'samples/stories260K/model.safetensors'), join(dir, 'linked/model.safetensors'));
    fs.writeFileSync(join(dir, 'secret.json'), '{"model_type": "llama"}');
    fs.symlinkSync('../secret.json', join(dir, 'linked/config.json'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const runCase = async (model: object): Promise<{ code: number; err: string; seen: ReturnType<typeof stopRecording>; zones: ReturnType<typeof caseZones> }> => {
    const file = join(dir, 'm.ffn.json');
    fs.writeFileSync(file, JSON.stringify(model));
    const zones = caseZones(file, (model as { checkpoint?: unknown }).checkpoint, undefined);
    let err = '';
    startRecording();
    const code = await cli.run(['stages', file, '--summary'], { out: () => undefined, err: (s) => void (err += s) });
    return { code, err, seen: stopRecording(), zones };
  };

  it('sees each file the command line reads, by each form of the file API it uses', async () => {
    const r = await runCase({ version: 1, checkpoint: join(REPO, 'samples/stories260K'), token_ids: [1, 403] });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual([...new Set(r.seen.map((a) => a.op))].sort(), ['open', 'readFile', 'realpath', 'stat']);
    assert.ok(r.seen.some((a) => a.op === 'open' && a.path.endsWith('model.safetensors')));
    assert.deepEqual(r.seen.filter((a) => !inZones(a.real, r.zones)), []);
  });

  it('sees the command line look at a link out of the folder, and refuse it without opening it', async () => {
    const r = await runCase({ version: 1, checkpoint: './linked', token_ids: [1] });
    assert.equal(r.code, 1);
    assert.match(r.err, /checkpoint: /);
    assert.ok(r.seen.some((a) => a.op === 'realpath' && a.path === join(dir, 'linked/config.json')), 'the link was looked at');
    assert.deepEqual(r.seen.filter((a) => !inZones(a.real, r.zones)), []);
  });
});

describe('checkpoint fuzzer: what the model file names', () => {
  before(() => installWatch());

  // (was: `"checkpoint": "/proc/self"` judged a read outside, since the realpath of the name looks
  // at /proc/self itself and the zone held only where it leads, /proc/PID)
  it('may be looked at as written and read where it leads; what else its folder holds may not', async () => {
    if (!fs.existsSync('/proc/self/status')) return; // (Linux only)
    const model = join(tmpdir(), 'm.ffn.json');
    let zones = caseZones(model, '/proc/self', undefined);
    startRecording();
    await fs.promises.realpath('/proc/self');
    await fs.promises.stat('/proc/self/config.json').catch(() => null);
    fs.readFileSync('/proc/self/status');
    fs.existsSync('/proc/1/status');
    let seen = stopRecording();
    assert.deepEqual(seen.map((a) => [a.op, inZones(a.real, zones)]), [['realpath', true], ['stat', true], ['readFile', true], ['exists', false]]);
    // a tokenizer named there: its folder is looked at to find it, nothing else in it is read
    zones = caseZones(model, './ckpt', '/proc/self/environ');
    startRecording();
    await fs.promises.realpath('/proc/self');
    await fs.promises.realpath('/proc/self/environ');
    fs.readFileSync('/proc/self/environ');
    fs.readFileSync('/proc/self/status');
    seen = stopRecording();
    assert.deepEqual(seen.map((a) => inZones(a.real, zones)), [true, true, true, false]);
  });
});

describe('checkpoint fuzzer: cases', () => {
  it('are the same for the same seed and index, and differ between indices', () => {
    const all = seeds(REPO);
    const a = makeCase(all, 5, 17, '/o');
    const b = makeCase(all, 5, 17, '/o');
    assert.deepEqual(a.mutations, b.mutations);
    assert.deepEqual([...a.files.keys()], [...b.files.keys()]);
    for (const [k, v] of a.files) assert.deepEqual(v, b.files.get(k));
    const labels = new Set(Array.from({ length: 40 }, (_, i) => makeCase(all, 5, i, '/o').mutations.join(' + ')));
    assert.ok(labels.size > 30, `${labels.size} distinct cases of 40`);
  });

  it('are written as a folder with the model file at its root', () => {
    const root = fs.mkdtempSync(join(tmpdir(), 'fuzz-case-'));
    try {
      const c = seeds(REPO).find((s) => s.name === 'gpt2-hf-cache')!.make();
      const file = writeCase(c, join(root, 'case'), join(root, 'outside'));
      const model = JSON.parse(fs.readFileSync(file, 'utf8')) as { checkpoint: string };
      assert.equal(JSON.parse(fs.readFileSync(join(root, 'case', model.checkpoint, 'config.json'), 'utf8')).model_type, 'gpt2');
      assert.ok(fs.lstatSync(join(root, 'case', model.checkpoint, 'config.json')).isSymbolicLink());
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
