// Generated model files: they read without a problem, have the preset's shapes and parameter
// counts, compute finite stages, look like exported weights (one row per line, 6 significant
// digits, no exponents), and are byte-identical for the same seed.
import * as assert from 'node:assert/strict';
import { forward } from '../../../src/core/forward';
import {
  countParams, describePreset, estimateBytes, formatNumber, generateModelText, modelChunks, PRESETS, resolveOptions, writeModel,
  type GenerateOptions, type PresetId,
} from '../../../src/model/generate';
import { readModel, type ModelFile } from '../../../src/model/read';

const DIMS: Record<PresetId, { seq: number; d: number; heads: number; ff: number }> = {
  tiny: { seq: 4, d: 8, heads: 2, ff: 32 },
  d64: { seq: 32, d: 64, heads: 4, ff: 256 },
  d256: { seq: 32, d: 256, heads: 4, ff: 1024 },
  d512: { seq: 32, d: 512, heads: 8, ff: 2048 },
  'gpt2-small': { seq: 32, d: 768, heads: 12, ff: 3072 },
};

/** Reads generated text and insists on no problems at all, not even warnings. */
function read(text: string, file = 'gen.ffn.json'): ModelFile {
  const res = readModel(text, file);
  assert.deepEqual(res.problems.map((p) => `${p.severity} ${p.code}: ${p.message}`), []);
  assert.ok(res.file);
  return res.file;
}

/** The numbers of a matrix or vector `key` under the object starting at `after` (first match). */
function numbersAfter(text: string, after: string, key: string): number[] {
  const from = text.indexOf(after);
  assert.ok(from >= 0, `no ${after}`);
  const at = text.indexOf(`"${key}": [`, from);
  assert.ok(at >= 0, `no ${key} after ${after}`);
  let depth = 0;
  let i = text.indexOf('[', at);
  const start = i;
  for (; i < text.length; i++) {
    if (text[i] === '[') depth++;
    else if (text[i] === ']' && --depth === 0) break;
  }
  return text.slice(start, i + 1).replace(/[[\]\s]/g, ' ').split(',').map((s) => Number(s.trim()));
}

function stats(xs: readonly number[]): { mean: number; std: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  return { mean, std: Math.sqrt(v) };
}

