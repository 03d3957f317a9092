// What a checkpoint preset of New Model File… is (presets.ts lists them; presetModels.ts holds the newer families').

/** A tensor as it goes into the file: name, shape, how to fill it. */
export interface TensorPlan {
  readonly name: string;
  readonly shape: readonly number[];
  readonly fill: 'normal' | 'ones' | 'zeros';
}

export type CheckpointPresetId = 'gpt2-small-checkpoint' | 'smollm2-135m-checkpoint' | 'pythia-160m-checkpoint' | 'gemma-2-2b-checkpoint' | 'gemma-3-1b-checkpoint' | 'qwen3-0.6b-checkpoint';

export interface CheckpointPreset {
  readonly id: CheckpointPresetId;
  readonly label: string;
  readonly detail: string;
  /** The folder the checkpoint goes in, beside the model file. */
  readonly folder: string;
  readonly dtype: 'F32' | 'F16' | 'BF16';
  readonly config: Record<string, unknown>;
  readonly tensors: readonly TensorPlan[];
  /** The model file's input: ids inside the vocabulary, where no tokenizer is written. */
  readonly tokenIds: readonly number[];
  /**
   * A tokenizer.json the extension carries for this vocabulary (`media/tokenizers/<name>/`),
   * written beside config.json so the model file can take a `prompt`; null where it has none.
   */
  readonly tokenizer: { readonly name: string; readonly prompt: string } | null;
}
