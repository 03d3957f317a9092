// From a cell of a stage to the numbers in the file it comes from: clicking a heatmap cell
// reveals them in the editor. Each stage maps to the weight row (a neuron, an output
// dimension) or the input number that the cell is most directly made of.

import { stageKind, stageLayer } from '../core/stages';
import { elementRanges, type JsonNode, type Source } from './jsonc';
import { formatPath, type PathSegment } from './problems';
import type { ModelFile } from './read';
import { layerPath, nodeAt } from './tree';

export interface Location {
  readonly start: number;
  readonly end: number;
  readonly path: string;
  /** In words: "neuron 12's weights (row 12 of W1)". */
  readonly what: string;
}

function rangeOf(text: Source, root: JsonNode | null, path: readonly PathSegment[]): { start: number; end: number } | null {
  // A number inside a fast-path row has no node of its own: find it by scanning the row again.
  const last = path[path.length - 1];
  const parent = typeof last === 'number' ? nodeAt(root, path.slice(0, -1)) : null;
  if (parent && parent.kind === 'numbers') {
    const r = elementRanges(text, parent)[last as number];
    return r ? { start: r[0], end: r[1] } : null;
  }
  const n = nodeAt(root, path);
  return n ? { start: n.start, end: n.end } : null;
}

/**
 * A weight matrix's "row r" in the out_in sense (output unit r): row r in out_in, column r in
 * in_out — for a column we select its first number, the best a text selection can do.
 */
function unitOf(text: Source, root: JsonNode | null, m: ModelFile, base: PathSegment[], key: string, r: number, role: string): Location | null {
  const path = [...base, key];
  if (!nodeAt(root, path)) return null;
  const name = formatPath(path);
  if (m.weights.layout === 'out_in') {
    const at = rangeOf(text, root, [...path, r]);
    return at && { ...at, path: `${name}[${r}]`, what: `${role} (row ${r} of ${key})` };
  }
  const at = rangeOf(text, root, [...path, 0, r]);
  return at && { ...at, path: `${name}[0][${r}]`, what: `${role} (column ${r} of ${key}, layout in_out)` };
}

function inputCell(text: Source, root: JsonNode | null, m: ModelFile, t: number, c: number | null): Location | null {
  const path: PathSegment[] = c === null ? ['input', t] : ['input', t, c];
  const at = rangeOf(text, root, path);
  const tok = m.tokens[t] ?? `t${t}`;
  return at && { ...at, path: formatPath(path), what: c === null ? `the vector of token "${tok}"` : `dimension ${c} of token "${tok}"` };
}

/** The text behind cell `index` of stage `stageId`, or null if no single place fits. */
export function locateStageCell(text: Source, root: JsonNode | null, m: ModelFile, stageId: string, index: readonly number[]): Location | null {
  const kind = stageKind(stageId);
  const layer = stageLayer(stageId);
  const base = layer >= 0 ? layerPath(root, layer) : [];
  const C = m.weights.C;
  const [a, b, c] = index;
  switch (kind) {
    case 'input':
    case 'attn.residual': case 'ffn.residual': case 'out': case 'output':
      return inputCell(text, root, m, a, b);
    case 'ffn.up': case 'ffn.act':
      return unitOf(text, root, m, [...base, 'ffn'], 'W1', b, `neuron ${b}'s weights`);
    case 'ffn.gate':
      return unitOf(text, root, m, [...base, 'ffn'], 'Wg', b, `neuron ${b}'s gate weights`);
    case 'ffn.down':
      return unitOf(text, root, m, [...base, 'ffn'], 'W2', b, `output dimension ${b}'s weights over the neurons`);
    case 'attn.q': case 'attn.k': case 'attn.v': {
      const key = { 'attn.q': 'Wq', 'attn.k': 'Wk', 'attn.v': 'Wv' }[kind];
      const heads = m.weights.layers[layer]?.attention?.heads ?? 1;
      const col = a * (C / heads) + c;
      return unitOf(text, root, m, [...base, 'attention'], key, col, `head ${a}, dimension ${c} (column ${col} of ${key.slice(1).toUpperCase()})`)
        ?? inputCell(text, root, m, b, col);
    }
    case 'attn.scores': case 'attn.weights':
      return inputCell(text, root, m, b, null);
    case 'attn.context':
      return unitOf(text, root, m, [...base, 'attention'], 'Wv', b, `value dimension ${b}`) ?? inputCell(text, root, m, a, b);
    case 'attn.out':
      return unitOf(text, root, m, [...base, 'attention'], 'Wo', b, `output dimension ${b}`) ?? inputCell(text, root, m, a, b);
    case 'ln1': case 'ln2': case 'ln_f': {
      const lnPath = kind === 'ln_f' ? ['ln_f'] : [...base, kind];
      for (const key of ['gamma', 'beta']) {
        const at = rangeOf(text, root, [...lnPath, key, b]);
        if (at) return { ...at, path: formatPath([...lnPath, key, b]), what: `${kind} ${key} of dimension ${b}` };
      }
      return inputCell(text, root, m, a, b);
    }
    case 'head.logits': case 'head.probs':
      return unitOf(text, root, m, ['head'], 'W', b, `the weights of "${m.vocab[b] ?? b}"`);
  }
  return null;
}
