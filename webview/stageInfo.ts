// What each stage is, in words: its title (as the blog posts name them), what it means, and
// what its axes are. The panel, the tooltips and the overview all read this.
import { activationLabel } from '../src/core/activation';
import type { ModelSummary } from '../src/preview/protocol';

export type AxisKind = 'token' | 'dim' | 'neuron' | 'head-dim' | 'key' | 'vocab';

export interface StageInfo {
  readonly id: string;
  readonly kind: string;        // the id without `layers.i.`
  readonly layer: number;       // -1 outside the layers
  readonly group: 'input' | 'attention' | 'ffn' | 'layer' | 'output' | 'head';
  readonly title: string;
  readonly meaning: string;
  readonly cols: AxisKind;
  /** [heads, seq, x] stages: drawn one head at a time. */
  readonly perHead: boolean;
  /** Drawn with the causal mask shown as masked (scores and weights of causal attention). */
  readonly masked: boolean;
}

export function stageInfo(id: string, s: ModelSummary): StageInfo {
  const m = /^layers\.(\d+)\.(.*)$/.exec(id);
  const layer = m ? Number(m[1]) : -1;
  const kind = m ? m[2] : id;
  const L = layer >= 0 ? s.layers[layer] : undefined;
  const act = L?.ffn ? activationLabel(L.ffn.activation) : '';
  const causal = !!L?.attention?.causal;
  const norm = s.norm;
  const base = { id, kind, layer, perHead: false, masked: false };
  switch (kind) {
    case 'input':
      return { ...base, group: 'input', title: 'Input', meaning: s.positional === 'sinusoidal' ? 'the token vectors plus sinusoidal positions' : 'the token vectors entering layer 0', cols: 'dim' };
    case 'ln1':
      return { ...base, group: 'attention', title: 'LayerNorm 1', meaning: norm === 'pre' ? 'normalizes each token before attention (pre-LN)' : 'LN(x + attention(x)) (post-LN)', cols: 'dim' };
    case 'attn.q':
      return { ...base, group: 'attention', perHead: true, title: 'Q (queries)', meaning: 'what each token looks for: x·Wqᵀ + bq, split into heads', cols: 'head-dim' };
    case 'attn.k':
      return { ...base, group: 'attention', perHead: true, title: 'K (keys)', meaning: 'what each token offers to be found by: x·Wkᵀ + bk', cols: 'head-dim' };
    case 'attn.v':
      return { ...base, group: 'attention', perHead: true, title: 'V (values)', meaning: 'what each token passes on when it is attended to: x·Wvᵀ + bv', cols: 'head-dim' };
    case 'attn.scores':
      return { ...base, group: 'attention', perHead: true, masked: causal, title: 'Self-Attention Scores', meaning: `Q·Kᵀ / √d_head: how well each query (row) matches each key (column)${causal ? '; the causal mask hides the future' : ''}`, cols: 'key' };
    case 'attn.weights':
      return { ...base, group: 'attention', perHead: true, masked: causal, title: 'Attention Weights', meaning: 'softmax of the scores by row: how much each token reads from each other token (rows sum to 1)', cols: 'key' };
    case 'attn.context':
      return { ...base, group: 'attention', title: 'Context', meaning: 'each head\'s weights · V, heads side by side', cols: 'dim' };
    case 'attn.out':
      return { ...base, group: 'attention', title: 'Attention Output', meaning: 'context · Woᵀ + bo', cols: 'dim' };
    case 'attn.residual':
      return { ...base, group: 'attention', title: 'Residual after Attention', meaning: 'the input of the sublayer + its output', cols: 'dim' };
    case 'ln2':
      return { ...base, group: 'ffn', title: 'LayerNorm 2', meaning: norm === 'pre' ? 'normalizes each token before the FFN (pre-LN)' : 'LN(x + FFN(x)) (post-LN)', cols: 'dim' };
    case 'ffn.up':
      return { ...base, group: 'ffn', title: 'FFN - Projection Up', meaning: 'x·W1ᵀ + b1: each neuron (column) asks the token a question', cols: 'neuron' };
    case 'ffn.gate':
      return { ...base, group: 'ffn', title: 'FFN - Gate', meaning: 'x·Wgᵀ + bg: how much of each neuron passes', cols: 'neuron' };
    case 'ffn.act':
      return { ...base, group: 'ffn', title: `FFN - Activation (${act})`, meaning: L?.ffn?.gated ? `${act}: f(gate) ⊙ up` : `${act}(up): which neurons answer, and how strongly`, cols: 'neuron' };
    case 'ffn.down':
      return { ...base, group: 'ffn', title: 'FFN - Projection Down', meaning: 'act·W2ᵀ + b2: each active neuron adds its column of W2', cols: 'dim' };
    case 'ffn.residual':
      return { ...base, group: 'ffn', title: 'Residual after FFN', meaning: 'the input of the sublayer + what the FFN wrote', cols: 'dim' };
    case 'out':
      return { ...base, group: 'layer', title: `Layer ${layer} Output`, meaning: 'what this layer hands on', cols: 'dim' };
    case 'ln_f':
      return { ...base, group: 'output', title: 'Final LayerNorm', meaning: 'ln_f of the last layer\'s output', cols: 'dim' };
    case 'output':
      return { ...base, group: 'output', title: 'Output', meaning: 'the block\'s output vectors', cols: 'dim' };
    case 'head.logits':
      return { ...base, group: 'head', title: 'Logits', meaning: 'output·Wᵀ + b: a score per vocabulary word', cols: 'vocab' };
    case 'head.probs':
      return { ...base, group: 'head', title: `Probabilities (temperature ${s.head?.temperature ?? 1})`, meaning: 'softmax(logits / temperature) by row', cols: 'vocab' };
  }
  return { ...base, group: 'layer', title: id, meaning: '', cols: 'dim' };
}

/** `[5 tokens × 32]`, or `[4 heads × 5 tokens × 2]`. */
export function shapeLabel(shape: readonly number[]): string {
  if (shape.length === 3) return `[${shape[0]} head${shape[0] === 1 ? '' : 's'} × ${shape[1]} tokens × ${shape[2]}]`;
  return `[${shape[0]} token${shape[0] === 1 ? '' : 's'} × ${shape[1]}]`;
}

export function axisName(a: AxisKind): string {
  return { token: 'token', dim: 'dimension', neuron: 'neuron', 'head-dim': 'head dimension', key: 'key token', vocab: 'word' }[a];
}
