// The forward pass the editor runs on every edit: the same stages, in the same order and with the
// same arithmetic as modelForward (forward.ts, the plain reference), but it keeps what it computed
// and, after an edit, recomputes only what the edit can change, where that is cheap and exact:
//
//   - weights are packed once and kept; an edited row of an out_in matrix repacks only its column
//     (an in_out row touches every column: that matrix is packed again);
//   - nothing before the edited parameter is recomputed (an edit in layer 2 leaves layer 1 alone);
//   - an edit of W1/Wg rows (out_in) recomputes only those neurons' up/gate columns (matmulColumns
//     is bit-identical to the full matmul), and only those columns of the activation;
//   - a bias edit (b1, bg, b2, head b) re-adds the bias to the kept product x·Wᵀ: no matmul;
//   - whatever follows a changed stage is recomputed in full (a changed column of `act` changes
//     every output dimension of `down`), as are later layers and the head.
// Tests check that every incremental result equals a full computation, bit for bit.
//
// Dimension key: T = seq, C = d_model, F = d_ff, NH = heads, V = vocab, OC = output channels.

import { activationFn, isGated } from './activation';
import { attentionCore } from './attention';
import type { MatmulKernel, Packed } from './kernel';
import { layernormForward } from './layernorm';
import type { Layout } from './linear';
import { positionalForward } from './positional';
import { residualForward } from './residual';
import { softmaxForward } from './softmax';
import type { Stage, StageSink } from './stages';
import { checkSize } from './tensor';
import type { LayerNormWeights, ModelWeights } from './weights';

/** Columns to recompute: a set, every one, or none. */
export type Cols = ReadonlySet<number> | 'all' | null;

export interface LayerDirty {
  /** An attention weight, bias or ln1 changed: the attention sublayer from its start. */
  attn?: boolean;
  /** ln2 changed. */
  ln2?: boolean;
  /** W1 columns (neurons) whose x·W1ᵀ must be recomputed; b1 entries that changed. */
  up?: Cols;
  upBias?: ReadonlySet<number>;
  gate?: Cols;
  gateBias?: ReadonlySet<number>;
  /** W2 changed ('all'), or only b2 ('bias'). */
  down?: 'all' | 'bias' | null;
}

export interface Dirty {
  /** The input, the structure, or anything not listed below: compute everything. */
  readonly all: boolean;
  readonly layers: ReadonlyMap<number, LayerDirty>;
  readonly lnF?: boolean;
  readonly head?: 'all' | 'bias' | null;
}

export const EVERYTHING: Dirty = { all: true, layers: new Map() };

interface PackEntry { packed: Packed; weight: Float32Array; layout: 'nk' | 'kn' }

export class ForwardEngine {
  private model: ModelWeights | null = null;
  private readonly packs = new Map<Float32Array, PackEntry>();
  /** The last output of every stage, and the bias-free products x·Wᵀ of the linear layers. */
  private readonly kept = new Map<string, Float32Array>();

  constructor(private readonly kernel: MatmulKernel) {}

  /** Frees the packed weights (the kernel may hold memory of its own). */
  dispose(): void {
    for (const p of this.packs.values()) this.kernel.release(p.packed);
    this.packs.clear();
    this.kept.clear();
    this.model = null;
  }

  /**
   * Rows of a weight matrix were edited in place (values only): its packed copy follows.
   * For out_in a row is a column of the packed operand; for in_out it is not, so repack it all.
   */
  weightRowsChanged(weight: Float32Array, rows: readonly number[]): void {
    const e = this.packs.get(weight);
    if (!e) return;
    if (e.layout === 'nk') {
      this.kernel.repackColumns(e.packed, weight, 'nk', rows);
    } else {
      this.kernel.release(e.packed);
      this.packs.delete(weight);
    }
  }

  private packed(weight: Float32Array, K: number, N: number, layout: Layout): Packed {
    let e = this.packs.get(weight);
    if (!e) {
      const bl = layout === 'out_in' ? 'nk' : 'kn';
      e = { packed: this.kernel.pack(weight, K, N, bl), weight, layout: bl };
      this.packs.set(weight, e);
    }
    return e.packed;
  }

  // out (T,OC) = x (T,C) · W' + b; keeps the bias-free product under `id`
  private linear(id: string, x: Float32Array, W: Float32Array | null, b: Float32Array | null, T: number, C: number, OC: number, layout: Layout): Float32Array {
    const pre = new Float32Array(T * OC);
    if (W === null) pre.set(x.subarray(0, T * C));
    else this.kernel.matmul(pre, x, T, this.packed(W, C, OC, layout));
    this.kept.set(id + '#pre', pre);
    return addBias(pre, b, T, OC);
  }

  /** The kept product with a new bias: nothing is multiplied again. */
  private rebias(id: string, b: Float32Array | null, T: number, OC: number): Float32Array {
    return addBias(this.kept.get(id + '#pre')!, b, T, OC);
  }

