// The checkpoints and tokenizers a process has loaded, by absolute path, shared by every document
// that names them (two model files over one GPT-2 hold its 500 MB once). Loading is asynchronous;
// a caller that needs the result now peeks (`checkpoint()`/`tokenizer()`), gets 'loading' with a
// promise the first time, and asks again when it settles. A failure is kept, as a message, for a
// moment, then tried again on a later read (the folder may have been downloaded meanwhile).

import type { MatmulKernel } from '../core/kernel';
import { asOurs, CheckpointError, named } from './errors';
import type { CheckpointFiles } from './files';
import { checkedFile, checkpointRoot, pathUnder } from './inside';
import { archSpec, checkComputable, loadCheckpoint, type ArchConfig, type Checkpoint, type WeightHolder } from './load';
import { cannotFit, CHECK_TOKENS, memoryProbe, modelNeeds, type HeldBytes } from './memoryFit';
import { ReadCancelled, ReadMeter, watchedFiles } from './readProgress';
import type { TensorInfo } from './safetensorsHeader';
import { isAbsoluteBeside } from './paths';
import { loadSae, type LoadedSae } from './saeFiles';
import { quotePath } from '../common/quote';
import type { ReadResult } from '../model/read';
import type { Problem } from '../model/problems';
import type { CheckpointResolver, ResolvableCheckpoint } from './resolve';
import { TokenizerRunner, type BudgetedTokenizer } from '../tokenizer/tokenizerRunner';

export type Loading<T> =
  | { readonly state: 'loading'; readonly done: Promise<void> }
  | { readonly state: 'ready'; readonly value: T }
  /** `cancelled`: the read was stopped by Cancel: not tried again by time, only by retryCancelled. */
  | { readonly state: 'failed'; readonly message: string; readonly at?: number; readonly cancelled?: boolean };

/** A large checkpoint's read as it goes (protocol/worker.ts's CheckpointRead without its type). */
export interface ReadReport {
  readonly folder: string;
  readonly done: number;
  readonly total: number;
  readonly state: 'reading' | 'read' | 'cancelled' | 'failed';
}

export interface LoadedCheckpoint extends ResolvableCheckpoint {
  readonly checkpoint: Checkpoint;
}

/**
 * Where a tokenizer comes from: the checkpoint folder's own tokenizer.json (none is no failure), or
 * the model file's `tokenizer` key (`given`: as written; `path`: resolved as `checkpoint` is).
 */
export type TokenizerSource =
  | { readonly kind: 'folder'; readonly folder: string }
  | { readonly kind: 'key'; readonly given: string; readonly path: string; readonly modelDir: string; readonly folder: string };

const RESTRICTED = 'in Restricted Mode FFN Lens reads only files inside the workspace (trust the workspace to open it)';

export class CheckpointStore {
  private readonly checkpoints = new Map<string, Loading<LoadedCheckpoint>>();
  private readonly tokenizers = new Map<string, Loading<BudgetedTokenizer | null>>();
  private readonly saes = new Map<string, Loading<LoadedSae>>();
  /** Restricted Mode (Workspace Trust): the workspace's folders, the only places files are read from; null: trusted. */
  private workspace: readonly string[] | null = null;
  /** Bumped when everything is forgotten: a load begun before does not write its result back. */
  private generation = 0;
  /** The checkpoint reads under way, by folder: Cancel sets `cancelled`, their next part is not read. */
  private readonly reads = new Map<string, { cancelled: boolean }>();
  /**
   * The last report of a read under way or cancelled, by folder: told again to a file whose run
   * begins after it was told (a panel opened meanwhile), so the read's state is never only an event.
   */
  private readonly reports = new Map<string, ReadReport>();
  /** Bytes a cancelled or failed read had taken, which the next model may take again (their blocks freed as they are collected). */
  private reusable = 0;
  /** Told how a large read goes (the worker posts it: the progress bar, Cancel). */
  onRead: ((r: ReadReport) => void) | null = null;
  /** Reads of fewer bytes are not told (they take a moment). */
  toldFrom = 16e6;

  /**
   * `retryMs`: how long a failure is reported from the cache before it is tried again.
   * `holder`: where checkpoint weights are held (the matmul kernel, so they are held once).
   * `runner`: where tokenizers run (a thread of their own, under a time budget, where the platform
   * can start one; by default in this thread).
   */
  constructor(readonly files: CheckpointFiles, private readonly retryMs = 2000, private readonly holder?: WeightHolder, readonly runner = new TokenizerRunner(null)) {}

