// Every id FFN Lens speaks, written and taken apart here only (as TransformerLens builds every hook
// name with get_act_name). No other file builds an id by template or parses one by regex.
//
//   stage   `input`  `layers.3.attn.q`  `layers.3.ffn.act`  `ln_f`  `output`  `head.probs`  `layers.3.lens.logits`
//   param   `embed`  `pos`  `input`  `layers.3.ffn.W1`  `layers.3.ln1.gamma`  `ln_f.beta`  `head.W`
//   unit    `layers.3.ffn.neuron.17`  `layers.3.attn.head.2`
//
// A layer's parameters are listed once in LAYER_PARAMS (src/core/paramTable.ts reads their shapes).

/** Stage kinds: a layer's (`layers.i.` + kind) and the model's own (the id is the kind). */
export const STAGE = {
  input: 'input',
  ln1: 'ln1',
  q: 'attn.q',
  k: 'attn.k',
  v: 'attn.v',
  scores: 'attn.scores',
  weights: 'attn.weights',
  context: 'attn.context',
  attnOut: 'attn.out',
  attnResidual: 'attn.residual',
  ln1Post: 'ln1_post',
  ln2: 'ln2',
  up: 'ffn.up',
  gate: 'ffn.gate',
  act: 'ffn.act',
  down: 'ffn.down',
  ffnResidual: 'ffn.residual',
  ln2Post: 'ln2_post',
  out: 'out',
  lnF: 'ln_f',
  output: 'output',
  logits: 'head.logits',
  probs: 'head.probs',
  lens: 'lens.logits',
} as const;

export type StageKind = (typeof STAGE)[keyof typeof STAGE];

/** A stage id taken apart. */
export interface StageName {
  /** The layer of a `layers.i.…` id, else -1. */
  readonly layer: number;
  /** The id without `layers.i.`: `attn.q`, `ffn.up`, `out`, `input`, `head.logits`. */
  readonly kind: string;
}

const LAYER_PREFIX = 'layers.';

/** `layers.i.rest` → [i, rest]; null for anything else (a layer of at most 9 digits). */
function splitLayer(id: string): [number, string] | null {
  if (!id.startsWith(LAYER_PREFIX)) return null;
  const dot = id.indexOf('.', LAYER_PREFIX.length);
  const digits = id.slice(LAYER_PREFIX.length, dot);
  if (dot < 0 || digits.length === 0 || digits.length > 9 || !/^\d+$/.test(digits)) return null;
  return [Number(digits), id.slice(dot + 1)];
}

function join(layer: number, rest: string): string {
  return layer < 0 ? rest : `${LAYER_PREFIX}${layer}.${rest}`;
}

export function stageId(layer: number, kind: string): string {
  return join(layer, kind);
}

export function parseStageId(id: string): StageName {
  const m = splitLayer(id);
  return m && m[1] !== '' ? { layer: m[0], kind: m[1] } : { layer: -1, kind: id };
}

/** Param kinds: a layer's (`layers.i.` + kind) and the model's own. */
export const PARAM = {
  Wq: 'attn.Wq', bq: 'attn.bq', Wk: 'attn.Wk', bk: 'attn.bk', Wv: 'attn.Wv', bv: 'attn.bv', Wo: 'attn.Wo', bo: 'attn.bo',
  qNorm: 'attn.q_norm.gamma', kNorm: 'attn.k_norm.gamma',
  headUnits: 'attn.units',
  W1: 'ffn.W1', b1: 'ffn.b1', Wg: 'ffn.Wg', bg: 'ffn.bg', W2: 'ffn.W2', b2: 'ffn.b2',
  neuronUnits: 'ffn.units',
  ln1Gamma: 'ln1.gamma', ln1Beta: 'ln1.beta', ln2Gamma: 'ln2.gamma', ln2Beta: 'ln2.beta',
  ln1PostGamma: 'ln1_post.gamma', ln2PostGamma: 'ln2_post.gamma',
  embed: 'embed', pos: 'pos', input: 'input',
  lnFGamma: 'ln_f.gamma', lnFBeta: 'ln_f.beta',
  headW: 'head.W', headB: 'head.b',
} as const;

export type ParamKind = (typeof PARAM)[keyof typeof PARAM];

/** A param id taken apart: `layers.3.ffn.W1` → {layer 3, kind `ffn.W1`}; `head.W` → {layer -1}. */
export type ParamName = StageName;

export function paramId(layer: number, kind: string): string {
  return join(layer, kind);
}

export function parseParamId(id: string): ParamName {
  return parseStageId(id);
}

/** The params of a norm at `prefix` (`layers.0.ln1`, `ln_f`): its gain and shift. */
export function normParams(prefix: string): { gamma: string; beta: string } {
  return { gamma: `${prefix}.gamma`, beta: `${prefix}.beta` };
}

/** The norm a gain or shift belongs to: `layers.0.ln1.gamma` → `layers.0.ln1`; null if it is not one. */
export function normOf(param: string): string | null {
  const m = /^(.+)\.(gamma|beta)$/.exec(param);
  return m ? m[1] : null;
}

/** Units: a neuron of a layer's FFN, a head of its attention. */
export type UnitKind = 'neuron' | 'head';

export interface UnitName {
  readonly kind: UnitKind;
  readonly layer: number;
  readonly index: number;
}

const UNIT_PART: Record<UnitKind, string> = { neuron: 'ffn.neuron', head: 'attn.head' };

export function unitId(kind: UnitKind, layer: number, index: number): string {
  return join(layer, `${UNIT_PART[kind]}.${index}`);
}

/** `layers.3.ffn.neuron.17` → {neuron, 3, 17}; null for anything else (numbers of at most 9 digits). */
export function parseUnitId(id: string): UnitName | null {
  const m = splitLayer(id);
  if (!m) return null;
  for (const kind of ['neuron', 'head'] as const) {
    const part = `${UNIT_PART[kind]}.`;
    if (!m[1].startsWith(part)) continue;
    const digits = m[1].slice(part.length);
    return /^\d{1,9}$/.test(digits) ? { kind, layer: m[0], index: Number(digits) } : null;
  }
  return null;
}

/** The stage whose columns a unit's numbers are (a neuron: `ffn.act`'s; a head: `attn.context`'s slice). */
export function unitStage(kind: UnitKind, layer: number): string {
  return stageId(layer, kind === 'neuron' ? STAGE.act : STAGE.context);
}

/** The per-unit scale vector a layer's units are multiplied by (ablate = 0, scale = f). */
export function unitScales(kind: UnitKind, layer: number): string {
  return paramId(layer, kind === 'neuron' ? PARAM.neuronUnits : PARAM.headUnits);
}

/** A sublayer as a whole, `layers.3.ffn` or `layers.3.attn` (a part of a direct logit attribution). */
export function sublayerId(layer: number, part: 'attn' | 'ffn'): string {
  return join(layer, part);
}
