// What reading a model file gives (read.ts): the model for the core, the problems, and where each
// part of the model stands in the text.

import type { Model } from '../core/model';
import type { Layout } from '../core/spec';
import type { CheckpointFacts } from './checkpointFacts';
import type { CheckpointRequest, SaeEdit, SaeRef } from './checkpointRequest';
import type { JsonNode, NumbersNode, ParsedJson } from './jsonc';
import type { ParamCounts } from '../core/paramCounts';
import type { PathSegment, Problem } from './problems';

export interface ModelDims {
  readonly seq: number;
  readonly dModel: number;
  /** d_ff of the first layer that has an FFN, 0 if none. */
  readonly dFf: number;
  /** heads of the first layer that has attention, 0 if none. */
  readonly heads: number;
  readonly layers: number;
  /** 0 without a head. */
  readonly vocab: number;
}

export interface ModelFile {
  readonly name: string;
  readonly tokens: readonly string[];
  readonly vocab: readonly string[];
  /** What the core computes: the spec and the params (views into the parse's arena). */
  readonly model: Model;
  /** How the file stores its matrices. */
  readonly layout: Layout;
  readonly dims: ModelDims;
  readonly paramCounts: ParamCounts;
  /** A file that names a checkpoint: what it asked for and what answered (src/checkpoint/resolve.ts). */
  readonly checkpoint?: CheckpointFacts;
  /**
   * A written-out model's SAEs and feature edits (`saes`, `sae_ablate` …), as the reader found them:
   * attached when the file is resolved (src/checkpoint/store.ts's resolveRead).
   */
  readonly saeKeys?: { readonly saes: readonly SaeRef[]; readonly edits: readonly SaeEdit[] };
}

/** Where a param the file gives stands (its matrix or vector): its node and JSON path. */
export interface ParamNode { readonly node: JsonNode; readonly path: readonly PathSegment[] }

export interface ReadResult {
  /** null when any error was found. */
  readonly file: ModelFile | null;
  readonly problems: Problem[];
  readonly json: ParsedJson;
  /**
   * What each row of numbers in the text is in the model, as the reader found it: an edit inside
   * a row is mapped through this, never by turning an offset back into a path (incremental.ts).
   * Rows the model does not use (an unknown key's numbers) are not in it.
   */
  readonly rows: ReadonlyMap<NumbersNode, RowBinding>;
  /**
   * A model file that points at a checkpoint: what it asks for (`model` is then null until the
   * worker has read the checkpoint: src/checkpoint/resolve.ts).
   */
  readonly checkpoint: CheckpointRequest | null;
  /** Where each param the file gives stands (its matrix or vector): node and JSON path, by param id. */
  readonly paramNodes: ReadonlyMap<string, ParamNode>;
}

/**
 * Row `row` of parameter `param` (`layers.0.ffn.W1`, `input`, `head.b`: the ids of the
 * `weights` overrides, without an index), as the file stores it; the model holds its numbers at
 * data[at … at + length), a view into the parse's arena or, for a matrix read the slow way, a copy.
 */
export interface RowBinding {
  readonly param: string;
  /** A row of a matrix, or a whole vector (row 0: its elements are what an edit changes). */
  readonly vector: boolean;
  readonly row: number;
  readonly data: Float32Array;
  readonly at: number;
}
