// A checkpoint's config.json, in Hugging Face's field names and defaults, read by the adapter of
// its model_type (src/checkpoint/arch/: one file per architecture) into the block description
// (ArchConfig: the core's dimensions plus the options of the block). Settings that would change
// the computation in a way the core does not follow (scaled RoPE of other types, sliding windows
// not modelled, GPT-2's unscaled attention) are errors rather than silently wrong numbers.

import { CheckpointError } from './errors';
import { archOf, type ArchConfig } from './arch';

export { MODEL_TYPES, type ArchConfig, type ModelType } from './arch';
export type { ArchActivation, LayerRope } from './arch/types';

export function parseConfig(text: string, shown = 'config.json'): ArchConfig {
  let c: unknown;
  try {
    c = JSON.parse(text);
  } catch {
    throw new CheckpointError(`${shown} is not JSON`, { file: shown });
  }
  if (!c || typeof c !== 'object' || Array.isArray(c)) throw new CheckpointError(`${shown}: expected a JSON object`, { file: shown });
  return archOf(c as Record<string, unknown>, shown);
}
