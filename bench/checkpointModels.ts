// Random-weight preset checkpoints, written once, and model files over a checkpoint folder, read as
// the compute worker reads them (CheckpointStore with the weights in the kernel's memory), for the
// sections that time forwards of real shapes.
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointChunks, checkpointPreset, configText, type CheckpointPresetId } from '../src/checkpoint/presets';
import { CheckpointResolver } from '../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../src/checkpoint/store';
import { nodeFiles } from '../src/checkpoint/nodeFiles';
import type { WasmMatmulKernel } from '../src/core/wasm';
import type { Model } from '../src/core/model';
import { readModel } from '../src/model/read';

/** A preset's random-weight checkpoint (config.json + model.safetensors) in `dir`, written once: its folder. */
export function writePreset(dir: string, id: CheckpointPresetId): string {
  const preset = checkpointPreset(id);
  const folder = join(dir, preset.folder);
  if (!existsSync(join(folder, 'model.safetensors'))) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'config.json'), configText(preset));
    const fd = openSync(join(folder, 'model.safetensors'), 'w');
    for (const c of checkpointChunks(preset)) writeSync(fd, c);
    closeSync(fd);
  }
  return folder;
}

export interface CheckpointModels {
  /** The model of a model file over the folder with these token ids and extra fields (`, "ablate": [...]`). */
  model(ids: readonly number[], extra?: string): Promise<Model>;
}

export function checkpointModels(folder: string, kernel: WasmMatmulKernel): CheckpointModels {
  const store = new CheckpointStore(nodeFiles, undefined, kernel);
  const resolver = new CheckpointResolver();
  const file = join(folder, '..', 'bench.ffn.json');
  return {
    async model(ids, extra = '') {
      const text = `{"version": 1, "checkpoint": ${JSON.stringify(folder)}, "token_ids": [${ids.join(', ')}]${extra}}`;
      const r = await resolveReadNow(readModel(text, file), file, store, resolver);
      const errors = r.problems.filter((p) => p.severity === 'error');
      if (!r.file || errors.length) throw new Error(errors.map((p) => p.message).join('; ') || 'the checkpoint did not open');
      return r.file.model;
    },
  };
}