describe('generateModelText: presets', () => {
  for (const id of ['tiny', 'd64', 'd256'] as const) {
    describe(id, () => {
      const D = DIMS[id];
      let text = '';
      let model: ModelFile;
      before(() => {
        text = generateModelText({ preset: id });
        model = read(text);
      });

      it('reads with no problems, with the preset\'s dimensions', () => {
        const vocab = id === 'tiny' ? 8 : 0;
        assert.deepEqual(model.dims, { seq: D.seq, dModel: D.d, dFf: D.ff, heads: D.heads, layers: 1, vocab });
        const { spec: w, params } = model.model;
        assert.equal(model.layout, 'out_in');
        assert.equal(w.norm, 'pre');
        assert.equal(w.residual, true);
        assert.deepEqual(w.embedding, { kind: 'vectors', positional: 'none' });
        const l = w.layers[0];
        assert.equal(l.ffn?.activation, 'gelu');
        assert.equal(l.attention?.causal, true);
        for (const k of ['Wq', 'bq', 'Wk', 'bk', 'Wv', 'bv', 'Wo', 'bo'] as const) assert.ok(params.get(`layers.0.attn.${k}`), `attention.${k}`);
        for (const ln of ['ln1', 'ln2']) {
          assert.equal(params.get(`layers.0.${ln}.gamma`)?.data!.length, D.d);
          assert.equal(params.get(`layers.0.${ln}.beta`)?.data!.length, D.d);
        }
        assert.ok(params.get('layers.0.ffn.b1') && params.get('layers.0.ffn.b2'));
        if (id === 'tiny') {
          assert.deepEqual(model.tokens, ['the', 'cat', 'sat', 'on']);
          assert.equal(w.finalNorm, true);
          assert.equal(w.head?.V, 8);
        } else {
          assert.deepEqual(model.tokens, Array.from({ length: D.seq }, (_, i) => `t${i}`));
          assert.equal(w.finalNorm, false);
          assert.equal(w.head, null);
        }
      });

      it('has the parameter counts of a GPT-2 block', () => {
        const C = D.d;
        const F = D.ff;
        const V = id === 'tiny' ? 8 : 0;
        const want = {
          attention: 4 * C * C + 4 * C,
          ffn: 2 * C * F + F + C,
          norm: 4 * C + (V ? 2 * C : 0), // ln1, ln2; tiny also has ln_f before its head
          head: V * C,
        };
        assert.deepEqual(model.paramCounts, { ...want, total: want.attention + want.ffn + want.norm + want.head });
        assert.deepEqual(countParams(resolveOptions({ preset: id })), model.paramCounts);
      });

      it('runs the forward pass with finite values of a sane size', () => {
        const stages = forward(model.model);
        assert.ok(stages.length >= 15);
        for (const s of stages) {
          for (const v of s.data) assert.ok(Number.isFinite(v), `${s.id} has ${v}`);
        }
        // Unit-scale init: nothing explodes or vanishes through one block.
        const out = stages.find((s) => s.id === (id === 'tiny' ? 'ln_f' : 'output'))!;
        const { std } = stats(Array.from(out.data));
        assert.ok(std > 0.3 && std < 5, `output std ${std}`);
        if (id === 'tiny') {
          const probs = stages.find((s) => s.id === 'head.probs')!;
          assert.deepEqual(probs.shape, [4, 8]);
        }
      });

      it('puts every matrix row on its own line', () => {
        const rows = text.split('\n').filter((l) => /^\s+\[-?\d/.test(l));
        const C = D.d;
        const F = D.ff;
        const V = id === 'tiny' ? 8 : 0;
        assert.equal(rows.length, D.seq + 4 * C + F + C + V);
        for (const r of rows) {
          const n = r.split(',').filter((s) => s.trim() !== '').length;
          assert.ok(n === C || n === F, `a row of ${n} numbers`);
        }
      });
    });
  }

  it('writes numbers as exported weights: at most 6 significant digits, no exponents', () => {
    const text = generateModelText({ preset: 'd64' });
    const body = text.slice(text.indexOf('{'));
    assert.doesNotMatch(body, /\d[eE][-+]?\d/);
    const numbers = body.match(/-?\d+\.\d+|-?\d+(?=[,\]])/g)!;
    assert.ok(numbers.length > 49_000);
    for (const s of numbers.slice(0, 20_000)) {
      const digits = s.replace(/^-?0?\.?0*/, '').replace('.', '');
      assert.ok(digits.length <= 6, s);
    }
  });

  it('draws weights with std 1/sqrt(fan_in), inputs N(0, 1), gamma near 1 and beta near 0', () => {
    const text = generateModelText({ preset: 'd64' });
    const w1 = stats(numbersAfter(text, '"ffn"', 'W1'));
    assert.ok(Math.abs(w1.mean) < 0.005 && Math.abs(w1.std - 1 / 8) < 0.005, JSON.stringify(w1));
    const w2 = stats(numbersAfter(text, '"ffn"', 'W2'));
    assert.ok(Math.abs(w2.std - 1 / 16) < 0.003, JSON.stringify(w2));
    const x = stats(numbersAfter(text, '"tokens"', 'input'));
    assert.ok(Math.abs(x.mean) < 0.06 && Math.abs(x.std - 1) < 0.05, JSON.stringify(x));
    const gamma = stats(numbersAfter(text, '"ln1"', 'gamma'));
    assert.ok(Math.abs(gamma.mean - 1) < 0.02 && gamma.std > 0.02 && gamma.std < 0.08, JSON.stringify(gamma));
    const beta = stats(numbersAfter(text, '"ln1"', 'beta'));
    assert.ok(Math.abs(beta.mean) < 0.01 && beta.std < 0.04, JSON.stringify(beta));
  });

  it('opens with a comment naming the preset and seed, and what to try', () => {
    const text = generateModelText({ preset: 'd64', seed: 42 });
    const head = text.slice(0, text.indexOf('\n{'));
    assert.ok(head.split('\n').every((l) => l.startsWith('//')));
    assert.match(head, /Generated by FFN Lens/);
    assert.match(head, /preset "d64", seed 42/);
    assert.match(head, /What to try/);
    assert.match(text, /"name": "d64 block \(random, seed 42\)"/);
  });
});

describe('generateModelText: determinism', () => {
  it('the same seed gives byte-identical text; another seed different numbers, same shape', () => {
    const a = generateModelText({ preset: 'd64', seed: 7 });
    const b = generateModelText({ preset: 'd64', seed: 7 });
    const c = generateModelText({ preset: 'd64', seed: 8 });
    assert.equal(a, b);
    assert.notEqual(a, c);
    const lines = (t: string): number => t.split('\n').length;
    assert.equal(lines(a), lines(c));
    assert.deepEqual(read(c).dims, read(a).dims);
  });

  it('the default seed is fixed: the same preset gives the same file every time', () => {
    assert.equal(generateModelText({ preset: 'tiny' }), generateModelText({ preset: 'tiny', seed: 1 }));
  });

  it('each tensor has its own stream: adding a head leaves the block\'s weights unchanged', () => {
    const a = generateModelText({ preset: 'd64' });
    const b = generateModelText({ preset: 'd64', vocab: 16 });
    assert.deepEqual(numbersAfter(a, '"ffn"', 'W1'), numbersAfter(b, '"ffn"', 'W1'));
    assert.deepEqual(numbersAfter(a, '"tokens"', 'input'), numbersAfter(b, '"tokens"', 'input'));
  });

  it('chunks, the sink and the whole text agree', () => {
    const opts: GenerateOptions = { preset: 'd64', seed: 3 };
    const whole = generateModelText(opts);
    const small = [...modelChunks(opts, 10_000)];
    assert.ok(small.length > 10);
    assert.equal(small.join(''), whole);
    const sunk: string[] = [];
    writeModel(opts, (c) => sunk.push(c));
    assert.equal(sunk.join(''), whole);
  });
});

