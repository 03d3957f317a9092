// The architectures FFN Lens reads: one adapter per model_type (types.ts says what an adapter
// gives). config.json → its adapter → the block description (ArchConfig) and the tensor names.

import { describeValue } from '../../common/quote';
import { fieldsOf } from './fields';
import { gemma2 } from './gemma2';
import { gemma3 } from './gemma3';
import { gpt2 } from './gpt2';
import { gptNeox } from './gptNeox';
import { llama } from './llama';
import { mistral } from './mistral';
import { phi3 } from './phi3';
import { qwen2 } from './qwen2';
import { qwen3 } from './qwen3';
import { MODEL_TYPES, type ArchAdapter, type ArchConfig, type ModelType } from './types';

export { MODEL_TYPES, type ArchAdapter, type ArchConfig, type ModelType } from './types';

const ADAPTERS: Readonly<Record<ModelType, ArchAdapter>> = {
  gpt2, llama, qwen2, gpt_neox: gptNeox, gemma2, gemma3_text: gemma3, qwen3, mistral, phi3,
};

/** The adapter of a model_type FFN Lens reads. */
export function adapterOf(type: ModelType): ArchAdapter {
  return ADAPTERS[type];
}

/** config.json's object → the block description, by its model_type's adapter; `shown` names the file in messages. */
export function archOf(c: Readonly<Record<string, unknown>>, shown: string): ArchConfig {
  const f = fieldsOf(c, shown);
  const type = c.model_type;
  if (type === undefined) f.fail(`"model_type" is missing; FFN Lens reads ${MODEL_TYPES.join(', ')}`);
  if (!(MODEL_TYPES as readonly unknown[]).includes(type)) f.fail(`model_type ${describeValue(type)} is not supported; FFN Lens reads ${MODEL_TYPES.join(', ')}`);
  return ADAPTERS[type as ModelType].config(f);
}
