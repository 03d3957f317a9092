// A model file that points at a checkpoint (checkpoints-v1 of the format): what the reader finds
// in it, with where each part stands in the text, before the checkpoint is read. What needs the
// checkpoint to check (a layer that exists, a row of the right length, an id inside the
// vocabulary) is checked when it is resolved (src/checkpoint/resolve.ts), and reported at these
// places.
import { PARAM, paramId, parseParamId, parseUnitId, type UnitName } from '../core/ids';
import { isMatrixKind, LAYER_PARAMS, type ParamRole } from '../core/paramTable';
import type { PathSegment } from './problems';

/** Where a key's value stands: its range in the text and its JSON path. */
export interface At {
  readonly start: number;
  readonly end: number;
  readonly path: readonly PathSegment[];
  /** An array's items, where each is (a problem of one entry is shown at it). */
  readonly items?: ReadonlyArray<{ readonly start: number; readonly end: number }>;
}

/** Where item `i` of the array at `at` is, with its path (the whole array if it is not known). */
export function itemAt(at: At, i: number): At {
  const item = at.items?.[i];
  return { start: item?.start ?? at.start, end: item?.end ?? at.end, path: [...at.path, i] };
}

/** `layers.3.ffn.neuron.17` or `layers.3.attn.head.2`. */
export interface UnitRef {
  readonly layer: number;
  readonly kind: 'neuron' | 'head';
  readonly index: number;
  readonly text: string;
  readonly at: At;
}

/**
 * An override of the checkpoint's numbers: `layers.0.ffn.W1[2]` (a row: out_in, whatever the
 * checkpoint stores), `layers.0.ffn.W1[2][5]` (one number), `layers.0.ffn.b1` (the whole vector),
 * `layers.0.ffn.b1[3]`, `embed[5]` (a token's embedding row).
 */
export interface WeightOverride {
  /** The core's param id (src/core/params.ts): `layers.0.ffn.W1`, `ln_f.gamma`, `embed`. */
  readonly param: string;
  readonly row: number | null;
  readonly col: number | null;
  readonly values: Float32Array;
  readonly text: string;
  readonly at: At;
}

export interface CheckpointRequest {
  readonly name: string;
  readonly folder: string;
  readonly folderAt: At;
  readonly tokenizer: string | null;
  readonly tokenizerAt: At | null;
  readonly prompt: string | null;
  readonly promptAt: At | null;
  readonly tokenIds: readonly number[] | null;
  readonly tokenIdsAt: At | null;
  readonly tokens: readonly string[] | null;
  readonly tokensAt: At | null;
  readonly ablate: readonly UnitRef[];
  readonly scale: ReadonlyArray<UnitRef & { readonly factor: number }>;
  readonly weights: readonly WeightOverride[];
  readonly temperature: number;
  readonly lens: boolean;
  /** The second input of activation patching, as text or as ids (or neither). */
  readonly corruptedPrompt: string | null;
  readonly corruptedPromptAt: At | null;
  readonly corruptedIds: readonly number[] | null;
  readonly corruptedIdsAt: At | null;
  /** `saes` and the feature edits (readSaeKeys.ts); empty when the file has none. */
  readonly saes: readonly SaeRef[];
  readonly saeEdits: readonly SaeEdit[];
  /** `generate` (readGenerate.ts), or null when the file does not ask for generation. */
  readonly generate: GenerateRequest | null;
  /** `steer` (readSteerKeys.ts); empty when the file has none. */
  readonly steers?: readonly SteerRef[];
}

/** Where a steer's v comes from: the numbers given, an SAE feature's decoder row, or two prompts (ActAdd). */
export type SteerSource =
  | { readonly kind: 'vector'; readonly values: Float32Array }
  | { readonly kind: 'feature'; readonly site: string; readonly feature: number; readonly text: string }
  | { readonly kind: 'contrast'; readonly prompts: readonly [string, string] };

