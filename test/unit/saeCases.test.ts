// SAEs attached to checkpoints against the PyTorch reference cases (test/fixtures/sae-cases/,
// scripts/fixtures/sae_cases.py, the SAE after SAELens): acts, recon, error, the splice with
// ablate/scale/clamp and the stages downstream; the fit (error norm, variance explained); the
// identities (recon + error = the stage; no edit = the run without the SAE, bit for bit); an
// edit recomputed incrementally equal to a fresh run; bad SAE files said at `saes[i].path`.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { lensCommand } from '../../src/cli/lensCommands';
import { npzEntries, readNpy } from '../../src/checkpoint/npz';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { safetensorsBytes, toBf16Bits } from '../../src/checkpoint/testing';
import { bf16, readHeader, readTensor } from '../../src/checkpoint/safetensors';
import { Engine } from '../../src/core/engine';
import { forward } from '../../src/core/forward';
import { parseSaeId } from '../../src/core/ids';
import type { Model } from '../../src/core/model';
import { saeFit } from '../../src/core/saeError';
import type { Problem } from '../../src/model/problems';
import { compareClose } from '../helpers/compare';
import { byId, caseFolder, caseKernel, caseWasm, sameBits, without, type ReferenceCase } from '../helpers/referenceCases';

interface Case extends ReferenceCase {
  fit: { error_norm: number; variance_explained: number };
}

const folder = caseFolder<Case>('sae-cases', (f) => f === 'arrays.json');
const { dir: DIR, cases, read, modelOf } = folder;
const kernel = caseKernel;
const wasm = caseWasm;
const readIn = async (model: Record<string, unknown>, resolver = new CheckpointResolver(), at = DIR): Promise<{ model: Model | null; problems: Problem[] }> => folder.readIn(model, resolver, at);
const bits = sameBits;
const withoutSae = (m: Record<string, unknown>): Record<string, unknown> => without(m, (k) => k.startsWith('sae'));

describe('SAE reference cases (test/fixtures/sae-cases)', () => {
  it('has a case of each activation, both b_dec rules, a normalization, an npz and an edit', () => {
    assert.deepEqual(cases, ['gpt2_relu_ablate_clamp.json', 'gpt2_relu_observe.json', 'gpt2_topk_attn_out.json', 'llama_jumprelu_npz_scale_clamp.json', 'llama_relu_ffn_down.json']);
  });

  for (const f of cases) {
    it(`${f.replace('.json', '')}: its stages within tolerance, its fit, recon + error = the stage`, async () => {
      const c = read(f);
      const stages = byId(forward(await modelOf(c.model), kernel));
      for (const [id, want] of Object.entries(c.expected)) {
        const got = stages.get(id);
        assert.ok(got, `no stage ${id}`);
        assert.equal(compareClose(got, want.data, c.tolerance, id), null);
      }
      const acts = Object.keys(c.expected)[0];
      const n = parseSaeId(acts);
      assert.ok(n && 'part' in n && n.part === 'acts');
      const x = stages.get(n.site)!;
      const recon = stages.get(acts.replace(/acts$/, 'recon'))!;
      const error = stages.get(acts.replace(/acts$/, 'error'))!;
      const D = c.expected[acts.replace(/acts$/, 'recon')].shape[1];
      const fit = saeFit(x, recon, x.length / D, D);
      assert.ok(Math.abs(fit.errorNorm - c.fit.error_norm) <= 1e-4 * c.fit.error_norm, `error norm ${fit.errorNorm} vs ${c.fit.error_norm}`);
      assert.ok(Math.abs(fit.varianceExplained! - c.fit.variance_explained) <= 1e-4, `variance explained ${fit.varianceExplained} vs ${c.fit.variance_explained}`);
      for (let i = 0; i < x.length; i++) {
        assert.ok(Math.abs(Math.fround(recon[i] + error[i]) - x[i]) <= 2 ** -23 * Math.max(Math.abs(x[i]), Math.abs(recon[i])), `recon + error at ${i}`);
      }
      assert.ok(c.expected[acts].data.some((v) => v > 0) && c.expected[acts].data.some((v) => v === 0), 'some features fire, some do not');
    });
  }

  it('with no edit the SAE only observes: every other stage is the run without it, bit for bit', async () => {
    for (const f of ['gpt2_relu_observe.json', 'gpt2_topk_attn_out.json', 'llama_relu_ffn_down.json']) {
      const c = read(f);
      const withSae = forward(await modelOf(c.model), kernel);
      const plain = forward(await modelOf(withoutSae(c.model)), kernel);
      const got = byId(withSae);
      for (const s of plain) assert.ok(bits(got.get(s.id)!, s.data), `${f}: ${s.id}`);
      assert.equal(withSae.length, plain.length + 4);
    }
  });

  it('an edit changes what follows the SAE and nothing before it; recomputed incrementally as a fresh run', async () => {
    const c = read('gpt2_relu_ablate_clamp.json');
    const resolver = new CheckpointResolver();
    const engine = new Engine(kernel);
    const observed = engine.run(await modelOf(withoutSaeEdits(c.model), resolver)).map((s) => ({ ...s, data: s.data.slice() }));
    const edited = engine.run(await modelOf(c.model, resolver));
    const fresh = byId(forward(await modelOf(c.model), kernel));
    const before = byId(observed);
    for (const s of edited) {
      assert.ok(bits(s.data, fresh.get(s.id)!), `${s.id}: incremental = fresh`);
      const downstream = s.id.startsWith('layers.1.') || s.id.startsWith('head.') || s.id === 'ln_f' || s.id === 'output' || s.id === 'layers.0.sae.out';
      assert.equal(bits(s.data, before.get(s.id)!), !downstream, `${s.id} ${downstream ? 'changed' : 'as before'}`);
      if (!downstream) assert.equal(s.kept, true, `${s.id} kept`);
    }
  });
});

