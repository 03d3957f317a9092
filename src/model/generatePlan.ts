// What a generated model file holds, in file order: its JSON lines and its tensors, each with its
// shape and the distribution its numbers are drawn from. A layer's tensors come from the parameter
// table (src/core/paramTable.ts), written in the format's key order (format.ts): a new parameter
// the format can hold is generated with no change here.
//
// Initialization (GPT-2-like, scaled so activations stay near unit size):
//   weight matrices  N(0, 1/fan_in)        (std 1/sqrt of the matrix's input size)
//   biases           N(0, 0.02^2)
//   LayerNorm        gamma = 1 + N(0, 0.05^2), beta N(0, 0.02^2)
//   input            N(0, 1)

import { isGated } from '../core/activation';
import { paramId, PARAM } from '../core/ids';
import { shapeOf, sublayerParams, type ParamDim, type ParamRow, type Sublayer } from '../core/paramTable';
import { ATTENTION_FIELDS, FFN_FIELDS, LAYERNORM_FIELDS, type Fields } from './format';
import type { ResolvedOptions } from './generateOptions';
import type { ParamCounts } from '../core/paramCounts';

export interface Dist { readonly mean: number; readonly std: number }
const BIAS: Dist = { mean: 0, std: 0.02 };
const GAMMA: Dist = { mean: 1, std: 0.05 };
const BETA: Dist = { mean: 0, std: 0.02 };
const fanIn = (n: number): Dist => ({ mean: 0, std: 1 / Math.sqrt(n) });

/** Which count of the panel's summary a tensor adds to (the input: none). */
type Part = keyof Omit<ParamCounts, 'total'> | null;

/** The file's lines and tensors, in file order, with the indentation of their key. */
export type Item =
  | { kind: 'line'; text: string }
  | { kind: 'matrix'; key: string; path: string; rows: number; cols: number; dist: Dist; indent: string; last: boolean; part: Part }
  | { kind: 'vector'; key: string; path: string; length: number; dist: Dist; indent: string; last: boolean; part: Part };

function json(s: string): string {
  return JSON.stringify(s);
}

/** The lines and tensors of the file `spec` describes. */
export function plan(spec: ResolvedOptions): Item[] {
  const items: Item[] = [];
  const line = (text: string): void => {
    items.push({ kind: 'line', text });
  };
  const C = spec.dModel;
  const hasHead = spec.vocab.length > 0;
  line('{');
  line(`  "version": 1,`);
  line(`  "name": ${json(spec.name)},`);
  line(`  "layout": "out_in",`);
  line(`  "norm": "pre",`);
  line(`  "residual": true,`);
  if (hasHead) line(`  "final_norm": true,`);
  line(`  "tokens": [${spec.tokens.map(json).join(', ')}],`);
  items.push({ kind: 'matrix', key: 'input', path: paramId(-1, PARAM.input), rows: spec.seq, cols: C, dist: { mean: 0, std: 1 }, indent: '  ', last: false, part: null });

  const shorthand = spec.layers === 1;
  if (!shorthand) line(`  "layers": [`);
  for (let l = 0; l < spec.layers; l++) {
    if (!shorthand) line('    {');
    layerItems(spec, l, shorthand ? '  ' : '    ', shorthand ? !hasHead : true, items);
    if (!shorthand) line(`    }${l === spec.layers - 1 ? '' : ','}`);
  }
  if (!shorthand) line(`  ]${hasHead ? ',' : ''}`);
  if (hasHead) {
    line(`  "ln_f": {`);
    items.push({ kind: 'vector', key: 'gamma', path: paramId(-1, PARAM.lnFGamma), length: C, dist: GAMMA, indent: '    ', last: false, part: 'norm' });
    items.push({ kind: 'vector', key: 'beta', path: paramId(-1, PARAM.lnFBeta), length: C, dist: BETA, indent: '    ', last: true, part: 'norm' });
    line(`  },`);
    line(`  "head": {`);
    line(`    "vocab": [${spec.vocab.map(json).join(', ')}],`);
    items.push({ kind: 'matrix', key: 'W', path: paramId(-1, PARAM.headW), rows: spec.vocab.length, cols: C, dist: fanIn(C), indent: '    ', last: true, part: 'head' });
    line(`  }`);
  }
  line('}');
  return items;
}

