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

// Sparse autoencoders. An SAE reads one stage of the stream (its site) and its ids begin with the
// site's: `layers.12.sae` at a layer's output (`layers.12.out`, the common case), `<site>.sae`
// elsewhere (`layers.12.attn.out.sae`, `layers.3.ffn.down.sae`, `input.sae`), so two SAEs of one
// layer never share an id. Under it: its stages (`.acts`, `.recon`, `.error`, `.out`), its
// features (`layers.12.sae.1234`) and its params (`layers.12.sae.W_enc`).

/** An SAE's stages: its features' activations, its reconstruction, the error, the stream downstream reads. */
export const SAE_PART = { acts: 'acts', recon: 'recon', error: 'error', out: 'out' } as const;
export type SaePart = (typeof SAE_PART)[keyof typeof SAE_PART];

/** An SAE's params: its weights (SAELens' names) and the per-feature edits (`sae_scale`/`sae_ablate`, `sae_clamp`). */
export const SAE_PARAM = { Wenc: 'W_enc', benc: 'b_enc', Wdec: 'W_dec', bdec: 'b_dec', threshold: 'threshold', scale: 'scale', clamp: 'clamp' } as const;
export type SaeParamKind = (typeof SAE_PARAM)[keyof typeof SAE_PARAM];

const SAE_WORD = 'sae';

/** The prefix of every id of the SAE at stage `site`. */
export function saePrefix(site: string): string {
  const { layer, kind } = parseStageId(site);
  return layer >= 0 && kind === STAGE.out ? join(layer, SAE_WORD) : `${site}.${SAE_WORD}`;
}

export function saeStageId(site: string, part: SaePart): string {
  return `${saePrefix(site)}.${part}`;
}

export function saeFeatureId(site: string, index: number): string {
  return `${saePrefix(site)}.${index}`;
}

export function saeParamId(site: string, kind: SaeParamKind): string {
  return `${saePrefix(site)}.${kind}`;
}

/** An SAE id taken apart: its site and what under it (a stage part, a feature, a param). */
export type SaeName =
  | { readonly site: string; readonly part: SaePart }
  | { readonly site: string; readonly feature: number }
  | { readonly site: string; readonly param: SaeParamKind };

/** `layers.12.sae.1234` → {site `layers.12.out`, feature 1234}; null for an id of no SAE (features of at most 9 digits). */
export function parseSaeId(id: string): SaeName | null {
  const mark = `.${SAE_WORD}.`;
  const at = id.lastIndexOf(mark);
  if (at <= 0) return null;
  const head = id.slice(0, at);
  const tail = id.slice(at + mark.length);
  const m = splitLayer(`${head}.`);
  const site = m && m[1] === '' ? stageId(m[0], STAGE.out) : head;
  if (saePrefix(site) !== `${head}.${SAE_WORD}`) return null; // (`layers.3.out.sae.…` is written `layers.3.sae.…`)
  if (/^\d{1,9}$/.test(tail)) return { site, feature: Number(tail) };
  const part = Object.values(SAE_PART).find((p) => p === tail);
  if (part) return { site, part };
  const param = Object.values(SAE_PARAM).find((p) => p === tail);
  return param ? { site, param } : null;
}

// Steering (the `steer` key). A steered stage is followed by the stage later stages read in its
// place, named as an SAE's are: `layers.6.steer` after `layers.6.out`, `<site>.steer` elsewhere
// (`layers.6.attn.out.steer`, `input.steer`); its vector (alpha·v) is the param `<that>.vector`.

const STEER_WORD = 'steer';

/** The stage that is `site` steered. */
export function steerStageId(site: string): string {
  const { layer, kind } = parseStageId(site);
  return layer >= 0 && kind === STAGE.out ? join(layer, STEER_WORD) : `${site}.${STEER_WORD}`;
}

/** Whether `id` is a steered stage (`layers.6.steer`, `layers.6.attn.out.steer`, `input.steer`). */
export function isSteerStage(id: string): boolean {
  const { kind } = parseStageId(id);
  return kind === STEER_WORD || kind.endsWith(`.${STEER_WORD}`);
}

/** The steer's vector at `site`: alpha·v, [1, C] (one row at every position steered) or [n, C] (row r at the r-th position given). */
export function steerParamId(site: string): string {
  return `${steerStageId(site)}.vector`;
}