function withoutSaeEdits(m: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m).filter(([k]) => !['sae_ablate', 'sae_scale', 'sae_clamp'].includes(k)));
}

describe('SAE files: clear errors at saes[i].path', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'ffn-sae-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const base = { version: 1, checkpoint: join(DIR, 'gpt2'), token_ids: [1, 2, 3] };
  const sae = (name: string, cfg: object | string, tensors: Parameters<typeof safetensorsBytes>[0] | null): string => {
    const d = join(tmp, name);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'cfg.json'), typeof cfg === 'string' ? cfg : JSON.stringify(cfg));
    if (tensors) writeFileSync(join(d, 'sae_weights.safetensors'), safetensorsBytes(tensors));
    return d;
  };
  const ones = (n: number): number[] => new Array<number>(n).fill(0.1);
  const good = (dIn: number, dSae: number) => ({ W_enc: { shape: [dIn, dSae], data: ones(dIn * dSae) }, W_dec: { shape: [dSae, dIn], data: ones(dIn * dSae) }, b_enc: { shape: [dSae], data: ones(dSae) }, b_dec: { shape: [dIn], data: ones(dIn) } });
  const problemOf = async (path: string, at = 'layers.0.out', extra: Record<string, unknown> = {}): Promise<Problem> => {
    const r = await readIn({ ...base, saes: [{ path, at }], ...extra }, new CheckpointResolver(), tmp);
    assert.equal(r.model, null);
    const errors = r.problems.filter((p) => p.severity === 'error');
    assert.equal(errors.length, 1, errors.map((p) => p.message).join(' | '));
    return errors[0];
  };

  it('a d_in other than the stage\'s says both numbers', async () => {
    const p = await problemOf(sae('narrow', { d_in: 8, d_sae: 4 }, good(8, 4)));
    assert.deepEqual(p.path, ['saes', 0, 'path']);
    assert.match(p.message, /d_in is 8; layers\.0\.out has 16 numbers per token/);
  });
  it('a tensor of the wrong shape names the file, the tensor and the config\'s sizes', async () => {
    const t = { ...good(16, 4), W_dec: { shape: [16, 4], data: ones(64) } };
    const p = await problemOf(sae('transposed', { d_in: 16, d_sae: 4 }, t));
    assert.deepEqual(p.path, ['saes', 0, 'path']);
    assert.match(p.message, /sae_weights\.safetensors: tensor W_dec is \[16, 4\]; cfg\.json's d_in 16 and d_sae 4 make it \[4, 16\]/);
  });
  it('a missing tensor, a bad field, a missing folder', async () => {
    const { W_enc: _, ...noEnc } = good(16, 4);
    assert.match((await problemOf(sae('noenc', { d_in: 16, d_sae: 4 }, noEnc))).message, /sae_weights\.safetensors has no tensor W_enc/);
    assert.match((await problemOf(sae('jump', { d_in: 16, d_sae: 4, architecture: 'jumprelu' }, good(16, 4)))).message, /no tensor threshold \(a jumprelu SAE needs its thresholds\)/);
    assert.match((await problemOf(sae('gated', { d_in: 16, d_sae: 4, architecture: 'gated' }, good(16, 4)))).message, /cfg\.json: architecture is "gated"; FFN Lens reads standard, topk and jumprelu SAEs/);
    assert.match((await problemOf(sae('topk', { d_in: 16, d_sae: 4, architecture: 'topk' }, good(16, 4)))).message, /cfg\.json: k is undefined|cfg\.json: k is/);
    assert.match((await problemOf(sae('nsz', { d_in: -3, d_sae: 4 }, null))).message, /cfg\.json: d_in is -3; expected a positive integer/);
    assert.match((await problemOf(sae('notjson', '{ d_in', null))).message, /cfg\.json is not JSON/);
    assert.match((await problemOf(join(tmp, 'nowhere'))).message, /the SAE .*nowhere"?: no SAE there: expected SAELens' cfg\.json \+ sae_weights\.safetensors, or Gemma Scope's params\.npz/);
  });
  it('a stage an SAE cannot read, a feature past d_sae, an edit of no SAE: at their keys', async () => {
    const d = sae('ok', { d_in: 16, d_sae: 4 }, good(16, 4));
    const bad = await readIn({ ...base, saes: [{ path: d, at: 'layers.0.ffn.up' }] }, new CheckpointResolver(), tmp);
    assert.deepEqual(bad.problems[0].path, ['saes', 0, 'at']);
    assert.match(bad.problems[0].message, /"layers\.0\.ffn\.up" is not a stage an SAE can read/);
    // (the fuzzer's case 83952 of seed 20261128: terminal escapes and a line break in "at" made a 304-character message)
    const hostile = await readIn({ ...base, saes: [{ path: d, at: '\u001b[2J\u001b]0;pwned\u0007\r\nerror: fake \u2026' }] }, new CheckpointResolver(), tmp);
    const said = hostile.problems[0].message;
    assert.deepEqual(hostile.problems[0].path, ['saes', 0, 'at']);
    const line = `saes[0].at: ${said}`; // (as the CLI prints it after file:line:col)
    assert.ok(line.length <= 300 && !/[\u0000-\u001f]/.test(line), `${line.length} characters: ${line}`);
    assert.ok(said.includes('is not a stage an SAE can read; the forms are "layers.N.out"'), said);
    const far = await problemOf(d, 'layers.5.out');
    assert.deepEqual(far.path, ['saes', 0, 'at']);
    assert.match(far.message, /no stage layers\.5\.out \(its layers are 0 to 1\)/);
    const past = await problemOf(d, 'layers.0.out', { sae_ablate: ['layers.0.sae.4'] });
    assert.deepEqual(past.path, ['sae_ablate', 0]);
    assert.match(past.message, /the SAE at layers\.0\.out has features 0 to 3/);
    const none = await problemOf(d, 'layers.0.out', { sae_clamp: { 'layers.1.sae.0': 1 } });
    assert.match(none.message, /no SAE of this file reads layers\.1\.out/);
  });
});