  // Only columns `cols` of x·W' are computed again (bit-identical to the full matmul), then the bias.
  private linearColumns(id: string, x: Float32Array, W: Float32Array, b: Float32Array | null, T: number, C: number, OC: number, layout: Layout, cols: readonly number[]): Float32Array {
    const pre = this.kept.get(id + '#pre')!.slice();
    this.kernel.matmulColumns(pre, x, T, this.packed(W, C, OC, layout), cols);
    this.kept.set(id + '#pre', pre);
    return addBias(pre, b, T, OC);
  }

  /** Runs the forward pass; `dirty` says what changed since the last run on this same model. */
  run(m: ModelWeights, dirty: Dirty, emit?: StageSink): Stage[] {
    if (m !== this.model) {
      this.dispose();
      this.model = m;
      dirty = EVERYTHING;
    }
    const stages: Stage[] = [];
    const out = (id: string, shape: number[], data: Float32Array): void => {
      checkSize(`stage ${id}`, shape, data);
      // the very array of the previous run: nothing changed it
      const s: Stage = this.kept.get(id) === data ? { id, shape, data, kept: true } : { id, shape, data };
      this.kept.set(id, data);
      stages.push(s);
      emit?.(s);
    };
    const { T, C } = m;
    const td = [T, C];
    const keep = (id: string): Float32Array => this.kept.get(id)!;

    let changed = dirty.all;
    let x: Float32Array;
    if (changed) {
      x = new Float32Array(T * C);
      if (m.positional === 'sinusoidal') positionalForward(x, m.input, T, C);
      else x.set(m.input);
    } else x = keep('input');
    out('input', td, x);

    m.layers.forEach((layer, i) => {
      const p = `layers.${i}.`;
      const d: LayerDirty = dirty.layers.get(i) ?? {};
      let h = x;
      let hChanged = changed;
      const norm = (id: string, inp: Float32Array, ln: LayerNormWeights, recompute: boolean): Float32Array => {
        if (!recompute) return keep(id);
        const o = new Float32Array(T * C);
        layernormForward(o, inp, ln.gamma, ln.beta, ln.eps, T, C);
        return o;
      };
      // A sublayer's end: stream + its output (residual), then LayerNorm (post-LN).
      const sublayerEnd = (sub: 'attn' | 'ffn', lnId: 'ln1' | 'ln2', ln: LayerNormWeights, stream: Float32Array, y: Float32Array, redo: boolean, lnRedo: boolean): Float32Array => {
        if (m.residual) {
          let r = keep(`${p}${sub}.residual`);
          if (redo) {
            r = new Float32Array(T * C);
            residualForward(r, stream, y, T * C);
          }
          out(`${p}${sub}.residual`, td, r);
          y = r;
        }
        if (m.norm === 'post') {
          y = norm(p + lnId, y, ln, redo || lnRedo);
          out(p + lnId, td, y);
        }
        return y;
      };

      if (layer.attention) {
        const a = layer.attention;
        const NH = a.heads;
        const HS = C / NH;
        const redo = hChanged || !!d.attn;
        let inp = h;
        if (m.norm === 'pre') {
          inp = norm(p + 'ln1', h, layer.ln1, redo);
          out(p + 'ln1', td, inp);
        }
        if (redo) {
          const core = attentionCore(
            this.linear(p + 'attn.q', inp, a.Wq, a.bq, T, C, C, m.layout),
            this.linear(p + 'attn.k', inp, a.Wk, a.bk, T, C, C, m.layout),
            this.linear(p + 'attn.v', inp, a.Wv, a.bv, T, C, C, m.layout),
            NH, a.causal, T, C, this.kernel);
          const ao = this.linear(p + 'attn.out', core.context, a.Wo, a.bo, T, C, C, m.layout);
          out(p + 'attn.q', [NH, T, HS], core.q);
          out(p + 'attn.k', [NH, T, HS], core.k);
          out(p + 'attn.v', [NH, T, HS], core.v);
          out(p + 'attn.scores', [NH, T, T], core.scores);
          out(p + 'attn.weights', [NH, T, T], core.weights);
          out(p + 'attn.context', td, core.context);
          out(p + 'attn.out', td, ao);
        } else {
          for (const k of ['q', 'k', 'v']) out(`${p}attn.${k}`, [NH, T, HS], keep(`${p}attn.${k}`));
          out(p + 'attn.scores', [NH, T, T], keep(p + 'attn.scores'));
          out(p + 'attn.weights', [NH, T, T], keep(p + 'attn.weights'));
          out(p + 'attn.context', td, keep(p + 'attn.context'));
          out(p + 'attn.out', td, keep(p + 'attn.out'));
        }
        h = sublayerEnd('attn', 'ln1', layer.ln1, h, keep(p + 'attn.out'), redo, false);
        hChanged = redo;
      }

      if (layer.ffn) {
        const f = layer.ffn;
        const F = f.F;
        let inp = h;
        const inChanged = hChanged || (m.norm === 'pre' && !!d.ln2);
        if (m.norm === 'pre') {
          inp = norm(p + 'ln2', h, layer.ln2, inChanged);
          out(p + 'ln2', td, inp);
        }
        // up and gate: whole, some columns, or only a bias
        const part = (id: string, W: Float32Array, b: Float32Array | null, cols: Cols | undefined, bias: ReadonlySet<number> | undefined): { data: Float32Array; cols: Cols } => {
          if (inChanged || cols === 'all') return { data: this.linear(id, inp, W, b, T, C, F, m.layout), cols: 'all' };
          const touched = new Set<number>([...(cols ?? []), ...(bias ?? [])]);
          if (touched.size === 0) return { data: keep(id), cols: null };
          const data = cols && cols.size ? this.linearColumns(id, inp, W, b, T, C, F, m.layout, [...cols]) : this.rebias(id, b, T, F);
          return { data, cols: touched };
        };
        const up = part(p + 'ffn.up', f.W1, f.b1, d.up, d.upBias);
        out(p + 'ffn.up', [T, F], up.data);
        let actCols: Cols = up.cols;
        let gate: Float32Array | null = null;
        if (isGated(f.activation)) {
          const g = part(p + 'ffn.gate', f.Wg!, f.bg, d.gate, d.gateBias);
          gate = g.data;
          out(p + 'ffn.gate', [T, F], gate);
          actCols = union(actCols, g.cols);
        }
        let act: Float32Array;
        if (actCols === null) act = keep(p + 'ffn.act');
        else if (actCols === 'all') {
          act = new Float32Array(T * F);
          activate(act, up.data, gate, f.activation, T, F, null);
        } else {
          act = keep(p + 'ffn.act').slice();
          activate(act, up.data, gate, f.activation, T, F, [...actCols]);
        }
        out(p + 'ffn.act', [T, F], act);
        let down: Float32Array;
        const actChanged = actCols !== null;
        if (actChanged || d.down === 'all') down = this.linear(p + 'ffn.down', act, f.W2, f.b2, T, F, C, m.layout);
        else if (d.down === 'bias') down = this.rebias(p + 'ffn.down', f.b2, T, C);
        else down = keep(p + 'ffn.down');
        out(p + 'ffn.down', td, down);
        const downChanged = actChanged || !!d.down;
        const redo = downChanged || hChanged;
        h = sublayerEnd('ffn', 'ln2', layer.ln2, h, down, redo, !!d.ln2);
        hChanged = redo || inChanged || (m.norm === 'post' && !!d.ln2);
      }
      out(p + 'out', td, h);
      x = h;
      changed = hChanged;
    });

    if (m.finalNorm) {
      const redo = changed || !!dirty.lnF;
      let y = keep('ln_f');
      if (redo) {
        y = new Float32Array(T * C);
        layernormForward(y, x, m.lnF.gamma, m.lnF.beta, m.lnF.eps, T, C);
      }
      out('ln_f', td, y);
      x = y;
      changed = redo;
    }
    out('output', td, x);

    if (m.head) {
      const { V, W, b, temperature } = m.head;
      let logits: Float32Array;
      if (changed || dirty.head === 'all') logits = this.linear('head.logits', x, W, b, T, C, V, m.layout);
      else if (dirty.head === 'bias') logits = this.rebias('head.logits', b, T, V);
      else logits = keep('head.logits');
      out('head.logits', [T, V], logits);
      let probs = keep('head.probs');
      if (changed || dirty.head) {
        probs = new Float32Array(T * V);
        softmaxForward(probs, logits, T, V, 1 / temperature);
      }
      out('head.probs', [T, V], probs);
    }
    return stages;
  }
}

function union(a: Cols, b: Cols): Cols {
  if (a === 'all' || b === 'all') return 'all';
  if (a === null) return b;
  if (b === null) return a;
  return new Set([...a, ...b]);
}

// out (T,N) = pre (T,N) + b (N): exactly what biasAdd does after the matmul
function addBias(pre: Float32Array, b: Float32Array | null, T: number, N: number): Float32Array {
  const out = pre.slice();
  if (b) for (let t = 0; t < T; t++) for (let j = 0; j < N; j++) out[t * N + j] += b[j];
  return out;
}

// act (T,F) = f(up) or f(gate) ⊙ up, on every column or only on `cols`
function activate(act: Float32Array, up: Float32Array, gate: Float32Array | null, a: Parameters<typeof activationFn>[0], T: number, F: number, cols: readonly number[] | null): void {
  const f = activationFn(a);
  const gated = isGated(a);
  const one = (i: number): void => {
    act[i] = gated ? f(gate![i]) * up[i] : f(up[i]);
  };
  if (cols === null) for (let i = 0; i < T * F; i++) one(i);
  else for (const j of cols) for (let t = 0; t < T; t++) one(t * F + j);
}