  /** The kernel holding the weights (a steer's contrast runs on it); undefined: none, the TypeScript one reads them. */
  get kernel(): MatmulKernel | undefined {
    const h = this.holder;
    return !h ? undefined : 'matmul' in h ? (h as MatmulKernel) : h.kernel?.();
  }

  /** `folder` of a model file: relative to the file's own folder, or absolute. */
  resolvePath(modelFile: string, folder: string): string {
    if (this.files.isAbsolute?.(folder) ?? isAbsoluteBeside(folder, modelFile)) return folder;
    const slash = Math.max(modelFile.lastIndexOf('/'), modelFile.lastIndexOf('\\'));
    return this.files.join(slash >= 0 ? modelFile.slice(0, slash) : '.', folder);
  }

  /**
   * Workspace Trust: the workspace's folders in Restricted Mode (nothing is read outside them), or
   * null when the workspace is trusted. True when the rule changed: what was loaded is forgotten.
   */
  restrictTo(folders: readonly string[] | null): boolean {
    const was = this.workspace;
    if (folders === null ? was === null : was !== null && folders.length === was.length && folders.every((f, i) => f === was[i])) return false;
    this.workspace = folders === null ? null : [...folders];
    this.forget();
    return true;
  }

  checkpoint(folder: string): Loading<LoadedCheckpoint> {
    return this.get(this.checkpoints, folder, 'loading the checkpoint', async () => {
      await this.inWorkspace(folder, 'the checkpoint folder');
      // (Hugging Face's cache layout leads out of the folder, into its repository's blobs/: not in Restricted Mode)
      // (an architecture whose block the core is not given yet: said at the checkpoint key, before any weight is read)
      const checkpoint = await this.load(folder);
      return {
        checkpoint,
        params: checkpoint.params,
        modelType: checkpoint.arch.modelType,
        bos: checkpoint.arch.bos,
        // (learned positions end there; dynamic RoPE changes every angle past them)
        // (the input is bounded by the positions the model has, RoPE or not: issue 26's bound; a
        // RoPE model computes any position, but past these the model never saw one)
        maxPositions: checkpoint.arch.maxPositions,
        trainedPositions: null,
        dtypes: checkpoint.dtypes,
        paramCount: checkpoint.paramCount,
        specFor: (o) => archSpec(checkpoint.arch, o),
      };
    });
  }

  /** An SAE's folder (saeFiles.ts), by its absolute path. */
  sae(folder: string): Loading<LoadedSae> {
    return this.get(this.saes, folder, "loading the SAE", async () => {
      await this.inWorkspace(folder, "the SAE's folder");
      return loadSae(this.files, folder, this.workspace === null, this.holder);
    });
  }

  /**
   * Reads the checkpoint, checked first against the memory there is (nothing is allocated for a
   * model that cannot fit), told as it goes, stopped by cancelRead between two parts of a tensor.
   */
  private async load(folder: string): Promise<Checkpoint> {
    const read = { cancelled: false };
    this.reads.set(folder, read);
    let meter: ReadMeter | null = null;
    const tell = (state: ReadReport['state'], m: ReadMeter | null = meter): void => {
      const report: ReadReport | null = m && { folder, done: m.done, total: m.total, state };
      if (report && (state === 'reading' || state === 'cancelled')) this.reports.set(folder, report);
      else this.reports.delete(folder);
      if (report && report.total >= this.toldFrom) this.onRead?.(report);
    };
    try {
      const checkpoint = await loadCheckpoint(this.files, folder, this.holder, {
        hfCache: this.workspace === null,
        check: checkComputable,
        beforeRead: (arch, tensors, files, held) => {
          meter = this.meter(arch, tensors, held, (m) => tell('reading', m));
          return watchedFiles(files, meter, () => read.cancelled);
        },
      });
      tell('read');
      return checkpoint;
    } catch (e) {
      // (what it read is let go with this frame: its blocks are the kernel's again when collected)
      const m = meter as ReadMeter | null;
      if (m) this.reusable = Math.max(this.reusable, m.done);
      // (Cancel here, or the host's: the web worker host streams the file and stops it itself)
      const cancelled = read.cancelled || e instanceof ReadCancelled;
      tell(cancelled ? 'cancelled' : 'failed');
      throw cancelled ? new ReadCancelled() : e;
    } finally {
      if (this.reads.get(folder) === read) this.reads.delete(folder);
    }
  }

