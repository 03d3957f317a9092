// Issue 29's ops against the PyTorch reference cases of test/fixtures/arch-cases (made by
// scripts/fixtures/arch_cases.py after transformers' modeling files): each op recomputes one
// stage from the case's previous stage and the checkpoint's stored tensors (read with the
// checkpoint's own safetensors reader), within the case's tolerance. Not yet the forward: the
// plan does not read these architectures; this checks the ops it will call.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../../src/checkpoint/nodeFiles';
import { readHeader, readTensor } from '../../../src/checkpoint/safetensors';
import { activationColumns, type Activation } from '../../../src/core/activation';
import { attentionScoresForward, type ScoreOptions } from '../../../src/core/attentionScores';
import { attentionWeightsForward } from '../../../src/core/attentionWeights';
import { embedScaleForward, embedScaleOf } from '../../../src/core/embedScale';
import { fusedRow, splitFused, type FusedDims, type FusedKind, type FusedPart } from '../../../src/core/fused';
import { headNormForward } from '../../../src/core/headNorm';
import { splitHeads } from '../../../src/core/heads';
import { tsKernel } from '../../../src/core/kernel';
import { parallelResidualForward } from '../../../src/core/parallelResidual';
import { rmsnormForward } from '../../../src/core/rmsnorm';
import { ropeForward } from '../../../src/core/rope';
import { softcapForward } from '../../../src/core/softcap';
import type { RopeSpec } from '../../../src/core/spec';
import { compareClose } from '../../helpers/compare';
import { FIXTURES } from '../../helpers/fixtures';

const DIR = join(FIXTURES, 'arch-cases');

interface Case {
  readonly model: { readonly checkpoint: string; readonly token_ids: number[] };
  readonly expected: Record<string, { shape: number[]; data: number[] }>;
  readonly tolerance: { abs: number; rel: number };
}

interface Loaded {
  readonly c: Case;
  readonly cfg: Record<string, unknown>;
  readonly W: Map<string, Float32Array>;
  readonly T: number;
  stage(id: string): Float32Array;
  near(got: Float32Array, id: string): void;
}

const loaded = new Map<string, Promise<Loaded>>();

/** A case, its config and every stored tensor as float32 (F16 and BF16 decoded exactly). */
function load(name: string): Promise<Loaded> {
  let p = loaded.get(name);
  if (!p) loaded.set(name, (p = read(name)));
  return p;
}

async function read(name: string): Promise<Loaded> {
  const c = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Case;
  const folder = join(DIR, c.model.checkpoint);
  const cfg = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as Record<string, unknown>;
  const file = await readHeader(nodeFiles, join(folder, 'model.safetensors'));
  const W = new Map<string, Float32Array>();
  for (const [n, t] of file.tensors) W.set(n, await readTensor(nodeFiles, file, t));
  const stage = (id: string): Float32Array => {
    const e = c.expected[id];
    assert.ok(e, `${name} has ${id}`);
    return Float32Array.from(e.data);
  };
  return {
    c, cfg, W, T: c.model.token_ids.length, stage,
    near(got, id) {
      const msg = compareClose(got, stage(id), c.tolerance, `${name} ${id}`);
      assert.equal(msg, null);
    },
  };
}

const num = (cfg: Record<string, unknown>, key: string): number => cfg[key] as number;

function tensor(m: Loaded, name: string): Float32Array {
  const t = m.W.get(name);
  assert.ok(t, `tensor ${name}`);
  return t;
}

// y (T,OC) = x (T,C) · Wᵀ + b, W out_in (OC,C), sums in float64
function linear(x: Float32Array, W: Float32Array, b: Float32Array | null, T: number, C: number): Float32Array {
  const OC = W.length / C;
  const y = new Float32Array(T * OC);
  for (let t = 0; t < T; t++) for (let o = 0; o < OC; o++) {
    let s = b ? b[o] : 0;
    for (let i = 0; i < C; i++) s += x[t * C + i] * W[o * C + i];
    y[t * OC + o] = s;
  }
  return y;
}

/** (H,T,HS) of x·Wᵀ + b, q/k-normed and rotated as asked. */
function headsOf(x: Float32Array, W: Float32Array, b: Float32Array | null, T: number, C: number, H: number, HS: number,
  opts: { norm?: { w: Float32Array; eps: number; onePlus: boolean }; rope?: RopeSpec } = {}): Float32Array {
  const out = new Float32Array(H * T * HS);
  splitHeads(out, linear(x, W, b, T, C), T, H, HS);
  if (opts.norm) headNormForward(out, out, opts.norm.w, opts.norm.eps, H, T, HS, opts.norm.onePlus);
  if (opts.rope) ropeForward(out, H, T, HS, opts.rope);
  return out;
}