describe('SAE weights held once: W_enc in the kernel\'s memory as panels, in its own dtype', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'ffn-sae16-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a BF16 W_enc is held as its 16-bit panels and encodes as the float32 of the same numbers, bit for bit', async () => {
    const src = join(DIR, 'sae-gpt2-relu');
    const file = await readHeader(nodeFiles, join(src, 'sae_weights.safetensors'));
    const tensors: Record<string, { shape: number[]; data: Float32Array; dtype?: 'BF16' }> = {};
    for (const [name, t] of file.tensors) tensors[name] = { shape: [...t.shape], data: await readTensor(nodeFiles, file, t) };
    // (W_enc rounded to BF16: the F32 SAE holds the very numbers the BF16 one stands for)
    const enc = tensors.W_enc.data.map((v) => bf16(toBf16Bits(v)));
    const write = (name: string, dtype?: 'BF16'): string => {
      const d = join(tmp, name);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'cfg.json'), readFileSync(join(src, 'cfg.json')));
      writeFileSync(join(d, 'sae_weights.safetensors'), safetensorsBytes({ ...tensors, W_enc: { shape: tensors.W_enc.shape, data: enc, ...(dtype ? { dtype } : {}) } }));
      return d;
    };
    const c = read('gpt2_relu_observe.json');
    const run = async (path: string): Promise<{ model: Model; stages: Map<string, Float32Array> }> => {
      const model = await modelOf({ ...c.model, saes: [{ path, at: 'layers.0.out' }] });
      return { model, stages: byId(forward(model, kernel)) };
    };
    const half = await run(write('bf16', 'BF16'));
    const full = await run(write('f32'));
    const W = half.model.params.get('layers.0.sae.W_enc')!;
    assert.equal(W.half?.dtype, 'BF16');
    if (wasm) assert.equal(W.layout, 'panels', 'multiplied where it lies');
    if (wasm) assert.equal(full.model.params.get('layers.0.sae.W_enc')!.layout, 'panels');
    for (const id of ['layers.0.sae.acts', 'layers.0.sae.recon', 'head.logits']) assert.ok(bits(half.stages.get(id)!, full.stages.get(id)!), id);
    assert.ok(half.stages.get('layers.0.sae.acts')!.some((v) => v > 0));
  });
});

