// A model file that points at a checkpoint (checkpoints-v1 of the format): what the reader finds
// in it, with where each part stands in the text, before the checkpoint is read. What needs the
// checkpoint to check (a layer that exists, a row of the right length, an id inside the
// vocabulary) is checked when it is resolved (src/checkpoint/resolve.ts), and reported at these
// places.
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
}

// (numbers of at most 9 digits: more names no unit of any model, and a name of a million digits is not quoted whole)
const UNIT = /^layers\.(\d{1,9})\.(ffn\.neuron|attn\.head)\.(\d{1,9})$/;

export function parseUnit(text: string): { layer: number; kind: 'neuron' | 'head'; index: number } | null {
  const m = UNIT.exec(text);
  return m ? { layer: Number(m[1]), kind: m[2] === 'ffn.neuron' ? 'neuron' : 'head', index: Number(m[3]) } : null;
}

const TARGET = /^(layers\.\d{1,9}\.(?:ffn\.(?:W1|Wg|W2|b1|bg|b2)|attn\.(?:Wq|Wk|Wv|Wo|bq|bk|bv|bo)|ln[12]\.(?:gamma|beta))|ln_f\.(?:gamma|beta)|embed)((?:\[\d{1,9}\]){0,2})$/;

/** The matrix params an override names by row (the others are vectors). */
export function isMatrixParam(param: string): boolean {
  return param === 'embed' || /\.(W1|Wg|W2|Wq|Wk|Wv|Wo)$/.test(param);
}

export function parseTarget(text: string): { param: string; row: number | null; col: number | null } | null {
  const m = TARGET.exec(text);
  if (!m) return null;
  const idx = [...m[2].matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]));
  return { param: m[1], row: idx[0] ?? null, col: idx[1] ?? null };
}

/** Examples for messages: the forms a `weights` key takes. */
export const TARGET_FORMS = '"layers.0.ffn.W1[3]" (a row), "layers.0.ffn.W1[3][5]" (one number), "layers.0.ffn.b1" (a vector), "layers.0.ln1.gamma[2]", "embed[5]"';
