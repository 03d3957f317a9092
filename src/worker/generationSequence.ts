// The generated tokens' stages: the run of the input followed by the tokens a generation chose,
// on the generation's own engine. Its last run is that sequence but for the last token (the token
// a step chooses is read only by the next step), so one more step appends it (the KV cache): a row
// of each stage. The panel asks for it once a generation ends (ToWorker `showGenerated`): nothing
// of it goes over the wire while generating. The sequence stops where the model's positions, or
// the memory a run may take (runSize.ts), end.
import { growIds } from '../core/decode';
import type { Engine } from '../core/engine';
import type { StageDef } from '../core/graph';
import { runTooLarge } from '../core/runSize';
import type { Stage } from '../core/stages';
import type { ModelFile } from '../model/read';
import { sequenceLabels } from '../tokenizer/byteRuns';

export interface SequenceRun {
  /** The model file as if its input were the sequence (its model, its tokens' labels). */
  readonly file: ModelFile;
  readonly plan: readonly StageDef[];
  readonly stages: readonly Stage[];
  /** How many of its tokens are the input's: row `input + i` is generated token i's. */
  readonly input: number;
}

/** The run of `file`'s input followed by `generated` on `engine` (generation's, its last run a prefix of it); null if no generated token fits. */
export function sequenceRun(engine: Engine, file: ModelFile, generated: readonly number[]): SequenceRun | null {
  const e = file.model.spec.embedding;
  if (e.kind !== 'tokens') return null;
  const input = e.ids.length;
  let ids = [...e.ids, ...generated];
  const max = file.checkpoint?.source.maxPositions ?? null;
  if (max !== null && ids.length > max) ids = ids.slice(0, max);
  // (the last token was never read by a step: the run over all of them may not fit where theirs did)
  while (ids.length > input && runTooLarge(growIds(file.model, ids).spec)) ids.pop();
  if (ids.length === input) return null;
  const model = growIds(file.model, ids);
  const stages = engine.run(model);
  const tok = file.checkpoint?.tokenizer ?? null;
  const labels = sequenceLabels(ids, tok, file.vocab);
  // (labels the file gives its input stay; the generated tokens' are decoded with the input's)
  const tokens = file.checkpoint?.request.tokens ? [...file.tokens, ...labels.slice(input)] : labels;
  return {
    file: { ...file, model, tokens, dims: { ...file.dims, seq: ids.length } },
    plan: engine.planOf(model.spec),
    stages,
    input,
  };
}
