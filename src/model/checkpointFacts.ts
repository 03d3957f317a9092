// What a checkpoint model file is made of once its checkpoint has answered: the request the reader
// found (checkpointRequest.ts), the checkpoint and tokenizer that resolved it. The types live here,
// below src/checkpoint/ (resolve.ts fills them in), so that a ModelFile can hold them without the
// model layer importing the checkpoint layer.

import type { Model } from '../core/model';
import type { Params } from '../core/params';
import type { ModelSpec } from '../core/spec';
import type { CheckpointRequest } from './checkpointRequest';

/** What the tokenizer gives resolve (src/tokenizer): ids of a prompt, and a label per id. */
export interface PromptTokenizer {
  encode(text: string): { readonly ids: readonly number[] };
  label(id: number): string;
  /** The bytes a token stands for, as the decoder joins them (generated text is decoded from them); null outside the vocabulary. */
  bytes?(id: number): Uint8Array | null;
}

/** What resolve needs of a loaded checkpoint. */
export interface ResolvableCheckpoint {
  readonly params: Params;
  /** The core's spec for these input ids (load.ts's archSpec). */
  specFor(opts: { readonly ids: readonly number[]; readonly temperature: number; readonly lens: boolean }): ModelSpec;
  /** Positions limit the input's length (gpt2's n_positions; max_position_embeddings under dynamic RoPE); null when nothing does. */
  readonly maxPositions: number | null;
  /** The positions the model was trained on (max_position_embeddings) where RoPE computes past them: a longer input is a warning. */
  readonly trainedPositions?: number | null;
  /** `gpt2`, `llama`, `qwen2`: for messages. */
  readonly modelType: string;
  /** The BOS token id (config.json's bos_token_id), if any: the induction test starts with it. */
  readonly bos?: number | null;
  /** For the code lens: how the checkpoint stores its numbers and how many there are. */
  readonly dtypes: readonly string[];
  readonly paramCount: number;
}

/** What a checkpoint model file was made of, kept with its ModelFile (hovers and lenses read it). */
export interface CheckpointFacts {
  readonly request: CheckpointRequest;
  readonly source: ResolvableCheckpoint;
  readonly tokenizer: PromptTokenizer | null;
  readonly ids: readonly number[];
  /** The second input of activation patching (`corrupted_prompt` / `corrupted_token_ids`), or null. */
  readonly corruptedIds: readonly number[] | null;
  /** The same file without its `steer` (compare's "without its steer" baseline); absent when it has none. */
  readonly unsteered?: Model;
  /**
   * The SAEs `saes` names, loaded, in its order (src/checkpoint's LoadedSae, opaque here): what a
   * resolve of the same file again attaches (compare's "without ablate, scale and weights").
   */
  readonly saes?: readonly unknown[];
}