/** Layer `l`'s sublayers, their keys at indentation `ind`; `closeLast`: its FFN is the last key of its object. */
function layerItems(spec: ResolvedOptions, l: number, ind: string, closeLast: boolean, items: Item[]): void {
  const line = (text: string): void => {
    items.push({ kind: 'line', text });
  };
  const dims: Record<ParamDim, number> = { C: spec.dModel, F: spec.dFf, Q: spec.dModel, KV: spec.dModel, HS: spec.dModel / spec.heads, NH: spec.heads };
  const gated = isGated(spec.activation);
  const tensors = (sub: Sublayer, fields: Fields): void => {
    const rows = written(sub, fields, gated);
    rows.forEach((row, i) => items.push(tensorItem(row, l, dims, ind + '  ', i === rows.length - 1)));
  };
  line(`${ind}"ln1": {`);
  tensors('ln1', LAYERNORM_FIELDS);
  line(`${ind}},`);
  line(`${ind}"attention": {`);
  line(`${ind}  "heads": ${spec.heads},`);
  line(`${ind}  "causal": ${spec.causal},`);
  tensors('attention', ATTENTION_FIELDS);
  line(`${ind}},`);
  line(`${ind}"ln2": {`);
  tensors('ln2', LAYERNORM_FIELDS);
  line(`${ind}},`);
  line(`${ind}"ffn": {`);
  line(`${ind}  "activation": ${json(spec.activation)},`);
  tensors('ffn', FFN_FIELDS);
  line(`${ind}}${closeLast ? '' : ','}`);
}

/** A sublayer's tensors as a file writes them: those it has a key for, in the format's key order; the gate only for a gated activation. */
function written(sub: Sublayer, fields: Fields, gated: boolean): ParamRow[] {
  const order = Object.keys(fields);
  const isGate = (r: ParamRow): boolean => r.kind === PARAM.Wg || r.of === PARAM.Wg;
  return sublayerParams(sub)
    .filter((r) => r.key !== null && (gated || !isGate(r)))
    .sort((a, b) => order.indexOf(a.key!) - order.indexOf(b.key!));
}

/**
 * One tensor of layer `layer`. Its random stream is named by its key's path in a file of layers
 * (`layers.0.attention.Wq`): the names the generator has always used, so a seed gives the bytes it gave.
 */
function tensorItem(row: ParamRow, layer: number, dims: Readonly<Record<ParamDim, number>>, indent: string, last: boolean): Item {
  const key = row.key!;
  const path = paramId(layer, `${row.sub}.${key}`);
  const shape = shapeOf(row, dims);
  const part: Part = row.sub === 'attention' ? 'attention' : row.sub === 'ffn' ? 'ffn' : 'norm';
  if (row.role === 'matrix') return { kind: 'matrix', key, path, rows: shape[0], cols: shape[1], dist: fanIn(shape[1]), indent, last, part };
  const dist = row.role === 'gain' ? GAMMA : row.role === 'shift' ? BETA : BIAS;
  return { kind: 'vector', key, path, length: shape[0], dist, indent, last, part };
}

/** The parameters of the file, by part, as the reader counts them (the input is not one). */
export function countParams(spec: ResolvedOptions): ParamCounts {
  const n = { attention: 0, ffn: 0, norm: 0, head: 0 };
  for (const it of plan(spec)) {
    if (it.kind === 'line' || it.part === null) continue;
    n[it.part] += it.kind === 'matrix' ? it.rows * it.cols : it.length;
  }
  return { ...n, total: n.attention + n.ffn + n.norm + n.head };
}
