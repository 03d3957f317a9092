// Reads a model file: text -> checked, shaped weights for the core, or every problem found.
// Problems are gathered, not just the first, each with its JSON path and offsets; the reader
// never throws (an unexpected failure becomes one 'internal' problem).
//
// A model file either writes its model out (readModelFile.ts: the model-file reader, assembled for
// the core by toModel.ts) or points at a checkpoint (readCheckpointRequest.ts: what it asks of the
// checkpoint, resolved later by src/checkpoint/resolve.ts).

import type { CheckpointRequest } from './checkpointRequest';
import type { JsonNode, Source } from './jsonc';
import type { ModelFile, ReadResult } from './modelFile';
import { pathAt } from './pathAt';
import type { PathSegment } from './problems';
import { readCheckpointRequest } from './readCheckpointRequest';
import { readModelFile } from './readModelFile';
import { describe } from './readerBase';
import { NumberReader } from './readNumbers';
import { internalFault } from '../common/faultText';

export type { ModelDims, ModelFile, ParamNode, ReadResult, RowBinding } from './modelFile';
export { defaultModelName } from './readerBase';

/** Reads a model file from its text, or its bytes as read from disk (UTF-8). Never throws. */
export function readModel(text: Source, fileName: string): ReadResult {
  const reader = new NumberReader(text);
  try {
    const { model, checkpoint } = readRoot(reader, fileName);
    // In file order, as a reader of the file meets them (sort is stable for ties).
    reader.problems.sort((a, b) => a.start - b.start);
    return { file: model, problems: reader.problems, json: reader.json, rows: reader.rows, paramNodes: reader.paramNodes, checkpoint };
  } catch (e) {
    // A bug of ours: say so plainly, in one line, without a stack trace.
    const problems = [...reader.problems, {
      severity: 'error' as const, code: 'internal' as const, path: [], start: 0, end: 0,
      message: `FFN Lens could not read this file: ${internalFault('reading the model file', e)}`,
    }];
    return { file: null, problems, json: { root: null, arena: new Float32Array(0), errors: [], numberArrays: [] }, rows: new Map(), paramNodes: new Map(), checkpoint: null };
  }
}

function readRoot(r: NumberReader, fileName: string): { model: ModelFile | null; checkpoint: CheckpointRequest | null } {
  const none = { model: null, checkpoint: null };
  // a syntax error is placed by the value it sits in, as far as the text around it could be read
  for (const e of r.json.errors) r.error('syntax', syntaxPath(pathAt(r.text, r.json.root, e.start)?.path ?? []), e, e.message);
  const root = r.json.root;
  // After a syntax slip the tree is a guess (a lost ] makes the next key a string in an array):
  // checking it would only report things that are not there. The slips alone, then.
  if (!root || r.json.errors.length) return none;
  if (root.kind !== 'object') {
    r.error('type', [], root, `a model file is a JSON object ({ "version": 1, "input": …, "ffn": … }), found ${describe(root)}`);
    return none;
  }
  if (root.props.some((p) => p.key === 'checkpoint')) return { model: null, checkpoint: readCheckpointRequest(r, root, fileName) };
  return { model: readModelFile(r, root, fileName), checkpoint: null };
}

/**
 * Whether a JSON document is a model file: named *.ffn.json, or a top-level object with
 * "version": 1 and at least one of "ffn", "attention", "layers", "checkpoint".
 */
export function isModelFileName(fileName: string): boolean {
  return /\.ffn\.jsonc?$/i.test(fileName);
}

export function looksLikeModelText(text: string): boolean {
  // Cheap test before any parse: both markers must appear somewhere.
  return /"version"\s*:\s*1\b/.test(text) && /"(ffn|attention|layers|checkpoint)"\s*:/.test(text);
}

export function isModelRoot(root: JsonNode | null): boolean {
  if (!root || root.kind !== 'object') return false;
  const keys = new Map(root.props.map((p) => [p.key, p.value] as const));
  const v = keys.get('version');
  return !!v && v.kind === 'number' && v.value === 1 && ['ffn', 'attention', 'layers', 'checkpoint'].some((k) => keys.has(k));
}

/** Where a syntax error stands, without the empty key of the property the parser began there ([""]). */
function syntaxPath(path: readonly PathSegment[]): PathSegment[] {
  const out = [...path];
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}
