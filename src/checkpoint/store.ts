// The checkpoints and tokenizers a process has loaded, by absolute path, shared by every document
// that names them (two model files over one GPT-2 hold its 500 MB once). Loading is asynchronous;
// a caller that needs the result now peeks (`checkpoint()`/`tokenizer()`), gets 'loading' with a
// promise the first time, and asks again when it settles. A failure is kept, as a message, for a
// moment, then tried again on a later read (the folder may have been downloaded meanwhile).

import type { CheckpointFiles } from './files';
import { archSpec, loadCheckpoint, type Checkpoint, type WeightHolder } from './load';
import type { ReadResult } from '../model/read';
import type { Problem } from '../model/problems';
import type { CheckpointResolver, ResolvableCheckpoint } from './resolve';
import { TokenizerRunner, type BudgetedTokenizer } from '../tokenizer/tokenizerRunner';

export type Loading<T> =
  | { readonly state: 'loading'; readonly done: Promise<void> }
  | { readonly state: 'ready'; readonly value: T }
  | { readonly state: 'failed'; readonly message: string; readonly at?: number };

export interface LoadedCheckpoint extends ResolvableCheckpoint {
  readonly checkpoint: Checkpoint;
}

export class CheckpointStore {
  private readonly checkpoints = new Map<string, Loading<LoadedCheckpoint>>();
  private readonly tokenizers = new Map<string, Loading<BudgetedTokenizer | null>>();

  /**
   * `retryMs`: how long a failure is reported from the cache before it is tried again.
   * `holder`: where checkpoint weights are held (the matmul kernel, so they are held once).
   * `runner`: where tokenizers run (a thread of their own, under a time budget, where the platform
   * can start one; by default in this thread).
   */
  constructor(readonly files: CheckpointFiles, private readonly retryMs = 2000, private readonly holder?: WeightHolder, readonly runner = new TokenizerRunner(null)) {}

  /** `folder` of a model file: relative to the file's own folder, or absolute. */
  resolvePath(modelFile: string, folder: string): string {
    if (/^([A-Za-z]:[\\/]|[\\/])/.test(folder)) return folder;
    const slash = Math.max(modelFile.lastIndexOf('/'), modelFile.lastIndexOf('\\'));
    return this.files.join(slash >= 0 ? modelFile.slice(0, slash) : '.', folder);
  }

  checkpoint(folder: string): Loading<LoadedCheckpoint> {
    return this.get(this.checkpoints, folder, async () => {
      const checkpoint = await loadCheckpoint(this.files, folder, this.holder);
      const gpt2 = checkpoint.arch.modelType === 'gpt2';
      return {
        checkpoint,
        params: checkpoint.params,
        modelType: checkpoint.arch.modelType,
        bos: checkpoint.arch.bos,
        // (learned positions end there; dynamic RoPE changes every angle past them)
        maxPositions: gpt2 || checkpoint.arch.dynamicRope ? checkpoint.arch.maxPositions : null,
        trainedPositions: gpt2 || checkpoint.arch.dynamicRope ? null : checkpoint.arch.maxPositions,
        dtypes: checkpoint.dtypes,
        paramCount: checkpoint.paramCount,
        specFor: (o) => archSpec(checkpoint.arch, o),
      };
    });
  }

  /** A tokenizer.json; `optional`: a missing file is no tokenizer (null), not a failure. */
  tokenizer(path: string, optional: boolean): Loading<BudgetedTokenizer | null> {
    return this.get(this.tokenizers, `${optional ? '?' : ''}${path}`, async () => {
      const size = await this.files.size(path);
      if (size === null) {
        if (optional) return null;
        throw new Error(`no such file: ${path}`);
      }
      const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
      const configPath = this.files.join(path.slice(0, Math.max(0, slash)), 'tokenizer_config.json');
      const config = (await this.files.size(configPath)) !== null ? decode(await this.files.read(configPath)) : undefined;
      return this.runner.load(decode(await this.files.read(path)), config, path.slice(slash + 1));
    });
  }

