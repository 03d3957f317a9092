// From a cell of a stage to the numbers in the file it comes from: clicking a heatmap cell
// reveals them in the editor. The block graph says what each stage's cells are made of
// (StageView.source: the unit of a weight matrix, or a norm's gain); without one, the input
// numbers of the cell's token.

import type { Model } from '../core/model';
import type { StageView } from '../protocol/stages';
import { elementRanges, type JsonNode, type Source } from './jsonc';
import { formatPath, type PathSegment } from './problems';
import type { ReadResult } from './read';
import { nodeAt } from './tree';
import { quote } from '../common/quote';

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

const UNIT: Record<StageView['cols'], string> = { token: 'token', dim: 'dimension', neuron: 'neuron', 'head-dim': 'dimension', key: 'key', vocab: 'word' };

/** The text behind cell `index` of `stage`, or null if no single place fits. */
export function locateStageCell(text: Source, read: ReadResult, model: Model, vocab: readonly string[], tokens: readonly string[], stage: StageView, index: readonly number[]): Location | null {
  const root = read.json.root;
  const last = index[index.length - 1];
  if (stage.source) {
    for (const id of stage.source.params) {
      const at = read.paramNodes.get(id);
      const p = model.params.get(id);
      if (!at || !p) continue;
      const name = formatPath(at.path);
      const key = at.path[at.path.length - 1];
      const unit = stage.source.perHead ? index[0] * stage.shape[2] + last : last;
      const word = stage.cols === 'vocab' ? quote(vocab[unit] ?? String(unit)) : `${UNIT[stage.cols]} ${unit}`;
      const who = stage.source.perHead ? `head ${index[0]}, dimension ${last}` : word;
      if (p.shape.length === 1) {
        const r = rangeOf(text, root, [...at.path, unit]);
        if (r) return { ...r, path: `${name}[${unit}]`, what: `${key} of ${word}` };
        continue;
      }
      // a matrix's unit is a row in out_in, a column in in_out (whose first number a selection can show)
      if (p.layout !== 'in_out') {
        const r = rangeOf(text, root, [...at.path, unit]);
        if (r) return { ...r, path: `${name}[${unit}]`, what: `${who}'s weights (row ${unit} of ${key})` };
      } else {
        const r = rangeOf(text, root, [...at.path, 0, unit]);
        if (r) return { ...r, path: `${name}[0][${unit}]`, what: `${who}'s weights (column ${unit} of ${key}, layout in_out)` };
      }
    }
  }
  // the input numbers of the cell's token (a dimension of it where the cell's column is one)
  const t = stage.perHead ? index[1] : index[0];
  const dim = stage.cols === 'dim' && !stage.perHead ? last : stage.cols === 'head-dim' ? index[0] * stage.shape[2] + last : null;
  const input = read.paramNodes.get('input');
  if (!input) return null;
  const path: PathSegment[] = dim === null ? [...input.path, t] : [...input.path, t, dim];
  const r = rangeOf(text, root, path);
  const tok = quote(tokens[t] ?? `t${t}`);
  return r && { ...r, path: formatPath(path), what: dim === null ? `the vector of token ${tok}` : `dimension ${dim} of token ${tok}` };
}
