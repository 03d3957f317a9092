// Model files over a checkpoint folder, read as the compute worker reads them (CheckpointStore with
// the weights in the kernel's memory), for the sections that time forwards of real shapes.
import { join } from 'node:path';
import { CheckpointResolver } from '../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../src/checkpoint/store';
import { nodeFiles } from '../src/checkpoint/nodeFiles';
import type { WasmMatmulKernel } from '../src/core/wasm';
import type { Model } from '../src/core/model';
import { readModel } from '../src/model/read';

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
