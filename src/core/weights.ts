// The numbers a forward pass needs, already checked and shaped by the model file reader.
// Matrices are stored as the file stores them (see `layout`); a null matrix is the identity,
// a null bias is zeros, a null gamma/beta is ones/zeros.

import type { Activation } from './activation';
import type { AttentionWeights } from './attention';
import type { Layout } from './linear';

export interface LayerNormWeights {
  readonly gamma: Float32Array | null;   // (C)
  readonly beta: Float32Array | null;    // (C)
  readonly eps: number;
}

export interface FfnWeights {
  readonly activation: Activation;
  readonly F: number;
  readonly W1: Float32Array;              // (F,C) out_in, (C,F) in_out
  readonly b1: Float32Array | null;       // (F)
  readonly Wg: Float32Array | null;       // (F,C) out_in, (C,F) in_out; gated only
  readonly bg: Float32Array | null;       // (F)
  readonly W2: Float32Array;              // (C,F) out_in, (F,C) in_out
  readonly b2: Float32Array | null;       // (C)
}

export interface LayerWeights {
  readonly attention: AttentionWeights | null;
  readonly ffn: FfnWeights | null;
  readonly ln1: LayerNormWeights;
  readonly ln2: LayerNormWeights;
}

export interface HeadWeights {
  readonly V: number;
  readonly W: Float32Array;               // (V,C) out_in, (C,V) in_out
  readonly b: Float32Array | null;        // (V)
  readonly temperature: number;
}

export type Norm = 'none' | 'pre' | 'post';
export type Positional = 'none' | 'sinusoidal';

export interface ModelWeights {
  readonly T: number;
  readonly C: number;
  readonly layout: Layout;
  readonly input: Float32Array;           // (T,C)
  readonly positional: Positional;
  readonly residual: boolean;
  readonly norm: Norm;
  readonly layers: readonly LayerWeights[];
  readonly finalNorm: boolean;
  readonly lnF: LayerNormWeights;
  readonly head: HeadWeights | null;
}

export const DEFAULT_EPS = 1e-5;
export const DEFAULT_LAYERNORM: LayerNormWeights = { gamma: null, beta: null, eps: DEFAULT_EPS };