describe('npz: arrays numpy wrote (np.savez, np.savez_compressed)', () => {
  it('reads stored float32 and deflated float64 / float16 arrays as numpy saved them', async () => {
    const want = JSON.parse(readFileSync(join(DIR, 'arrays.json'), 'utf8')) as { a: { shape: number[]; data: number[] } };
    const stored = join(DIR, 'arrays.npz');
    const e = await npzEntries(nodeFiles, stored);
    assert.deepEqual([...e.keys()].sort(), ['a', 'v']);
    const a = await readNpy(nodeFiles, stored, e.get('a')!);
    assert.deepEqual(a.shape, [3, 4]);
    assert.deepEqual(Array.from(a.data), want.a.data.map(Math.fround));
    assert.deepEqual(Array.from((await readNpy(nodeFiles, stored, e.get('v')!)).data), [1.5, -2.25]);
    const packed = join(DIR, 'arrays_compressed.npz');
    const z = await npzEntries(nodeFiles, packed);
    assert.deepEqual(Array.from((await readNpy(nodeFiles, packed, z.get('a')!)).data), want.a.data.map(Math.fround));
    assert.deepEqual(Array.from((await readNpy(nodeFiles, packed, z.get('h')!)).data), [0.5, -1, 65504]);
    await assert.rejects(readNpy(nodeFiles, stored, e.get('a')!, 'arrays.npz', [4, 3]), /arrays\.npz: array a is \[3, 4\]; expected \[4, 3\]/);
    await assert.rejects(npzEntries(nodeFiles, join(DIR, 'arrays.json'), 'arrays.json'), /arrays\.json is not an \.npz file/);
  });
});

describe('ffn-lens sae', () => {
  it('prints each token\'s active features, the top k by value, with the fit', async () => {
    const c = read('gpt2_relu_observe.json');
    const file = (await folder.readIn(c.model)).file!;
    const out = lensCommand('sae', file, { '--k': '3' }) as { sae: Array<{ at: string; d_sae: number; error_norm: number; tokens: Array<{ active: number; top: Array<{ id: string; feature: number; value: number }> }> }> };
    const s = out.sae[0];
    assert.equal(s.at, 'layers.0.out');
    assert.ok(Math.abs(s.error_norm - c.fit.error_norm) <= 1e-4 * c.fit.error_norm);
    const acts = c.expected['layers.0.sae.acts'].data;
    s.tokens.forEach((t, pos) => {
      const row = acts.slice(pos * 48, (pos + 1) * 48);
      assert.equal(t.active, row.filter((v) => v !== 0).length);
      const best = row.map((v, f) => [v, f] as const).sort((a, b) => b[0] - a[0]).slice(0, 3);
      assert.deepEqual(t.top.map((x) => x.feature), best.map((b) => b[1]));
      assert.equal(t.top[0].id, `layers.0.sae.${best[0][1]}`);
      assert.ok(Math.abs(t.top[0].value - best[0][0]) <= 1e-4 * best[0][0]);
    });
  });
});
