// Nothing a downloaded checkpoint folder names is read from outside it: a name (an index's shard,
// config.json, tokenizer.json…) must stay inside its folder as written ('..' and absolute paths
// refused) and where it really is, every symbolic link followed, before anything is opened. The
// one exception is Hugging Face's cache, whose snapshot folders are links into the same
// repository's blobs/. The same check keeps Restricted Mode inside the workspace's folders.

import { CheckpointError } from './errors';
import type { CheckpointFiles } from './files';
import { hfCacheBlobs, nameParts, partsBelow } from './paths';
import { quotePath } from '../common/quote';

/**
 * A folder files must stay in; `hfCache`: a cache snapshot's links into its repository's blobs/
 * count as inside (not in Restricted Mode); `shown`: how a message names it ("the checkpoint folder").
 */
export interface Root {
  readonly path: string;
  readonly hfCache?: boolean;
  readonly shown: string;
}

/**
 * The path to read; null when there is no such file; or why it is refused, as a phrase that
 * follows the name ("is an absolute path").
 */
export type Found = { readonly path: string } | { readonly refused: string } | null;

/** `name` as a file of the folder names it (a shard of the index), inside `root.path`. */
export async function fileInFolder(files: CheckpointFiles, root: Root, name: string): Promise<Found> {
  const n = nameParts(name);
  if ('bad' in n) {
    return { refused: n.bad === 'absolute' ? `is an absolute path, outside ${root.shown}` : n.bad === 'climbs' ? `climbs out of ${root.shown} with ".."` : 'is not a file name' };
  }
  return judge(files, root, n.parts);
}

/**
 * `path` (absolute, or as the model file's folder resolved it) under one of `roots`, links followed:
 * refused when it is under none of them as written, or leads out of the one it is under.
 */
export async function pathUnder(files: CheckpointFiles, roots: readonly Root[], path: string): Promise<Found> {
  let first: Found | undefined;
  for (const root of roots) {
    const below = partsBelow(root.path, path);
    if (below === null) continue;
    const found = await judge(files, root, below);
    if (found && 'path' in found) return found;
    first ??= found;
  }
  return first === undefined ? { refused: `is outside ${[...new Set(roots.map((r) => r.shown))].join(' and ')}` } : first;
}

async function judge(files: CheckpointFiles, root: Root, parts: readonly string[]): Promise<Found> {
  const name = parts.length ? parts.join('/') : '.';
  const at = await files.locate(root.path, name);
  const path = parts.length ? files.join(root.path, name) : root.path;
  if (at.kind === 'missing') return null;
  if (at.kind === 'link') {
    return { refused: `${partsBelow(path, at.at)?.length === 0 ? 'is' : 'lies under'} a symbolic link, which FFN Lens does not follow here (this host cannot see where a link leads, so whether it stays inside ${root.shown})` };
  }
  if (partsBelow(at.root, at.real) !== null) return { path };
  const blobs = root.hfCache ? hfCacheBlobs(at.root) : null;
  if (blobs !== null && partsBelow(blobs, at.real)?.length === 1) return { path };
  return { refused: `leads out of ${root.shown} (a symbolic link to ${quotePath(at.real)})` };
}

/** The checkpoint folder as a root: Hugging Face's cache layout allowed unless `hfCache` is false (Restricted Mode). */
export const checkpointRoot = (folder: string, hfCache = true): Root => ({ path: folder, hfCache, shown: 'the checkpoint folder' });

/**
 * fileInFolder, a refusal thrown: `say` makes the message of the phrase (at the key that named
 * the file; `where` says which file and tensor). The path to read, or null when there is none.
 */
export async function checkedFile(files: CheckpointFiles, root: Root, name: string, say: (refused: string) => string, where: { readonly file?: string; readonly tensor?: string } = {}): Promise<string | null> {
  const found = await fileInFolder(files, root, name);
  if (found && 'refused' in found) throw new CheckpointError(say(found.refused), where);
  return found?.path ?? null;
}