  /** The memory check (memoryFit.ts), then the meter of the tensors' bytes. */
  private meter(arch: ArchConfig, tensors: readonly TensorInfo[], held: HeldBytes, tell: (m: ReadMeter) => void): ReadMeter {
    const spec = archSpec(arch, { ids: new Array<number>(CHECK_TOKENS).fill(0), temperature: 1, lens: false });
    // (weights as the loader holds them: BF16/F16 matrices at 2 bytes, so a 16 GB BF16 model needs 16 GB, not 32)
    const why = cannotFit(modelNeeds(tensors, spec, held), memoryProbe(), this.reusable, this.holder?.weightLimits?.());
    if (why) throw new CheckpointError(why);
    const meter: ReadMeter = new ReadMeter(tensors.reduce((n, t) => n + (t.end - t.begin), 0), () => tell(meter));
    meter.start();
    return meter;
  }

  /**
   * The read of `folder` under way (state 'reading', as last told) or cancelled (that read's last
   * report, until it is read again); undefined: neither.
   */
  readReport(folder: string): ReadReport | undefined {
    return this.reports.get(folder);
  }

  /**
   * Stops the read of the checkpoint at `folder` (absolute, as onRead names it); false when none is
   * under way. A Cancel that comes once the last part is read stops nothing: the read ends 'read'.
   */
  cancelRead(folder: string): boolean {
    const read = this.reads.get(folder);
    if (!read) return false;
    read.cancelled = true;
    return true;
  }

  /** The checkpoints (and SAEs, tokenizers) whose read was cancelled are read again when next asked for (an edit of a file, a command). */
  retryCancelled(): boolean {
    let any = false;
    for (const map of [this.checkpoints, this.saes, this.tokenizers] as Array<Map<string, Loading<unknown>>>) {
      for (const [key, c] of map) {
        if (c.state !== 'failed' || !c.cancelled) continue;
        map.delete(key);
        if (this.reports.get(key)?.state === 'cancelled') this.reports.delete(key);
        any = true;
      }
    }
    return any;
  }

  /** A tokenizer.json (from the checkpoint folder: a missing one is no tokenizer, null, not a failure). */
  tokenizer(src: TokenizerSource): Loading<BudgetedTokenizer | null> {
    const key = src.kind === 'folder' ? `?${src.folder}` : `${src.path}\n${src.modelDir}\n${src.folder}`;
    return this.get(this.tokenizers, key, 'loading the tokenizer', async () => {
      const path = await this.tokenizerPath(src);
      if (path === null || (await this.files.size(path)) === null) {
        if (src.kind === 'folder') return null;
        throw new CheckpointError(`no such file: ${named(src.path)}`);
      }
      // its tokenizer_config.json beside it, in its folder as a checkpoint's files are
      const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
      const dir = path.slice(0, Math.max(0, slash));
      const root = { path: dir, hfCache: this.workspace === null, shown: "the tokenizer's folder" };
      const configPath = await checkedFile(this.files, root, 'tokenizer_config.json', (why) => `tokenizer_config.json beside ${named(path)} ${why}: FFN Lens reads only files inside the tokenizer's folder`);
      const config = configPath !== null && (await this.files.size(configPath)) !== null ? decode(await this.files.read(configPath)) : undefined;
      // (in the tokenizer's own thread where there is one: its patterns run under a time budget)
      return this.runner.load(decode(await this.files.read(path)), config, path.slice(slash + 1));
    });
  }

