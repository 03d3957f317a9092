// What a place in the file is in the model: a JSON path turned into a role ("weight from input
// dimension 3 into neuron 12 of layer 0's FFN"). Layout-aware: in out_in a matrix row is an
// output unit (a neuron for W1); in in_out the same unit is a column.
import type { Layout } from '../core/linear';
import type { PathSegment } from './problems';

export type MatrixParam = 'W1' | 'Wg' | 'W2' | 'Wq' | 'Wk' | 'Wv' | 'Wo' | 'W';
export type BiasParam = 'b1' | 'bg' | 'b2' | 'bq' | 'bk' | 'bv' | 'bo' | 'b';

export type Role =
  /** A weight, or a whole row of one (`col` null). `out`/`inp`: the output unit and input index, whichever the place fixes. */
  | { readonly kind: 'weight'; readonly param: MatrixParam; readonly layer: number; readonly row: number; readonly col: number | null; readonly out: number | null; readonly inp: number | null }
  | { readonly kind: 'matrix'; readonly param: MatrixParam; readonly layer: number }
  | { readonly kind: 'bias'; readonly param: BiasParam; readonly layer: number; readonly index: number | null }
  | { readonly kind: 'input'; readonly token: number; readonly dim: number | null }
  | { readonly kind: 'input-matrix' }
  | { readonly kind: 'norm'; readonly which: 'ln1' | 'ln2' | 'ln_f'; readonly layer: number; readonly param: 'gamma' | 'beta'; readonly index: number | null }
  | { readonly kind: 'token-label'; readonly token: number }
  | { readonly kind: 'vocab'; readonly index: number }
  | { readonly kind: 'sublayer'; readonly what: 'ffn' | 'attention'; readonly layer: number };

const MATRICES = new Set<string>(['W1', 'Wg', 'W2', 'Wq', 'Wk', 'Wv', 'Wo']);
const BIASES = new Set<string>(['b1', 'bg', 'b2', 'bq', 'bk', 'bv', 'bo']);

/**
 * The role of a path. `usesLayers`: the file has a `layers` list (otherwise the single-layer
 * shorthand puts layer 0's keys at the top level).
 */
export function roleOf(path: readonly PathSegment[], layout: Layout, usesLayers: boolean): Role | null {
  let p = [...path];
  let layer = 0;
  if (usesLayers) {
    if (p[0] === 'layers' && typeof p[1] === 'number') {
      layer = p[1];
      p = p.slice(2);
    } else if (p[0] !== 'input' && p[0] !== 'tokens' && p[0] !== 'head' && p[0] !== 'ln_f') {
      return null;
    }
  }
  const [a, b, c, d] = p;
  const num = (x: PathSegment | undefined): number | null => (typeof x === 'number' ? x : null);

  if (a === 'input') {
    if (b === undefined) return { kind: 'input-matrix' };
    return typeof b === 'number' ? { kind: 'input', token: b, dim: num(c) } : null;
  }
  if (a === 'tokens' && typeof b === 'number') return { kind: 'token-label', token: b };
  if (a === 'ln_f' && (b === 'gamma' || b === 'beta')) return { kind: 'norm', which: 'ln_f', layer: -1, param: b, index: num(c) };
  if ((a === 'ln1' || a === 'ln2') && (b === 'gamma' || b === 'beta')) return { kind: 'norm', which: a, layer, param: b, index: num(c) };
  if (a === 'head') {
    if (b === 'vocab' && typeof c === 'number') return { kind: 'vocab', index: c };
    if (b === 'b') return { kind: 'bias', param: 'b', layer: -1, index: num(c) };
    if (b === 'W') return matrixRole('W', -1, num(c), num(d), layout);
    return null;
  }
  if ((a === 'ffn' || a === 'attention') && b === undefined) return { kind: 'sublayer', what: a, layer };
  if (a === 'ffn' || a === 'attention') {
    if (typeof b !== 'string') return null;
    if (MATRICES.has(b)) return matrixRole(b as MatrixParam, layer, num(c), num(d), layout);
    if (BIASES.has(b)) return { kind: 'bias', param: b as BiasParam, layer, index: num(c) };
  }
  return null;
}

function matrixRole(param: MatrixParam, layer: number, row: number | null, col: number | null, layout: Layout): Role {
  if (row === null) return { kind: 'matrix', param, layer };
  // out_in: [out][in]; in_out: [in][out]
  const out = layout === 'out_in' ? row : col;
  const inp = layout === 'out_in' ? col : row;
  return { kind: 'weight', param, layer, row, col, out, inp };
}

/** What a matrix does, in words. */
export function matrixMeaning(param: MatrixParam): { name: string; outUnit: string; inUnit: string } {
  switch (param) {
    case 'W1': return { name: 'up-projection', outUnit: 'neuron', inUnit: 'input dimension' };
    case 'Wg': return { name: 'gate projection', outUnit: 'neuron', inUnit: 'input dimension' };
    case 'W2': return { name: 'down-projection', outUnit: 'output dimension', inUnit: 'neuron' };
    case 'Wq': return { name: 'query projection', outUnit: 'query dimension', inUnit: 'input dimension' };
    case 'Wk': return { name: 'key projection', outUnit: 'key dimension', inUnit: 'input dimension' };
    case 'Wv': return { name: 'value projection', outUnit: 'value dimension', inUnit: 'input dimension' };
    case 'Wo': return { name: 'output projection', outUnit: 'output dimension', inUnit: 'context dimension' };
    case 'W': return { name: 'unembedding (prediction head)', outUnit: 'word', inUnit: 'dimension' };
  }
}