function scoresOf(m: Loaded, layer: number, NH: number, KVH: number, HS: number, opts: ScoreOptions): Float32Array {
  const out = new Float32Array(NH * m.T * m.T);
  attentionScoresForward(out, m.stage(`layers.${layer}.attn.q`), m.stage(`layers.${layer}.attn.k`), NH, KVH, m.T, HS, tsKernel, opts);
  return out;
}

function weightsOf(m: Loaded, layer: number, NH: number, window: number | null): Float32Array {
  const out = new Float32Array(NH * m.T * m.T);
  attentionWeightsForward(out, m.stage(`layers.${layer}.attn.scores`), NH, m.T, true, window);
  // masked entries exactly 0, as the case's
  const want = m.stage(`layers.${layer}.attn.weights`);
  for (let i = 0; i < out.length; i++) if (want[i] === 0) assert.ok(Object.is(out[i], 0), `layer ${layer} weight ${i} masked`);
  return out;
}

function act(up: Float32Array, gate: Float32Array | null, a: Activation, T: number, F: number): Float32Array {
  const out = new Float32Array(T * F);
  activationColumns(out, up, gate, a, null, T, F, null);
  return out;
}

function rms(x: Float32Array, w: Float32Array, eps: number, T: number, C: number, onePlus: boolean): Float32Array {
  const out = new Float32Array(x.length);
  rmsnormForward(out, x, w, eps, T, C, onePlus);
  return out;
}

/** A fused tensor's part, optionally after `weights` overrides of its role rows (by fusedRow, on a copy). */
function part(m: Loaded, name: string, kind: FusedKind, p: FusedPart, cols: number, d: FusedDims, edits: Array<[FusedPart, number, number | null, number | number[]]> = []): Float32Array {
  const data = tensor(m, name).slice();
  for (const [ep, j, col, v] of edits) {
    const r = fusedRow(kind, ep, j, d);
    if (Array.isArray(v)) data.set(v.map(Math.fround), r * cols);
    else data[r * cols + (col ?? 0)] = v;
  }
  return splitFused(kind, data, cols, d).get(p)!;
}

