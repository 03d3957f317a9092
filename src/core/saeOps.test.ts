// The SAE ops (saeEncode, saeDecode, saeError, saeSplice) against their plain forms and numbers
// worked out by hand; the identities: recon + error = x, and a splice with no edit is x itself.
import { strict as assert } from 'node:assert';
import { tsKernel } from './kernel';
import type { StageContext } from './graph';
import { floatData, type Param } from './params';
import { rng } from './rng';
import { saeDecode, saeDecodeNaive } from './saeDecode';
import { saeActivate, saeEncodeNaive, saeEncodeOp, topkRelu } from './saeEncode';
import { saeErrorForward, saeFit } from './saeError';
import type { SaeSpec } from './saeSpec';
import { editActs, saeSpliceForward, saeSpliceOp } from './saeSplice';
import { close, f32 } from '../../test/helpers/handChecked';

const random = (n: number, seed: number, scale = 1): Float32Array => {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => Math.fround((r() * 2 - 1) * scale));
};

function ctxOf(T: number, inputs: Record<string, Float32Array>, params: Record<string, Param>): StageContext {
  return {
    T, kernel: tsKernel, full: true, previous: null,
    input: (id) => inputs[id], changed: () => 'all', param: (id) => params[id] ?? null, paramChanged: () => 'all',
    kept: () => null, keep: () => undefined, packed: (id, K, N) => tsKernel.pack(floatData(params[id]), K, N, 'kn'),
    rows: (w) => new Float32Array(T * w),
  };
}

