// Section `archs`: the forward's throughput on each architecture's block, at its preset's real
// widths (Pythia-160M, Qwen3-0.6B, Gemma-3-1B, Gemma-2-2B), against GPT-2-small's in the same run
// (issue 29: no architecture falls off the fast path). Two layers of each, 32 tokens, every stage
// kept, no head (the head is one more product of the same kernel, and a 256k-word one would
// dwarf the block); the weights packed once, then the whole forward timed on fresh inputs, runs
// of the architectures taken in turn. GFLOP: the products' 2·m·k·n and attention's two T×T
// products per head (norms, RoPE, activations are not counted: they are the architectures' own
// extra work, so an architecture with more of it reads slower, honestly).
import { Engine } from '../src/core/engine';
import { parseParamId } from '../src/core/ids';
import type { MatmulKernel } from '../src/core/matmulKernel';
import type { Model } from '../src/core/model';
import { layerParam, shapeOf, type ParamDim } from '../src/core/paramTable';
import type { Param } from '../src/core/params';
import { planModel } from '../src/core/plan';
import type { LayerSpec, ModelSpec } from '../src/core/spec';

const T = 32;
const LAYERS = 2;

export interface Shape { name: string; layers?: number; C: number; F: number; NH: number; KVH: number; HS: number; biases: boolean; layer: Omit<LayerSpec, 'attention' | 'ffn'> & { attention: Partial<NonNullable<LayerSpec['attention']>>; ffn: Partial<NonNullable<LayerSpec['ffn']>> }; spec: Partial<ModelSpec> }

export const SHAPES: Shape[] = [
  { name: 'GPT-2-small', C: 768, F: 3072, NH: 12, KVH: 12, HS: 64, biases: true, layer: { attention: {}, ffn: { activation: 'gelu_tanh' } }, spec: { normKind: 'layernorm' } },
  { name: 'Pythia-160M', C: 768, F: 3072, NH: 12, KVH: 12, HS: 64, biases: true, layer: { attention: { rope: { theta: 10000, rotaryDims: 16 } }, ffn: { activation: 'gelu' }, parallelResidual: true }, spec: { normKind: 'layernorm' } },
  { name: 'Qwen3-0.6B', C: 1024, F: 3072, NH: 16, KVH: 8, HS: 128, biases: false, layer: { attention: { rope: { theta: 1e6 }, qkNorm: { eps: 1e-6, onePlus: false } }, ffn: { activation: 'swiglu' } }, spec: { normKind: 'rmsnorm' } },
  { name: 'Gemma-3-1B', C: 1152, F: 6912, NH: 4, KVH: 1, HS: 256, biases: false, layer: { attention: { rope: { theta: 10000 }, qkNorm: { eps: 1e-6, onePlus: true }, scale: 256 ** -0.5, window: 512 }, ffn: { activation: 'geglu_tanh' }, postNorms: true }, spec: { normKind: 'rmsnorm', normOnePlus: true } },
  { name: 'Gemma-2-2B', C: 2304, F: 9216, NH: 8, KVH: 4, HS: 256, biases: false, layer: { attention: { rope: { theta: 10000 }, scale: 256 ** -0.5, softcap: 50, window: 4096 }, ffn: { activation: 'geglu_tanh' }, postNorms: true }, spec: { normKind: 'rmsnorm', normOnePlus: true } },
];

function specOf(s: Shape): ModelSpec {
  const layer: LayerSpec = {
    ...s.layer,
    attention: { NH: s.NH, KVH: s.KVH, HS: s.HS, causal: true, rope: null, ...s.layer.attention },
    ffn: { F: s.F, activation: 'gelu', ...s.layer.ffn },
  };
  return {
    T, C: s.C, embedding: { kind: 'vectors', positional: 'none' }, norm: 'pre', normKind: 'layernorm', eps: new Map(), residual: true,
    layers: Array.from({ length: s.layers ?? LAYERS }, () => layer), finalNorm: true, head: null, lens: false, ...s.spec,
  };
}

