// A checkpoint folder's tensors, wherever they are: `model.safetensors`, or the shards that
// `model.safetensors.index.json` lists (its `weight_map`: tensor name → shard file). Only headers
// are read here; each tensor is read later, on its own.

import { describeValue } from '../common/quote';
import { firstDuplicateKey } from './duplicateKeys';
import { CheckpointError, named } from './errors';
import type { CheckpointFiles } from './files';
import { checkedFile, checkpointRoot } from './inside';
import { quotePath } from '../common/quote';
import { readHeader, type SafetensorsFile, type TensorInfo } from './safetensors';

export const SINGLE_FILE = 'model.safetensors';
export const INDEX_FILE = 'model.safetensors.index.json';

export interface TensorLocation {
  readonly file: SafetensorsFile;
  readonly info: TensorInfo;
}

export interface CheckpointTensors {
  /** The safetensors files, in the order they were read. */
  readonly files: readonly SafetensorsFile[];
  /** Every tensor by its name as stored (with the model's prefix if the files have one). */
  readonly tensors: ReadonlyMap<string, TensorLocation>;
}

/** `hfCache`: Hugging Face's cache layout (a snapshot's links into its blobs/) is read; false in Restricted Mode. */
export async function openTensors(files: CheckpointFiles, folder: string, opts: { readonly hfCache?: boolean } = {}): Promise<CheckpointTensors> {
  // (every file the folder names is inside it, links followed: inside.ts)
  const root = checkpointRoot(folder, opts.hfCache);
  const inFolder = (name: string): Promise<string | null> => checkedFile(files, root, name, (why) => `${name} in ${named(folder)} ${why}: FFN Lens reads only files inside the checkpoint folder`, { file: name });
  const single = await inFolder(SINGLE_FILE);
  if (single !== null && (await files.size(single)) !== null) {
    const file = await readHeader(files, single, SINGLE_FILE);
    return { files: [file], tensors: new Map([...file.tensors].map(([n, info]) => [n, { file, info }])) };
  }
  const indexPath = await inFolder(INDEX_FILE);
  if (indexPath === null || (await files.size(indexPath)) === null) {
    const bin = (await files.size(files.join(folder, 'pytorch_model.bin'))) !== null;
    throw new CheckpointError(
      `no ${SINGLE_FILE} (nor ${INDEX_FILE} with its shards) in ${named(folder)}${bin ? ': pytorch_model.bin is not read, FFN Lens reads safetensors' : ''}`,
      { file: SINGLE_FILE },
    );
  }
  const weightMap = parseIndex(await files.read(indexPath));

  // each shard's header once, in the order the index first names them
  const byShard = new Map<string, SafetensorsFile>();
  for (const [tensor, shard] of weightMap) {
    if (byShard.has(shard)) continue;
    const path = await checkedFile(files, root, shard, (why) => `${INDEX_FILE} puts ${named(tensor)} in ${quotePath(shard)}, which ${why}: a shard must be a file inside the checkpoint folder`, { file: INDEX_FILE, tensor });
    if (path === null || (await files.size(path)) === null) {
      throw new CheckpointError(`${named(shard)}, the shard ${INDEX_FILE} gives for ${named(tensor)}, is missing from the checkpoint folder`, { file: shard, tensor });
    }
    byShard.set(shard, await readHeader(files, path, shard));
  }
  const tensors = new Map<string, TensorLocation>();
  for (const [tensor, shard] of weightMap) {
    const file = byShard.get(shard)!;
    const info = file.tensors.get(tensor);
    if (!info) throw new CheckpointError(`${INDEX_FILE} puts ${named(tensor)} in ${named(shard)}, which has no such tensor`, { file: shard, tensor });
    tensors.set(tensor, { file, info });
  }
  // a shard's tensors the index forgot are still the checkpoint's (the index decides only where a name is)
  for (const file of byShard.values()) {
    for (const [n, info] of file.tensors) if (!tensors.has(n)) tensors.set(n, { file, info });
  }
  return { files: [...byShard.values()], tensors };
}

/**
 * The index's weight_map, checked: tensor name → shard file name, each name given once (JSON.parse
 * would keep the last of two silently). Messages quote nothing whole.
 */
export function parseIndex(bytes: Uint8Array): Map<string, string> {
  const bad = (why: string, tensor?: string): never => {
    throw new CheckpointError(`${INDEX_FILE}${why}`, tensor === undefined ? { file: INDEX_FILE } : { file: INDEX_FILE, tensor });
  };
  let text = '';
  let json: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    json = JSON.parse(text);
  } catch {
    bad(' is not JSON (UTF-8 text of an object with a "weight_map")');
  }
  const map = json && typeof json === 'object' && !Array.isArray(json) && Object.hasOwn(json, 'weight_map') ? (json as { weight_map: unknown }).weight_map : undefined;
  if (!map || typeof map !== 'object' || Array.isArray(map)) bad(' has no "weight_map" object (tensor name → shard file)');
  // two weight_maps, or a name in one twice: JSON.parse would keep the last silently
  const dup = firstDuplicateKey(text, (d) => d.within.length === 0 || (d.within.length === 1 && d.within[0] === 'weight_map'));
  if (dup) bad(dup.within.length ? `: weight_map names ${named(dup.key)} twice` : ` gives ${named(dup.key)} twice`, dup.within.length ? dup.key : undefined);
  const out = new Map<string, string>();
  for (const [tensor, shard] of Object.entries(map as Record<string, unknown>)) {
    if (typeof shard !== 'string' || shard === '') bad(`: weight_map gives ${named(tensor)} the shard ${describeValue(shard)}, expected a file name`, tensor);
    out.set(tensor, shard as string);
  }
  if (out.size === 0) bad(': weight_map is empty');
  return out;
}