  /** Loads again on next use (a file changed). */
  forget(path?: string): void {
    for (const [key, t] of this.tokenizers) {
      if (path !== undefined && key !== path && key !== `?${path}`) continue;
      if (t.state === 'ready') t.value?.dispose(); // (its thread holds it)
      this.tokenizers.delete(key);
    }
    if (path === undefined) this.checkpoints.clear();
    else this.checkpoints.delete(path);
  }

  private get<T>(map: Map<string, Loading<T>>, key: string, load: () => Promise<T>): Loading<T> {
    const hit = map.get(key);
    // a failure is tried again on a later read (the folder may have been downloaded, a file fixed)
    if (hit && !(hit.state === 'failed' && Date.now() - (hit.at ?? 0) >= this.retryMs)) return hit;
    const done = load().then(
      (value) => void map.set(key, { state: 'ready', value }),
      (e: unknown) => void map.set(key, { state: 'failed', message: messageOf(e), at: Date.now() }),
    );
    const loading: Loading<T> = { state: 'loading', done };
    map.set(key, loading);
    return loading;
  }
}

const decode = (b: Uint8Array): string => new TextDecoder('utf-8').decode(b);

function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0];
}

/**
 * A read of a file that names a checkpoint, with its model (or its problems) once what it names is
 * loaded and its prompts are tokenized; `loading` while they are not (ask again when it settles;
 * `tokenizing`: only a prompt is). Other reads are returned as they are.
 */
export function resolveRead(read: ReadResult, modelFile: string, store: CheckpointStore | null, resolver: CheckpointResolver): { read: ReadResult } | { loading: Promise<void>; tokenizing?: boolean } {
  const req = read.checkpoint;
  if (!req) return { read };
  const problem = (at: { start: number; end: number; path: readonly (string | number)[] }, message: string): { read: ReadResult } => ({
    read: { ...read, problems: [...read.problems, { severity: 'error', code: 'value', message, path: at.path, start: at.start, end: at.end } satisfies Problem] },
  });
  if (!store) return problem(req.folderAt, 'checkpoints cannot be opened here');
  const folder = store.resolvePath(modelFile, req.folder);
  const tokPath = req.tokenizer !== null ? store.resolvePath(modelFile, req.tokenizer) : store.files.join(folder, 'tokenizer.json');
  const c = store.checkpoint(folder);
  // (without a prompt the tokenizer only labels the rows: a missing default one is no error)
  const t = store.tokenizer(tokPath, req.tokenizer === null);
  if (c.state === 'loading' || t.state === 'loading') {
    return { loading: Promise.all([c, t].map((x) => (x.state === 'loading' ? x.done : undefined))).then(() => undefined) };
  }
  if (c.state === 'failed') return problem(req.folderAt, c.message);
  if (t.state === 'failed') return problem(req.tokenizerAt ?? req.folderAt, t.message);
  // the prompts' ids, from the tokenizer's thread (resolve reads them; a failure is said at the prompt)
  const texts = t.value ? [req.tokenIds ? null : req.prompt, req.corruptedIds ? null : req.corruptedPrompt] : [];
  const pending = texts.map((text) => (text === null ? null : t.value!.encodeAhead(text))).filter((p) => p !== null);
  if (pending.length > 0) return { loading: Promise.all(pending).then(() => undefined), tokenizing: true };
  const r = resolver.resolve(req, c.value, t.value);
  return { read: { ...read, model: r.file, problems: [...read.problems, ...r.problems] } };
}

/** resolveRead, waiting for what it names to load (the command line). */
export async function resolveReadNow(read: ReadResult, modelFile: string, store: CheckpointStore, resolver: CheckpointResolver): Promise<ReadResult> {
  for (;;) {
    const r = resolveRead(read, modelFile, store, resolver);
    if ('read' in r) return r.read;
    await r.loading;
  }
}