describe('issue 29 ops against the PyTorch arch cases (test/fixtures/arch-cases)', () => {
  describe('gpt_neox: per-head fused query_key_value, partial rotary, parallel residual, exact GELU', () => {
    for (const name of ['neox_parallel', 'neox_sequential_f16']) {
      it(`${name}: attn.q, .k (rotary on the first rotary_pct of each head), .v from ln1 and the split query_key_value; ffn.act`, async () => {
        const m = await load(name);
        const C = num(m.cfg, 'hidden_size'); const NH = num(m.cfg, 'num_attention_heads'); const F = num(m.cfg, 'intermediate_size');
        const HS = C / NH;
        const d: FusedDims = { NH, KVH: NH, HS, F };
        const rope: RopeSpec = { theta: num(m.cfg, 'rotary_emb_base'), rotaryDims: Math.trunc(HS * num(m.cfg, 'rotary_pct')) };
        assert.equal(rope.rotaryDims, 4);
        for (let i = 0; i < num(m.cfg, 'num_hidden_layers'); i++) {
          const h = `gpt_neox.layers.${i}.attention.query_key_value.`;
          const ln1 = m.stage(`layers.${i}.ln1`);
          for (const p of ['q', 'k', 'v'] as const) {
            const W = part(m, `${h}weight`, 'qkv_per_head', p, C, d);
            const b = part(m, `${h}bias`, 'qkv_per_head', p, 1, d);
            m.near(headsOf(ln1, W, b, m.T, C, NH, HS, p === 'v' ? {} : { rope }), `layers.${i}.attn.${p}`);
          }
          m.near(act(m.stage(`layers.${i}.ffn.up`), null, 'gelu', m.T, F), `layers.${i}.ffn.act`);
        }
      });
    }
    it('neox_parallel: layers.i.out = (ffn.down + attn.out) + the layer\'s input; no attn.residual stage', async () => {
      const m = await load('neox_parallel');
      const C = num(m.cfg, 'hidden_size');
      for (let i = 0; i < num(m.cfg, 'num_hidden_layers'); i++) {
        const out = new Float32Array(m.T * C);
        parallelResidualForward(out, m.stage(i === 0 ? 'input' : `layers.${i - 1}.out`), m.stage(`layers.${i}.attn.out`), m.stage(`layers.${i}.ffn.down`));
        m.near(out, `layers.${i}.out`);
        assert.ok(!(`layers.${i}.attn.residual` in m.c.expected));
      }
    });
    it('neox_parallel_weights: overrides of a Wk row, one Wq number and a bv element land where fusedRow says', async () => {
      const m = await load('neox_parallel_weights');
      const C = 16; const NH = 2; const HS = 8;
      const d: FusedDims = { NH, KVH: NH, HS, F: 48 };
      const rope: RopeSpec = { theta: 10000, rotaryDims: 4 };
      const h0 = 'gpt_neox.layers.0.attention.query_key_value.';
      const h1 = 'gpt_neox.layers.1.attention.query_key_value.';
      const ln1 = m.stage('layers.0.ln1');
      const Wk = part(m, `${h0}weight`, 'qkv_per_head', 'k', C, d, [['k', 5, null, Array.from({ length: 16 }, (_, j) => 0.1 * j)]]);
      m.near(headsOf(ln1, Wk, part(m, `${h0}bias`, 'qkv_per_head', 'k', 1, d), m.T, C, NH, HS, { rope }), 'layers.0.attn.k');
      const bv = part(m, `${h0}bias`, 'qkv_per_head', 'v', 1, d, [['v', 6, null, -1]]);
      m.near(headsOf(ln1, part(m, `${h0}weight`, 'qkv_per_head', 'v', C, d), bv, m.T, C, NH, HS), 'layers.0.attn.v');
      const Wq = part(m, `${h1}weight`, 'qkv_per_head', 'q', C, d, [['q', 9, 3, 2.5]]);
      m.near(headsOf(m.stage('layers.1.ln1'), Wq, part(m, `${h1}bias`, 'qkv_per_head', 'q', 1, d), m.T, C, NH, HS, { rope }), 'layers.1.attn.q');
      // (and without the override, layer 0's k is not the case's: the test can fail)
      const plain = headsOf(ln1, part(m, `${h0}weight`, 'qkv_per_head', 'k', C, d), part(m, `${h0}bias`, 'qkv_per_head', 'k', 1, d), m.T, C, NH, HS, { rope });
      assert.notEqual(compareClose(plain, m.stage('layers.0.attn.k'), m.c.tolerance, 'k'), null);
    });
  });

  describe('gemma2: embedding × √C, (1+w) norms, post-norms, scale and soft-caps, sliding window, GEGLU-tanh', () => {
    it('gemma2_bf16: every stage an op of issue 29 makes, from the stage before it', async () => {
      const m = await load('gemma2_bf16');
      const C = num(m.cfg, 'hidden_size'); const NH = num(m.cfg, 'num_attention_heads'); const KVH = num(m.cfg, 'num_key_value_heads');
      const HS = num(m.cfg, 'head_dim'); const F = num(m.cfg, 'intermediate_size'); const eps = num(m.cfg, 'rms_norm_eps'); const T = m.T;
      const embed = tensor(m, 'model.embed_tokens.weight');
      const input = new Float32Array(T * C);
      m.c.model.token_ids.forEach((id, t) => input.set(embed.subarray(id * C, (id + 1) * C), t * C));
      embedScaleForward(input, input, embedScaleOf(C));
      m.near(input, 'input');
      const opts: ScoreOptions = { scale: num(m.cfg, 'query_pre_attn_scalar') ** -0.5, softcap: num(m.cfg, 'attn_logit_softcapping') };
      for (let i = 0; i < num(m.cfg, 'num_hidden_layers'); i++) {
        const h = `model.layers.${i}.`;
        const p = `layers.${i}.`;
        const x = i === 0 ? input : m.stage(`layers.${i - 1}.out`);
        m.near(rms(x, tensor(m, `${h}input_layernorm.weight`), eps, T, C, true), `${p}ln1`);
        m.near(headsOf(m.stage(`${p}ln1`), tensor(m, `${h}self_attn.q_proj.weight`), null, T, C, NH, HS, { rope: { theta: 10000 } }), `${p}attn.q`);
        m.near(scoresOf(m, i, NH, KVH, HS, opts), `${p}attn.scores`);
        m.near(weightsOf(m, i, NH, i % 2 === 0 ? num(m.cfg, 'sliding_window') : null), `${p}attn.weights`);
        m.near(rms(m.stage(`${p}attn.out`), tensor(m, `${h}post_attention_layernorm.weight`), eps, T, C, true), `${p}ln1_post`);
        m.near(rms(m.stage(`${p}attn.residual`), tensor(m, `${h}pre_feedforward_layernorm.weight`), eps, T, C, true), `${p}ln2`);
        m.near(act(m.stage(`${p}ffn.up`), m.stage(`${p}ffn.gate`), 'geglu_tanh', T, F), `${p}ffn.act`);
        m.near(rms(m.stage(`${p}ffn.down`), tensor(m, `${h}post_feedforward_layernorm.weight`), eps, T, C, true), `${p}ln2_post`);
      }
      // the final soft-cap, on head.logits and on a lens layer's logits
      const cap = num(m.cfg, 'final_logit_softcapping');
      const logits = linear(m.stage('ln_f'), embed, null, T, C);
      softcapForward(logits, logits, cap);
      m.near(logits, 'head.logits');
      const lens = linear(rms(m.stage('layers.0.out'), tensor(m, 'model.norm.weight'), eps, T, C, true), embed, null, T, C);
      softcapForward(lens, lens, cap);
      m.near(lens, 'layers.0.lens.logits');
    });
  });

  describe('q/k norms before RoPE, a RoPE base per layer', () => {
    it('gemma3_f32: (1+w) q_norm/k_norm over head_dim, base 10000 on sliding layers and 1e6 on the full one; scale, windows by layer_types', async () => {
      const m = await load('gemma3_f32');
      const C = num(m.cfg, 'hidden_size'); const NH = num(m.cfg, 'num_attention_heads'); const KVH = num(m.cfg, 'num_key_value_heads');
      const HS = num(m.cfg, 'head_dim'); const eps = num(m.cfg, 'rms_norm_eps');
      const types = m.cfg.layer_types as string[];
      const local: RopeSpec = { theta: num(m.cfg, 'rope_local_base_freq') };
      const global: RopeSpec = { theta: num(m.cfg, 'rope_theta') };
      for (let i = 0; i < types.length; i++) {
        const h = `model.layers.${i}.self_attn.`;
        const sliding = types[i] === 'sliding_attention';
        const rope = sliding ? local : global;
        for (const [p, H] of [['q', NH], ['k', KVH]] as const) {
          const norm = { w: tensor(m, `${h}${p}_norm.weight`), eps, onePlus: true };
          m.near(headsOf(m.stage(`layers.${i}.ln1`), tensor(m, `${h}${p}_proj.weight`), null, m.T, C, H, HS, { norm, rope }), `layers.${i}.attn.${p}`);
        }
        m.near(scoresOf(m, i, NH, KVH, HS, { scale: num(m.cfg, 'query_pre_attn_scalar') ** -0.5 }), `layers.${i}.attn.scores`);
        m.near(weightsOf(m, i, NH, sliding ? num(m.cfg, 'sliding_window') : null), `layers.${i}.attn.weights`);
      }
      // (the other base on layer 1 is not the case's: the test can fail)
      const wrong = headsOf(m.stage('layers.1.ln1'), tensor(m, 'model.layers.1.self_attn.q_proj.weight'), null, m.T, C, NH, HS,
        { norm: { w: tensor(m, 'model.layers.1.self_attn.q_norm.weight'), eps, onePlus: true }, rope: local });
      assert.notEqual(compareClose(wrong, m.stage('layers.1.attn.q'), m.c.tolerance, 'q'), null);
    });
    it('qwen3_bf16: plain q_norm/k_norm over head_dim 6 (≠ C/heads) before RoPE', async () => {
      const m = await load('qwen3_bf16');
      const C = num(m.cfg, 'hidden_size'); const NH = num(m.cfg, 'num_attention_heads'); const KVH = num(m.cfg, 'num_key_value_heads');
      const HS = num(m.cfg, 'head_dim'); const eps = num(m.cfg, 'rms_norm_eps');
      for (let i = 0; i < num(m.cfg, 'num_hidden_layers'); i++) {
        const h = `model.layers.${i}.self_attn.`;
        for (const [p, H] of [['q', NH], ['k', KVH]] as const) {
          const norm = { w: tensor(m, `${h}${p}_norm.weight`), eps, onePlus: false };
          m.near(headsOf(m.stage(`layers.${i}.ln1`), tensor(m, `${h}${p}_proj.weight`), null, m.T, C, H, HS, { norm, rope: { theta: num(m.cfg, 'rope_theta') } }), `layers.${i}.attn.${p}`);
        }
        m.near(scoresOf(m, i, NH, KVH, HS, {}), `layers.${i}.attn.scores`);
      }
    });
  });

  it('mistral_f16: the sliding window 3 on every layer over 8 tokens', async () => {
    const m = await load('mistral_f16');
    const NH = num(m.cfg, 'num_attention_heads'); const KVH = num(m.cfg, 'num_key_value_heads'); const HS = num(m.cfg, 'hidden_size') / NH;
    for (let i = 0; i < num(m.cfg, 'num_hidden_layers'); i++) {
      m.near(scoresOf(m, i, NH, KVH, HS, {}), `layers.${i}.attn.scores`);
      m.near(weightsOf(m, i, NH, num(m.cfg, 'sliding_window')), `layers.${i}.attn.weights`);
    }
    // (without the window, not the case's)
    const causal = new Float32Array(NH * m.T * m.T);
    attentionWeightsForward(causal, m.stage('layers.0.attn.scores'), NH, m.T, true, null);
    assert.notEqual(compareClose(causal, m.stage('layers.0.attn.weights'), m.c.tolerance, 'w'), null);
  });

  describe('phi3: fused qkv_proj and gate_up_proj, partial_rotary_factor', () => {
    const dimsOf = (cfg: Record<string, unknown>): FusedDims => ({ NH: num(cfg, 'num_attention_heads'), KVH: num(cfg, 'num_key_value_heads'), HS: num(cfg, 'hidden_size') / num(cfg, 'num_attention_heads'), F: num(cfg, 'intermediate_size') });
    it('phi3_f32: attn.q, .k (rotary on half of each head), .v and ffn.gate, .up from the split tensors', async () => {
      const m = await load('phi3_f32');
      const C = num(m.cfg, 'hidden_size'); const d = dimsOf(m.cfg);
      const rope: RopeSpec = { theta: num(m.cfg, 'rope_theta'), rotaryDims: Math.trunc(d.HS * num(m.cfg, 'partial_rotary_factor')) };
      for (let i = 0; i < num(m.cfg, 'num_hidden_layers'); i++) {
        const h = `model.layers.${i}.`;
        for (const p of ['q', 'k', 'v'] as const) {
          const W = part(m, `${h}self_attn.qkv_proj.weight`, 'qkv', p, C, d);
          m.near(headsOf(m.stage(`layers.${i}.ln1`), W, null, m.T, C, p === 'q' ? d.NH : d.KVH, d.HS, p === 'v' ? {} : { rope }), `layers.${i}.attn.${p}`);
        }
        for (const p of ['gate', 'up'] as const) {
          m.near(linear(m.stage(`layers.${i}.ln2`), part(m, `${h}mlp.gate_up_proj.weight`, 'gate_up', p, C, d), null, m.T, C), `layers.${i}.ffn.${p}`);
        }
        m.near(act(m.stage(`layers.${i}.ffn.up`), m.stage(`layers.${i}.ffn.gate`), 'swiglu', m.T, d.F), `layers.${i}.ffn.act`);
      }
    });
    it('phi3_weights: overrides of a Wv row, a W1 (up) row and one Wg number land where fusedRow says', async () => {
      const m = await load('phi3_weights');
      const C = num(m.cfg, 'hidden_size'); const d = dimsOf(m.cfg);
      const Wv = part(m, 'model.layers.0.self_attn.qkv_proj.weight', 'qkv', 'v', C, d, [['v', 2, null, Array.from({ length: 16 }, () => 0.2)]]);
      m.near(headsOf(m.stage('layers.0.ln1'), Wv, null, m.T, C, d.KVH, d.HS), 'layers.0.attn.v');
      const W1 = part(m, 'model.layers.1.mlp.gate_up_proj.weight', 'gate_up', 'up', C, d, [['up', 3, null, Array.from({ length: 16 }, (_, j) => -0.1 * j)]]);
      m.near(linear(m.stage('layers.1.ln2'), W1, null, m.T, C), 'layers.1.ffn.up');
      const Wg = part(m, 'model.layers.0.mlp.gate_up_proj.weight', 'gate_up', 'gate', C, d, [['gate', 5, 1, 1.5]]);
      m.near(linear(m.stage('layers.0.ln2'), Wg, null, m.T, C), 'layers.0.ffn.gate');
    });
  });
});