  /**
   * Where a tokenizer is read: the checkpoint's inside its folder; a `tokenizer` key's relative
   * path beside the model file (its folder or below) or in the checkpoint folder, an absolute one
   * where it is (typed by the user); in Restricted Mode, inside the workspace. Links followed.
   */
  private async tokenizerPath(src: TokenizerSource): Promise<string | null> {
    const hfCache = this.workspace === null;
    if (src.kind === 'folder') {
      await this.inWorkspace(src.folder, 'the checkpoint folder');
      return checkedFile(this.files, checkpointRoot(src.folder, hfCache), 'tokenizer.json', (why) => `tokenizer.json in ${named(src.folder)} ${why}: FFN Lens reads only files inside the checkpoint folder`, { file: 'tokenizer.json' });
    }
    await this.inWorkspace(src.path, 'the tokenizer');
    if (this.files.isAbsolute?.(src.given) ?? isAbsoluteBeside(src.given, src.modelDir)) return src.path;
    const found = await pathUnder(this.files, [{ path: src.modelDir, shown: "the model file's folder" }, checkpointRoot(src.folder, hfCache)], src.path);
    if (found && 'refused' in found) {
      throw new CheckpointError(`the tokenizer ${quotePath(src.given)} ${found.refused}: a relative "tokenizer" is read beside the model file or from the checkpoint folder (give an absolute path to read one from elsewhere)`);
    }
    return found?.path ?? null;
  }

  /** In Restricted Mode, `path` is refused unless it is inside the workspace (links followed). */
  private async inWorkspace(path: string, what: string): Promise<void> {
    if (this.workspace === null) return;
    const found = await pathUnder(this.files, this.workspace.map((f) => ({ path: f, shown: 'the workspace' })), path);
    if (found && 'refused' in found) throw new CheckpointError(`${what} ${quotePath(path)} ${found.refused}: ${RESTRICTED}`);
  }

  /** Loads again on next use (a file changed). */
  forget(path?: string): void {
    for (const [key, t] of this.tokenizers) {
      if (path !== undefined && key !== `?${path}` && key.split('\n')[0] !== path) continue;
      if (t.state === 'ready') t.value?.dispose(); // (its thread holds it)
      this.tokenizers.delete(key);
    }
    if (path === undefined) {
      this.generation++;
      this.checkpoints.clear();
      for (const [key, r] of this.reports) if (r.state === 'cancelled') this.reports.delete(key);
      this.saes.clear();
      return;
    }
    this.checkpoints.delete(path);
    this.saes.delete(path);
    if (this.reports.get(path)?.state === 'cancelled') this.reports.delete(path);
  }

  private get<T>(map: Map<string, Loading<T>>, key: string, step: string, load: () => Promise<T>): Loading<T> {
    const hit = map.get(key);
    // a failure is tried again on a later read (the folder may have been downloaded, a file fixed)
    if (hit && !(hit.state === 'failed' && !hit.cancelled && Date.now() - (hit.at ?? 0) >= this.retryMs)) return hit;
    const generation = this.generation;
    const done = load().then(
      (value) => void (generation === this.generation && map.set(key, { state: 'ready', value })),
      (e: unknown) => void (generation === this.generation && map.set(key, { state: 'failed', message: messageOf(e, step), at: Date.now(), ...(e instanceof ReadCancelled ? { cancelled: true } : {}) })),
    );
    const loading: Loading<T> = { state: 'loading', done };
    map.set(key, loading);
    return loading;
  }
}

const decode = (b: Uint8Array): string => new TextDecoder('utf-8').decode(b);

/** A failure's message: ours as it is, anything else (a TypeError, a RangeError) as a fault in `step`. */
function messageOf(e: unknown, step: string): string {
  return asOurs(e, step).message.split('\n')[0];
}

/**
 * A read of a file that names a checkpoint, with its model (or its problems) once what it names is
 * loaded and its prompts are tokenized; `loading` while they are not (ask again when it settles;
 * `tokenizing`: only a prompt is). Other reads are returned as they are.
 */