describe('generateModelText: options', () => {
  it('explicit dimensions, several layers, a gated activation and a head', () => {
    const opts: GenerateOptions = { seq: 5, dModel: 12, dFf: 20, heads: 3, layers: 3, activation: 'swiglu', causal: false, vocab: 10, seed: 9 };
    const text = generateModelText(opts);
    const m = read(text);
    assert.deepEqual(m.dims, { seq: 5, dModel: 12, dFf: 20, heads: 3, layers: 3, vocab: 10 });
    assert.equal(m.model.spec.layers[2].attention?.causal, false);
    assert.ok(m.model.params.get('layers.1.ffn.Wg'));
    assert.deepEqual(m.vocab, Array.from({ length: 10 }, (_, i) => `v${i}`));
    assert.deepEqual(countParams(resolveOptions(opts)), m.paramCounts);
    assert.match(text, /custom dimensions, seed 9/);
    for (const s of forward(m.model)) for (const v of s.data) assert.ok(Number.isFinite(v), s.id);
  });

  it('tokens and vocabulary words are JSON-escaped', () => {
    const m = read(generateModelText({ preset: 'tiny', tokens: ['a "q"', 'b\\', 'é', 'd'], vocab: ['x', 'y'], name: 'two\nlines' }));
    assert.deepEqual(m.tokens, ['a "q"', 'b\\', 'é', 'd']);
    assert.deepEqual(m.vocab, ['x', 'y']);
    assert.equal(m.name, 'two\nlines');
  });

  it('bad options are a RangeError that says what is wrong', () => {
    assert.throws(() => generateModelText({ preset: 'd64', heads: 5 }), /heads = 5 does not divide dModel = 64/);
    assert.throws(() => generateModelText({ preset: 'tiny', tokens: ['a'] }), /tokens has 1 labels but seq is 4/);
    assert.throws(() => generateModelText({ seq: 0 }), /seq must be a whole number/);
    assert.throws(() => generateModelText({ seed: -1 }), /seed must be a whole number/);
    assert.throws(() => generateModelText({ preset: 'huge' as PresetId }), /unknown preset "huge"/);
  });

  it('formatNumber: significant digits, trimmed, no exponent noise', () => {
    assert.equal(formatNumber(0, 6), '0');
    assert.equal(formatNumber(0.5, 6), '0.5');
    assert.equal(formatNumber(-1, 6), '-1');
    assert.equal(formatNumber(0.0441234567, 6), '0.0441235');
    assert.equal(formatNumber(1.23e-7, 6), '0.000000123');
    assert.equal(formatNumber(-9.5234107e-7, 6), '-0.000000952341');
    assert.equal(formatNumber(1234567.8, 6), '1234570');
    assert.equal(formatNumber(3.14159265, 3), '3.14');
    assert.equal(formatNumber(1e300, 6), '1e+300');
    for (const x of [0.1, -2.5e-5, 7.77777777, 123.456789]) assert.equal(Number(formatNumber(x, 6)), Number(x.toPrecision(6)));
  });
});

describe('generateModelText: sizes', () => {
  it('estimateBytes is within 1% of the real size (5% for tiny\'s few numbers)', () => {
    for (const id of ['tiny', 'd64', 'd256'] as const) {
      const real = Buffer.byteLength(generateModelText({ preset: id }));
      const est = estimateBytes({ preset: id });
      assert.ok(Math.abs(est - real) / real < (id === 'tiny' ? 0.05 : 0.01), `${id}: estimated ${est}, real ${real}`);
    }
  });

  it('the presets describe themselves: dims, size and parameters', () => {
    assert.deepEqual(PRESETS.map((p) => p.id), ['tiny', 'd64', 'd256', 'd512', 'gpt2-small']);
    assert.equal(describePreset('d512'), 'd_model 512 · 8 heads · d_ff 2048 · 37 MB · 3.2M params');
    assert.match(describePreset('gpt2-small'), /^d_model 768 · 12 heads · d_ff 3072 · 8\d MB · 7\.1M params$/);
    assert.match(describePreset('tiny'), /^d_model 8 · 2 heads · d_ff 32 · 1\d KB · 952 params$/);
  });

  it('d512 is 30–40 MB and d256 about a quarter of it (generated in chunks, about a second)', function () {
    this.timeout(30_000);
    let d512 = 0;
    let chunks = 0;
    for (const c of modelChunks({ preset: 'd512' })) {
      d512 += Buffer.byteLength(c);
      chunks++;
    }
    assert.ok(d512 > 30e6 && d512 < 40e6, `d512: ${d512} bytes`);
    assert.ok(chunks > 30, `${chunks} chunks`);
    const d256 = Buffer.byteLength(generateModelText({ preset: 'd256' }));
    const ratio = d512 / d256;
    // 4× the parameters; the smaller fan-in std of d512 adds a leading zero to a few more numbers
    assert.ok(ratio > 3.8 && ratio < 4.3, `d512 / d256 = ${ratio}`);
  });
});