/** Seeded numbers of a small spread (a sum of uniforms: near-normal, cheap). */
function filled(n: number, seed: number, scale: number, base = 0): Float32Array {
  const a = new Float32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    a[i] = base + scale * (((x >>> 0) / 4294967296) - 0.5);
  }
  return a;
}

/** Every param the plan reads, of its real shape: matrices and gains always, biases where the architecture has them. */
function paramsOf(s: Shape, spec: ModelSpec): Map<string, Param> {
  const dims: Record<ParamDim, number> = { C: s.C, F: s.F, Q: s.NH * s.HS, KV: s.KVH * s.HS, HS: s.HS, NH: s.NH };
  const params = new Map<string, Param>();
  let seed = 1;
  for (const st of planModel(spec)) {
    for (const id of st.params) {
      if (params.has(id)) continue;
      if (id === 'input') { params.set(id, { data: filled(T * s.C, seed++, 2), shape: [T, s.C] }); continue; }
      const { layer, kind } = parseParamId(id);
      const row = layer >= 0 ? layerParam(kind) : null;
      const gain = kind.endsWith('.gamma');
      if (gain || kind.endsWith('.beta')) {
        const n = row ? shapeOf(row, dims)[0] : s.C;
        params.set(id, { data: filled(n, seed++, 0.1, gain && !spec.normOnePlus ? 1 : 0), shape: [n] });
        continue;
      }
      if (!row || row.role === 'units' || (row.role === 'bias' && !s.biases)) continue;
      const shape = shapeOf(row, dims);
      const n = shape.reduce((a, b) => a * b, 1);
      params.set(id, row.role === 'matrix' ? { data: filled(n, seed++, 2 / Math.sqrt(shape[1])), shape, layout: 'out_in' } : { data: filled(n, seed++, 0.1), shape });
    }
  }
  return params;
}

/** The forward's multiply-adds, ×2: the layers' products and attention's Q·Kᵀ and weights·V. */
function gflopOf(s: Shape): number {
  const Q = s.NH * s.HS;
  const KV = s.KVH * s.HS;
  const gated = s.layer.ffn.activation === 'swiglu' || s.layer.ffn.activation === 'geglu_tanh';
  const products = s.C * (Q + 2 * KV) + Q * s.C + s.C * s.F * (gated ? 3 : 2);
  const attention = 2 * s.NH * T * T * s.HS;
  return ((s.layers ?? LAYERS) * 2 * (T * products + attention)) / 1e9;
}

export interface ArchRow { name: string; gflop: number; ms: number[]; gflops: number[] }

/** Each shape's forward timed `rounds` times, the shapes in turn (the weights packed once, before). */
export function archThroughput(kernel: MatmulKernel, rounds: number, shapes: readonly Shape[] = SHAPES): ArchRow[] {
  const models = shapes.map((s) => {
    const spec = specOf(s);
    const params = paramsOf(s, spec);
    const engine = new Engine(kernel);
    engine.run({ spec, params }); // (packs the weights)
    return { s, spec, params, engine };
  });
  const rows: ArchRow[] = shapes.map((s) => ({ name: s.name, gflop: gflopOf(s), ms: [], gflops: [] }));
  for (let r = 0; r < rounds; r++) {
    models.forEach((m, i) => {
      // a new input: every stage recomputed, the packed weights kept (the same objects)
      const params = new Map(m.params);
      params.set('input', { data: filled(T * m.s.C, 1000 + r, 2), shape: [T, m.s.C] });
      const model: Model = { spec: m.spec, params };
      const t0 = performance.now();
      m.engine.run(model);
      const ms = performance.now() - t0;
      rows[i].ms.push(ms);
      rows[i].gflops.push(rows[i].gflop / (ms / 1000));
    });
  }
  for (const m of models) m.engine.dispose();
  return rows;
}