export function resolveRead(read: ReadResult, modelFile: string, store: CheckpointStore | null, resolver: CheckpointResolver): { read: ReadResult; cancelled?: ReadReport } | { loading: Promise<void>; tokenizing?: boolean; folder?: string } {
  const req = read.checkpoint;
  if (!req) return read.file?.saeKeys?.saes.length ? writtenOutSaes(read, modelFile, store, resolver) : { read };
  const problem = (at: { start: number; end: number; path: readonly (string | number)[] }, message: string, severity: Problem['severity'] = 'error'): { read: ReadResult } => ({
    read: { ...read, problems: [...read.problems, { severity, code: 'value', message, path: at.path, start: at.start, end: at.end } satisfies Problem] },
  });
  if (!store) return problem(req.folderAt, 'checkpoints cannot be opened here');
  const folder = store.resolvePath(modelFile, req.folder);
  const slash = Math.max(modelFile.lastIndexOf('/'), modelFile.lastIndexOf('\\'));
  const modelDir = slash >= 0 ? modelFile.slice(0, slash) : '.';
  const c = store.checkpoint(folder);
  // (without a prompt the tokenizer only labels the rows: a missing default one is no error)
  const t = store.tokenizer(req.tokenizer === null ? { kind: 'folder', folder } : { kind: 'key', given: req.tokenizer, path: store.resolvePath(modelFile, req.tokenizer), modelDir, folder });
  const s = (req.saes ?? []).map((ref) => store.sae(store.resolvePath(modelFile, ref.path)));
  if (c.state === 'loading' || t.state === 'loading' || s.some((x) => x.state === 'loading')) {
    // (`folder`: the store's key, which its read reports name)
    return { loading: Promise.all([c, t, ...s].map((x) => (x.state === 'loading' ? x.done : undefined))).then(() => undefined), folder };
  }
  // (Cancel is the user's, not the file's fault: a warning, which says how to read it again)
  if (c.state === 'failed') {
    // (with the cancelled read's report: a panel opened after it was told says it too)
    const report = c.cancelled ? store.readReport(folder) : undefined;
    return { ...problem(req.folderAt, c.message, c.cancelled ? 'warning' : 'error'), ...(report?.state === 'cancelled' ? { cancelled: report } : {}) };
  }
  if (t.state === 'failed') return problem(req.tokenizerAt ?? req.folderAt, t.message);
  const badSae = s.findIndex((x) => x.state === 'failed');
  if (badSae >= 0) return problem(req.saes[badSae].pathAt, `the SAE ${quotePath(req.saes[badSae].path)}: ${(s[badSae] as { message: string }).message}`);
  // the prompts' ids, from the tokenizer's thread (resolve reads them; a failure is said at the prompt)
  const contrasts = (req.steers ?? []).flatMap((x) => (x.source.kind === 'contrast' ? x.source.prompts : []));
  const texts = t.value ? [req.tokenIds ? null : req.prompt, req.corruptedIds ? null : req.corruptedPrompt, ...contrasts] : [];
  const pending = texts.map((text) => (text === null ? null : t.value!.encodeAhead(text))).filter((p) => p !== null);
  if (pending.length > 0) return { loading: Promise.all(pending).then(() => undefined), tokenizing: true };
  const r = resolver.resolve(req, c.value, t.value, s.map((x) => (x as { value: LoadedSae }).value), store.kernel);
  return { read: { ...read, file: r.file, problems: [...read.problems, ...r.problems] } };
}

/** A written-out model with SAEs: its model once they are loaded, with them attached (resolve.ts). */
function writtenOutSaes(read: ReadResult, modelFile: string, store: CheckpointStore | null, resolver: CheckpointResolver): { read: ReadResult } | { loading: Promise<void> } {
  const file = read.file!;
  const refs = file.saeKeys!.saes;
  const fail = (at: { start: number; end: number; path: readonly (string | number)[] }, message: string): { read: ReadResult } => ({
    read: { ...read, file: null, problems: [...read.problems, { severity: 'error', code: 'value', message, path: at.path, start: at.start, end: at.end } satisfies Problem] },
  });
  if (!store) return fail(refs[0].pathAt, 'SAEs cannot be read here');
  const s = refs.map((ref) => store.sae(store.resolvePath(modelFile, ref.path)));
  if (s.some((x) => x.state === 'loading')) return { loading: Promise.all(s.map((x) => (x.state === 'loading' ? x.done : undefined))).then(() => undefined) };
  const bad = s.findIndex((x) => x.state === 'failed');
  if (bad >= 0) return fail(refs[bad].pathAt, `the SAE ${quotePath(refs[bad].path)}: ${(s[bad] as { message: string }).message}`);
  const r = resolver.attachSaes(file, s.map((x) => (x as { value: LoadedSae }).value));
  return { read: { ...read, file: r.file, problems: [...read.problems, ...r.problems] } };
}

/** resolveRead, waiting for what it names to load (the command line). */
export async function resolveReadNow(read: ReadResult, modelFile: string, store: CheckpointStore, resolver: CheckpointResolver): Promise<ReadResult> {
  for (;;) {
    const r = resolveRead(read, modelFile, store, resolver);
    if ('read' in r) return r.read;
    await r.loading;
  }
}