describe('SAE ops', () => {
  const base: SaeSpec = { site: 'layers.0.out', dIn: 2, dSae: 3, activation: 'relu', applyBDecToInput: true, normalize: 'none' };
  const Wenc = f32([1, 0, -1, 0, 1, 2]); // [d_in 2, d_sae 3]
  const Wdec = f32([1, 0, 0, 1, 0.5, 0.5]); // [d_sae 3, d_in 2]
  const bdec = f32([0.5, -0.5]);
  const benc = f32([0, 0.1, 0]);

  it('encodes by hand: relu, jumprelu, topk', () => {
    // x̃ = [1, 2] − b_dec = [0.5, 2.5]; pre = [0.5, 2.6, −0.5 + 5] = [0.5, 2.6, 4.5]
    const x = f32([1, 2]);
    close(saeEncodeNaive(base, x, 1, Wenc, benc, bdec, null), [0.5, 2.6, 4.5]);
    close(saeEncodeNaive({ ...base, activation: 'jumprelu' }, x, 1, Wenc, benc, bdec, f32([1, 1, 5])), [0, 2.6, 0]);
    close(saeEncodeNaive({ ...base, activation: 'topk', k: 2 }, x, 1, Wenc, benc, bdec, null), [0, 2.6, 4.5]);
    close(saeEncodeNaive({ ...base, applyBDecToInput: false }, x, 1, Wenc, benc, bdec, null), [1, 2.1, 3]);
    // constant_norm_rescale: x·√2/‖x‖ = [0.6325, 1.2649]
    const s = Math.SQRT2 / Math.sqrt(5);
    close(saeEncodeNaive({ ...base, normalize: 'constant_norm_rescale', applyBDecToInput: false }, x, 1, Wenc, null, null, null), [s, 2 * s, 3 * s], 1e-6);
  });

  it('the op (the kernel\'s product) equals the plain encoder', () => {
    const T = 5;
    const sae: SaeSpec = { site: 'x', dIn: 8, dSae: 40, activation: 'jumprelu', applyBDecToInput: true, normalize: 'constant_norm_rescale' };
    const x = random(T * 8, 1, 2);
    const p = { W: random(8 * 40, 2), be: random(40, 3, 0.2), bd: random(8, 4, 0.2), th: random(40, 5, 0.1).map(Math.abs) };
    const want = saeEncodeNaive(sae, x, T, p.W, p.be, p.bd, p.th);
    const params: Record<string, Param> = { W: { data: p.W, shape: [8, 40], layout: 'in_out' }, be: { data: p.be, shape: [40] }, bd: { data: p.bd, shape: [8] }, th: { data: p.th, shape: [40] } };
    const got = saeEncodeOp.run(ctxOf(T, { x }, params), { x: 'x', sae, Wenc: 'W', benc: 'be', bdec: 'bd', threshold: 'th' }).data;
    close(got, Array.from(want), 1e-5);
    assert.ok(want.some((v) => v > 0) && want.some((v) => v === 0));
  });

  it('topk by a heap = the k first of a full sort (value, then index), through relu; ties and k past the positives', () => {
    // the reference: every feature sorted, as the selection was before
    const bySort = (row: Float32Array, k: number): Float32Array => {
      const kept = Array.from(row.keys()).sort((a, b) => row[b] - row[a] || a - b).slice(0, k);
      const out = new Float32Array(row.length);
      for (const i of kept) out[i] = row[i] > 0 ? row[i] : 0;
      return out;
    };
    const r = rng(11);
    for (const [n, k] of [[40, 5], [200, 16], [300, 1], [64, 64], [50, 80]] as const) {
      for (let trial = 0; trial < 20; trial++) {
        // (values on a coarse grid: many ties, some negative, some zero)
        const row = Float32Array.from({ length: n }, () => Math.round((r() * 2 - 0.7) * 4) / 4);
        const want = bySort(row, k);
        const got = row.slice();
        topkRelu(got, k);
        assert.deepEqual(Array.from(got), Array.from(want), `n ${n}, k ${k}, trial ${trial}`);
      }
    }
    // by hand: [1, 3, 3, 2, 3], k = 2 keeps the first two 3s
    const row = f32([1, 3, 3, 2, 3]);
    topkRelu(row, 2);
    assert.deepEqual(Array.from(row), [0, 3, 3, 0, 0]);
    // jumprelu and relu in place, by hand
    const pre = f32([-1, 0.5, 2, 3, 0.2, -4]);
    saeActivate({ ...base, activation: 'jumprelu' }, pre, 2, f32([0, 1, 2.5]));
    assert.deepEqual(Array.from(pre), [0, 0, 0, 3, 0, 0]);
    const p2 = f32([-1, 0.5, NaN]);
    saeActivate(base, p2, 1, null);
    assert.deepEqual(Array.from(p2), [0, 0.5, 0]);
  });

  it('decodes sparse as the dense product, and recon + error = x', () => {
    const T = 4;
    const sae: SaeSpec = { site: 'x', dIn: 6, dSae: 30, activation: 'relu', applyBDecToInput: true, normalize: 'constant_norm_rescale' };
    const acts = random(T * 30, 7).map((v) => (v > 0.6 ? v : 0));
    const W = random(30 * 6, 8);
    const bd = random(6, 9);
    const x = random(T * 6, 10, 3);
    const recon = saeDecode(sae, acts, T, W, bd, x);
    close(recon, Array.from(saeDecodeNaive(sae, acts, T, W, bd, x)), 1e-5);
    const err = saeErrorForward(x, recon, T * 6);
    // (x − r) + r in float32 is x to the rounding of the subtraction: within an ulp of the larger
    for (let i = 0; i < T * 6; i++) assert.ok(Math.abs(Math.fround(err[i] + recon[i]) - x[i]) <= 2 ** -23 * Math.max(Math.abs(x[i]), Math.abs(recon[i])), `at ${i}`);
  });

  it('splices: no edit is x itself; an edit is recon(edited) + error', () => {
    const T = 2;
    const x = f32([1, 2, -1, 0.5]);
    const acts = saeEncodeNaive(base, x, T, Wenc, benc, bdec, null);
    const recon = saeDecode(base, acts, T, Wdec, bdec, x);
    const error = saeErrorForward(x, recon, T * 2);
    assert.equal(saeSpliceForward(base, x, acts, error, T, Wdec, bdec, null, null), x);
    const params: Record<string, Param> = { Wd: { data: Wdec, shape: [3, 2], layout: 'in_out' }, bd: { data: bdec, shape: [2] } };
    const args = { x: 'x', acts: 'a', error: 'e', sae: base, Wdec: 'Wd', bdec: 'bd', scale: 's', clamp: 'c' };
    assert.equal(saeSpliceOp.run(ctxOf(T, { x, a: acts, e: error }, params), args).data, x);
    // ablate feature 2, clamp feature 0 to 3: token 0's acts [0.5, 2.6, 4.5] → [3, 2.6, 0]
    const scale = f32([1, 1, 0]);
    const clamp = f32([3, NaN, NaN]);
    close(editActs(acts, T, 3, scale, clamp).subarray(0, 3), [3, 2.6, 0]);
    const got = saeSpliceOp.run(ctxOf(T, { x, a: acts, e: error }, { ...params, s: { data: scale, shape: [3] }, c: { data: clamp, shape: [3] } }), args).data;
    // token 0: recon' = b_dec + 3·[1, 0] + 2.6·[0, 1] = [3.5, 2.1]; + error (x − recon)
    close(got.subarray(0, 2), [3.5 + error[0], 2.1 + error[1]], 1e-6);
  });

  it('measures the fit: the error\'s norm and the variance explained', () => {
    const x = f32([1, 0, 3, 0]); // mean [2, 0]; Σ‖x − mean‖² = 2
    const recon = f32([1, 0, 2, 0]); // error [0, 0, 1, 0]
    const fit = saeFit(x, recon, 2, 2);
    close([fit.errorNorm, fit.varianceExplained!], [1, 0.5]);
    assert.deepEqual(fit.tokenErrorNorms, [0, 1]);
    assert.equal(saeFit(f32([1, 2]), f32([1, 2]), 1, 2).varianceExplained, null);
  });
});
