// The random-weight GPT-2-small checkpoint folder (124M parameters, 498 MB of float32 in
// model.safetensors, Hugging Face's layout, GPT-2's tokenizer.json) written into a test workspace
// as "New Model File…" writes it, and synced to disk (no writeback of 498 MB while a test times it).
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointChunks, checkpointPreset, configText } from '../../../src/checkpoint/presets';

/** The folder's name, as a model file's "checkpoint": "./<folder>" names it. */
export const GPT2_SMALL_FOLDER = checkpointPreset('gpt2-small-checkpoint').folder;

export function writeGpt2SmallCheckpoint(workspace: string): void {
  const preset = checkpointPreset('gpt2-small-checkpoint');
  const dir = join(workspace, preset.folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), configText(preset));
  // (this file compiles to out/test/e2e/lib/: the repository is four levels up)
  writeFileSync(join(dir, 'tokenizer.json'), readFileSync(join(__dirname, '..', '..', '..', '..', 'media', 'tokenizers', 'gpt2', 'tokenizer.json')));
  const fd = openSync(join(dir, 'model.safetensors'), 'w');
  try {
    for (const c of checkpointChunks(preset)) writeSync(fd, c);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