/** A stage steered: `"layers.6.out": { "vector" | "feature" | "contrast": …, "alpha": 4, "positions": "all" }`. */
export interface SteerRef {
  readonly site: string;
  /** The key (the stage's name). */
  readonly siteAt: At;
  readonly source: SteerSource;
  /** The value of vector, feature or contrast. */
  readonly sourceAt: At;
  readonly alpha: number;
  readonly positions: 'all' | 'last' | readonly number[];
  readonly positionsAt: At | null;
}

/** An SAE the file attaches: its folder as written and the stage it reads. */
export interface SaeRef {
  readonly path: string;
  readonly site: string;
  readonly pathAt: At;
  readonly siteAt: At;
  /** expected_average_only_in's factor, where the SAE's cfg.json does not give it. */
  readonly scalingFactor?: number;
}

/** A feature edit: `sae_ablate` (value 0), `sae_scale` (a factor), `sae_clamp` (the value it is held at). */
export interface SaeEdit {
  readonly site: string;
  readonly feature: number;
  readonly kind: 'ablate' | 'scale' | 'clamp';
  readonly value: number;
  readonly text: string;
  readonly at: At;
}

/** What `generate` asks for, defaults filled in (format.ts's GENERATE_FIELDS). */
export interface GenerateRequest {
  readonly tokens: number;
  /** 0: greedy. */
  readonly temperature: number;
  readonly topK: number;
  readonly seed: number;
  readonly at: At;
  /** Where `tokens` stands (the key itself, or `generate` when it is left to its default). */
  readonly tokensAt: At;
}

/** `layers.3.ffn.neuron.17` → {3, neuron, 17}; null for anything else (numbers of at most 9 digits: more names no unit of any model). */
export function parseUnit(text: string): UnitName | null {
  return parseUnitId(text);
}

/** The roles of the layer params a `weights` override may name: those a checkpoint stores (not the unit scales). */
const OVERRIDE_ROLES: ReadonlySet<ParamRole> = new Set(['matrix', 'bias', 'gain', 'shift']);
// (gemma's post-norms, architectures v2, are not in checkpoints-v1's roles yet)
const NOT_YET = new Set(['ln1_post', 'ln2_post']);

/** Layer param kinds a `weights` key names (`ffn.W1`, `attn.bq`, `ln1.gamma`), from the param table. */
const LAYER_TARGETS: ReadonlySet<string> = new Set(
  LAYER_PARAMS.filter((r) => r.key !== null && OVERRIDE_ROLES.has(r.role) && !NOT_YET.has(r.sub)).map((r) => r.kind),
);
/** And the model's own. */
const MODEL_TARGETS: ReadonlySet<string> = new Set([PARAM.lnFGamma, PARAM.lnFBeta, PARAM.embed]);

/** The matrix params an override names by row (the others are vectors). */
export function isMatrixParam(param: string): boolean {
  return param === PARAM.embed || isMatrixKind(parseParamId(param).kind);
}

export function parseTarget(text: string): { param: string; row: number | null; col: number | null } | null {
  const bracket = text.indexOf('[');
  const param = bracket < 0 ? text : text.slice(0, bracket);
  const indices = bracket < 0 ? '' : text.slice(bracket);
  if (!/^(?:\[\d{1,9}\]){0,2}$/.test(indices)) return null;
  const { layer, kind } = parseParamId(param);
  if (!(layer >= 0 ? LAYER_TARGETS : MODEL_TARGETS).has(kind)) return null;
  const idx = [...indices.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]));
  // (the param as written: `layers.01.ffn.W1` names no param of the checkpoint, and resolve says so)
  return { param, row: idx[0] ?? null, col: idx[1] ?? null };
}

/** The `weights` key of a neuron's input weights: its row of the up-projection W1. */
export function neuronInputRow(layer: number, neuron: number): string {
  return `${paramId(layer, PARAM.W1)}[${neuron}]`;
}

/** Examples for messages: the forms a `weights` key takes. */
export const TARGET_FORMS = '"layers.0.ffn.W1[3]" (a row), "layers.0.ffn.W1[3][5]" (one number), "layers.0.ffn.b1" (a vector), "layers.0.ln1.gamma[2]", "embed[5]"';
