// A Hugging Face checkpoint folder read into the core's params: config.json (config.ts), the
// safetensors file or shards (shards.ts), each tensor the architecture needs found by its name
// with or without the model's prefix, checked for its shape, read on its own (safetensors.ts) and
// given its param id (tensorNames.ts). A tied head is the very Param of the embedding. And the
// core's spec of that architecture for an input (archSpec).

import type { MatmulKernel } from '../core/kernel';
import { normOf, PARAM, paramId, parseParamId, STAGE, stageId } from '../core/ids';
import { isMatrixKind } from '../core/paramTable';
import { halfPanelsInto } from '../core/halfWeights';
import { outputsInputs, PANEL_UNITS, panelsLength, type HalfParam, type Param, type Params } from '../core/params';
import type { WeightLimits } from '../core/matmulKernel';
import type { AttentionSpec, LayerSpec, ModelSpec, RopeSpec } from '../core/spec';
import { parseConfig, type ArchConfig } from './config';
import { describeValue } from '../common/quote';
import { asOurs, CheckpointError, named } from './errors';
import type { CheckpointFiles } from './files';
import type { HeldBytes } from './memoryFit';
import { checkedFile, checkpointRoot } from './inside';
import { readSplitColumns, readTensor, readTensorBits, type SafetensorsFile, type TensorInfo } from './safetensors';
import { openTensors, type TensorLocation } from './shards';
import { eachExpectedTensor, headTensor, modelPrefix, paramsOf, storedName, type ExpectedTensor } from './tensorNames';
import { checkSizes } from './bounds';
import { formatBytes, isOutOfMemory } from '../core/runSize';
import { sizeOf } from '../core/tensor';

export { CheckpointError } from './errors';
export type { ArchConfig } from './config';

export interface Checkpoint {
  readonly folder: string;
  readonly arch: ArchConfig;
  /** By the core's param ids (`embed`, `layers.0.attn.Wq`, `head.W`…). */
  readonly params: Params;
  /** The distinct dtypes the used tensors are stored in, sorted (['F32'], ['BF16'], …). */
  readonly dtypes: readonly string[];
  /** Numbers in the checkpoint's tensors that the model uses (a tied head counted once). */
  readonly paramCount: number;
  /** Stored names of the tensors the model does not use (buffers such as GPT-2's attn.bias), in file order. */
  readonly ignored: readonly string[];
}

/** Whether the forward multiplies a param as B of x·B: every layer's matrices (the param table's) and the head. */
function isMultiplied(id: string): boolean {
  const { layer, kind } = parseParamId(id);
  return layer >= 0 ? isMatrixKind(kind) : id === PARAM.headW;
}

/** F16 and BF16 tensors are read through this buffer's halves into `alloc`'s arrays; F32 ones straight in, in parts of half its size (readTensor). */
const STAGING_BYTES = 16 << 20;

/**
 * Where a checkpoint's weights are held: the matmul kernel's memory (MatmulKernel), so that they
 * are held once and multiplied where they lie.
 */
export interface WeightHolder {
  /** A new array for weights; `zeroed` false: every number of it will be written before it is read; `room`: numbers its memory holds. */
  weightArray(length: number, zeroed?: boolean, room?: number): Float32Array;
  /** As weightArray, for a BF16/F16 matrix's 16-bit patterns. */
  halfArray(length: number, room?: number): Uint16Array;
  /** A weightArray's (or halfArray's) matrix as panels (core/params.ts), where it lies or in a new one, the old one's memory freed; null: it stays as it is. */
  intoPanels<W extends Float32Array | Uint16Array>(w: W, K: number, N: number, bLayout: 'kn' | 'nk'): W | null;
  /** Bytes it holds in all and in one array (MatmulKernel's); absent or undefined: one WebAssembly memory's. */
  weightLimits?(): WeightLimits | undefined;
  /** The kernel whose memory this is, for runs at resolve time (a steer's contrast); absent: a holder that is itself the kernel, or none. */
  kernel?(): MatmulKernel;
}

export interface LoadOptions {
  readonly hfCache?: boolean;
  readonly check?: (arch: ArchConfig) => void;
  /**
   * Given the tensors the model reads, once they are found and before a byte of them is read: may
   * refuse (throw), and gives the files the weights are read through (counted, cancellable).
   */
  readonly beforeRead?: (arch: ArchConfig, tensors: readonly TensorInfo[], files: CheckpointFiles, held: HeldBytes) => CheckpointFiles;
  /** BF16/F16 matrices decoded to float32 as they are read (the reference the 16-bit path is tested against). */
  readonly widen16?: boolean;
}

/**
 * Every file is read from inside `folder` (links followed; `opts.hfCache`: Hugging Face's cache
 * layout too, see inside.ts). `holder`: where the weights go; the matrices the forward multiplies are turned into panels as
 * each is read (the freed block takes the next tensors: memory grows by one matrix, not by all).
 * Without it, ordinary arrays in the layout the checkpoint stores. `opts.check`: a refusal of the
 * architecture, before anything but config.json is read. BF16 and F16 matrices that the forward
 * multiplies, and the embedding, are held as their 16-bit patterns (core/halfWeights.ts: widened
 * where they are read, to the same float32 numbers); `opts.widen16`: every tensor as float32, as
 * before (the reference the 16-bit path is checked against, bit for bit).
 */
export async function loadCheckpoint(files: CheckpointFiles, folder: string, holder?: WeightHolder, opts: LoadOptions = {}): Promise<Checkpoint> {
  // (what it is doing, for a fault nothing foresaw: said as an internal error in that step, never as a bare TypeError)
  const step = { now: 'reading config.json' };
  try {
    return await loadSteps(files, folder, holder, opts, step);
  } catch (e) {
    throw asOurs(e, step.now);
  }
}

async function loadSteps(files: CheckpointFiles, folder: string, holder: WeightHolder | undefined, opts: LoadOptions, step: { now: string }): Promise<Checkpoint> {
  // (each array a tensor is read into is written whole, or the load fails)
  const alloc = holder ? (n: number): Float32Array => holder.weightArray(n, false) : undefined;
  const arch = await readConfig(files, folder, opts.hfCache);
  opts.check?.(arch);
  step.now = 'reading the safetensors headers';
  const { tensors } = await openTensors(files, folder, opts);
  const prefix = modelPrefix(arch.modelType);
  // config.json's sizes against the headers' shapes, then every tensor found and of its shape,
  // before a byte of weights is read or a buffer made
  step.now = "checking config.json's sizes against the tensors";
  checkSizes(arch, tensors);
  const locate = (t: ExpectedTensor): TensorLocation & { stored: string } => locateTensor(tensors, prefix, t);
  step.now = 'finding the tensors the model reads';
  const head = headTensor(arch);
  const headStored = storedName(tensors, head.name, prefix);
  if (!arch.tied && headStored === null) {
    throw new CheckpointError(`the checkpoint has no tensor ${head.name}, and config.json does not tie the head to the embedding ("tie_word_embeddings" is false), expected ${head.what} = [${head.shape.join(', ')}]`, { tensor: head.name });
  }
  const heldHalf = (t: ExpectedTensor): boolean => !opts.widen16 && isHeldHalf(t, locate(t).info.dtype);
  const { bytes, largest } = weightBytes([...eachExpectedTensor(arch), ...(arch.tied ? [] : [head])], locate, heldHalf);
  // (the caller's look before a weight is read: the memory check, progress and Cancel, store.ts)
  if (opts.beforeRead) files = opts.beforeRead(arch, [...eachExpectedTensor(arch), ...(arch.tied ? [] : [head])].map((t) => locate(t).info), files, { bytes, largest: largest.bytes });
  if (holder) checkWeightBytes(bytes, largest, holder.weightLimits?.());

  const { used, dtypes, note, count } = tally();
  const staging = alloc ? new Uint8Array(STAGING_BYTES) : undefined;
  // GPT-2's c_attn with an allocator: its Q, K and V read straight into three arrays of it
  const split = (t: ExpectedTensor): boolean => t.role.kind === 'qkv' && alloc !== undefined;
  const read = async (t: ExpectedTensor, into?: (length: number) => Float32Array): Promise<Float32Array | Float32Array[]> => {
    const { file, info, stored } = locate(t);
    const parts = split(t) ? await readSplitColumns(files, file, info, 3, alloc!, staging!) : null;
    const data = parts ?? await readTensor(files, file, info, into, staging);
    note(stored, info.dtype, Array.isArray(data) ? data.reduce((n, d) => n + d.length, 0) : data.length);
    return data;
  };

  // Matrices the forward multiplies become panels where they lie (the embedding only as the head too).
  const multiplied = (id: string): boolean => !!holder && (isMultiplied(id) || (id === PARAM.embed && arch.tied));
  const into = (t: ExpectedTensor): ((n: number) => Float32Array) | undefined => {
    // (cut as read, or after: see read; a fused one read whole, then cut into the kernel's arrays)
    if (t.role.kind === 'qkv' || t.role.kind === 'qkvBias' || t.role.kind === 'fused') return undefined;
    if (t.role.kind !== 'matrix' || !multiplied(t.role.id)) return alloc;
    const [N, K] = t.role.layout === 'in_out' ? [t.shape[1], t.shape[0]] : t.shape;
    const room = panelsLength(K, N);
    return (n) => holder!.weightArray(n, false, room);
  };
  const asPanels = (id: string, p: Param): Param => (holder && multiplied(id) ? panelsOf(holder, p) : p);
  const readHalf = async (t: ExpectedTensor): Promise<Array<[string, Param]>> => {
    const { file, info, stored } = locate(t);
    const p = await readHalfMatrix(files, file, info, t, holder, multiplied);
    note(stored, info.dtype, p.half.bits.length);
    return [[(t.role as { id: string }).id, p]];
  };
  const paramsRead = async (t: ExpectedTensor): Promise<Array<[string, Param]>> => (heldHalf(t) ? readHalf(t) : paramsOf(t, await read(t, into(t)), alloc, arch));
  const params = new Map<string, Param>();
  const readAll = async (): Promise<void> => {
    for (const t of eachExpectedTensor(arch)) {
      step.now = `reading the tensor ${named(locate(t).stored)} of ${named(locate(t).file.shown)}`;
      for (const [id, p] of await paramsRead(t)) params.set(id, asPanels(id, p));
    }
    // the head: the embedding's own Param when tied, else lm_head
    step.now = 'reading the head';
    if (arch.tied) {
      params.set(PARAM.headW, params.get(PARAM.embed)!);
      if (headStored !== null) used.add(headStored); // a tied head saved anyway holds the embedding's numbers
    } else {
      for (const [id, p] of await paramsRead(head)) params.set(id, asPanels(id, p));
    }
  };
  try {
    await readAll();
  } catch (e) {
    // (the machine's memory, not the kernel's limit, ran out: said as what was asked)
    if (!isOutOfMemory(e)) throw e;
    throw new CheckpointError(`the checkpoint's weights need ${formatBytes(bytes)}, and the memory ran out holding them: close other model files, or open a smaller model`);
  }
  const ignored = [...tensors.keys()].filter((n) => !used.has(n));
  return { folder, arch, params, dtypes: [...dtypes].sort(), paramCount: count(), ignored };
}

/** The tensors read (by stored name), their dtypes and their numbers. */
function tally(): { used: Set<string>; dtypes: Set<string>; note: (stored: string, dtype: string, n: number) => void; count: () => number } {
  const used = new Set<string>();
  const dtypes = new Set<string>();
  let paramCount = 0;
  const note = (stored: string, dtype: string, n: number): void => {
    used.add(stored);
    dtypes.add(dtype);
    paramCount += n;
  };
  return { used, dtypes, note, count: () => paramCount };
}

/**
 * Whether a tensor is read as its 16-bit patterns: a BF16/F16 matrix the forward multiplies, or the
 * embedding (whose rows alone are read otherwise); a fused one (cut by roles as it is read) and
 * GPT-2's positions are float32.
 */
function isHeldHalf(t: ExpectedTensor, dtype: string): boolean {
  return (dtype === 'BF16' || dtype === 'F16') && t.role.kind === 'matrix' && (isMultiplied(t.role.id) || t.role.id === PARAM.embed);
}

/** A 16-bit matrix read as it is, into the holder with the room to become panels where it lies when it is `multiplied`. */
async function readHalfMatrix(files: CheckpointFiles, file: SafetensorsFile, info: TensorInfo, t: ExpectedTensor, holder: WeightHolder | undefined, multiplied: (id: string) => boolean): Promise<HalfParam> {
  if (t.role.kind !== 'matrix') throw new TypeError(`readHalfMatrix: ${t.name} is not a matrix`);
  const [N, K] = t.role.layout === 'in_out' ? [t.shape[1], t.shape[0]] : t.shape;
  const room = multiplied(t.role.id) ? panelsLength(K, N) : K * N;
  const half = await readTensorBits(files, file, info, holder ? (n) => holder.halfArray(n, room) : undefined, STAGING_BYTES >> 1);
  return { half, shape: t.shape, layout: t.role.layout };
}

/** A matrix the forward multiplies as panels (core/params.ts), rearranged by the holder where it can. */
function panelsOf(holder: WeightHolder, p: Param): Param {
  if (!p.layout || p.layout === 'panels') return p;
  const [N, K] = outputsInputs(p);
  const bLayout = p.layout === 'in_out' ? 'kn' : 'nk';
  if (p.half) {
    // (where the kernel cannot rearrange them, 16-bit panels made here, which it copies in as they are)
    let bits = holder.intoPanels(p.half.bits, K, N, bLayout);
    if (!bits) halfPanelsInto(p.half.bits, (bits = new Uint16Array(panelsLength(K, N))), K, N, bLayout);
    return { half: { dtype: p.half.dtype, bits }, shape: [N, K], layout: 'panels' };
  }
  const data = holder.intoPanels(p.data, K, N, bLayout);
  return data ? { data, shape: [N, K], layout: 'panels' } : p;
}

/** Where a tensor the model reads is stored, checked for its shape. */
function locateTensor(tensors: ReadonlyMap<string, TensorLocation>, prefix: string, t: ExpectedTensor): TensorLocation & { stored: string } {
  const stored = storedName(tensors, t.name, prefix);
  const want = `${t.what} = [${t.shape.join(', ')}]`;
  if (stored === null) throw new CheckpointError(`the checkpoint has no tensor ${prefix}${t.name} (nor ${t.name}), expected ${want}`, { tensor: t.name });
  const { file, info } = tensors.get(stored)!;
  if (info.shape.length !== t.shape.length || info.shape.some((d, i) => d !== t.shape[i])) {
    throw new CheckpointError(`${stored} is ${describeValue(info.shape)}, expected ${want}`, { file: file.shown, tensor: stored });
  }
  return { file, info, stored };
}

/** config.json is a few KB (a few hundred with a long label map): a larger one is not read whole. */
export const MAX_CONFIG_BYTES = 16 << 20;

/** A WebAssembly memory (wasm32) addresses 4 GiB: the kernel's, where a checkpoint's weights are held, cannot grow past it. */
export const WEIGHT_MEMORY_BYTES = 2 ** 32;

async function readConfig(files: CheckpointFiles, folder: string, hfCache: boolean | undefined): Promise<ArchConfig> {
  const configPath = await checkedFile(files, checkpointRoot(folder, hfCache), 'config.json', (why) => `config.json in ${named(folder)} ${why}: FFN Lens reads only files inside the checkpoint folder`, { file: 'config.json' });
  const size = configPath === null ? null : await files.size(configPath);
  if (configPath === null || size === null) {
    throw new CheckpointError(`no config.json in ${named(folder)} (is it the folder of a Hugging Face model?)`, { file: 'config.json' });
  }
  if (size > MAX_CONFIG_BYTES) {
    throw new CheckpointError(`config.json is ${formatBytes(size)}; a model's config.json is a few KB (FFN Lens reads up to ${formatBytes(MAX_CONFIG_BYTES)})`, { file: 'config.json' });
  }
  return parseConfig(new TextDecoder().decode(await files.read(configPath)), 'config.json');
}

/** Bytes of the tensors as held (float32, BF16/F16 matrices at 2), and the largest as a weight array may hold it (panels: up to 15 columns of padding, and 16 numbers of slack). */
function weightBytes(tensors: readonly ExpectedTensor[], locate: (t: ExpectedTensor) => TensorLocation & { stored: string }, half: (t: ExpectedTensor) => boolean): { bytes: number; largest: { bytes: number; name: string } } {
  let bytes = 0;
  let largest = { bytes: 0, name: '' };
  for (const t of tensors) {
    const { info, stored } = locate(t);
    const per = half(t) ? 2 : 4;
    bytes += sizeOf(info.shape) * per;
    const padded = (sizeOf(info.shape) + PANEL_UNITS * (Math.max(0, ...info.shape) + 1)) * per;
    if (padded > largest.bytes) largest = { bytes: padded, name: stored };
  }
  return { bytes, largest };
}

/**
 * The weights as held (float32, BF16/F16 matrices at 2 bytes a number) must fit the holder: all of
 * them one WebAssembly memory where it says nothing else, each tensor one memory.
 */
function checkWeightBytes(bytes: number, largest: { readonly bytes: number; readonly name: string }, limits?: WeightLimits): void {
  // (the panels' padding and the read's staging take a little more: an eighth kept aside)
  const room = WEIGHT_MEMORY_BYTES * 7 / 8;
  const { total, array } = limits ?? { total: room, array: room };
  if (bytes > total) {
    throw new CheckpointError(`the checkpoint's weights need ${formatBytes(bytes)} as FFN Lens holds them (float32, BF16 and F16 matrices at 2 bytes a number), available ${formatBytes(total)}: FFN Lens holds them in a WebAssembly memory, which cannot grow past 4 GiB`);
  }
  if (largest.bytes > array) {
    throw new CheckpointError(`${largest.name} needs ${formatBytes(largest.bytes)} as FFN Lens holds it, available ${formatBytes(array)}: FFN Lens holds each tensor in one WebAssembly memory`, { tensor: largest.name });
  }
}

/**
 * The block options of architectures-v2 that archSpec cannot pass to the core, in words. Every
 * option an adapter gives is wired (issue 29); what remains is a combination no adapter makes,
 * refused rather than computed as something else.
 */
export function unwiredOptions(arch: ArchConfig): string[] {
  const out: string[] = [];
  // (each per-layer list has a setting for every layer)
  if (arch.layerRope && arch.layerRope.length !== arch.L) out.push(`RoPE settings for ${arch.layerRope.length} of ${arch.L} layers`);
  if (arch.slidingWindow && arch.slidingWindow.length !== arch.L) out.push(`sliding windows for ${arch.slidingWindow.length} of ${arch.L} layers`);
  return out;
}

/** Throws, naming what is missing, where archSpec cannot describe the architecture's block. */
export function checkComputable(arch: ArchConfig): void {
  const missing = unwiredOptions(arch);
  if (missing.length > 0) {
    throw new CheckpointError(`config.json: this ${arch.modelType} checkpoint loads, but FFN Lens does not compute its block (${missing.join(', ')})`, { file: 'config.json' });
  }
}

/** The core's spec of a checkpoint's model for an input: the architecture as checkpoints-v1 and architectures-v2 say. */
export function archSpec(arch: ArchConfig, opts: { readonly ids: readonly number[]; readonly temperature: number; readonly lens: boolean }): ModelSpec {
  checkComputable(arch);
  const gpt2 = arch.modelType === 'gpt2';
  // (a norm's epsilon is keyed by its name, the id of the stage it computes; q/k norms by their params' prefix)
  const eps = new Map<string, number>([[STAGE.lnF, arch.eps]]);
  for (let i = 0; i < arch.L; i++) {
    const kinds: string[] = [STAGE.ln1, STAGE.ln2];
    if (arch.postNorms) kinds.push(STAGE.ln1Post, STAGE.ln2Post);
    for (const k of kinds) eps.set(stageId(i, k), arch.eps);
    if (arch.qkNorm) for (const g of [PARAM.qNorm, PARAM.kNorm]) eps.set(normOf(paramId(i, g))!, arch.eps);
  }
  // (per layer where layers differ: gemma3's local base on sliding layers, partial rotary)
  const ropeOf = (i: number): RopeSpec | null => {
    if (arch.ropeTheta === null) return null;
    const r = arch.layerRope?.[i];
    const scaling = r ? r.scaling : arch.ropeScaling;
    const partial = r !== undefined && r.rotaryDims < arch.HS;
    return { theta: r ? r.theta : arch.ropeTheta, ...(scaling ? { scaling } : {}), ...(partial ? { rotaryDims: r.rotaryDims } : {}) };
  };
  const qkNorm = arch.qkNorm ? { eps: arch.eps, onePlus: arch.qkNorm === 'one_plus' } : null;
  const attention = (i: number): AttentionSpec => {
    const window = arch.slidingWindow?.[i] ?? null;
    return {
      NH: arch.NH, KVH: arch.KVH, HS: arch.HS, causal: true, rope: ropeOf(i),
      ...(arch.attnScale !== undefined ? { scale: arch.attnScale } : {}),
      ...(arch.attnSoftcap !== undefined ? { softcap: arch.attnSoftcap } : {}),
      ...(window !== null ? { window } : {}),
      ...(qkNorm ? { qkNorm } : {}),
    };
  };
  return {
    T: opts.ids.length, C: arch.C,
    embedding: { kind: 'tokens', ids: [...opts.ids], positional: gpt2 ? 'learned' : 'none' },
    norm: 'pre', normKind: arch.normKind ?? (gpt2 ? 'layernorm' : 'rmsnorm'), eps, residual: true,
    layers: Array.from({ length: arch.L }, (_, i): LayerSpec => ({
      attention: attention(i),
      ffn: { F: arch.F, activation: arch.activation },
      ...(arch.parallelResidual ? { parallelResidual: true } : {}),
      ...(arch.postNorms ? { postNorms: true } : {}),
    })),
    finalNorm: true,
    head: { V: arch.V, temperature: opts.temperature, ...(arch.finalSoftcap !== undefined ? { softcap: arch.finalSoftcap } : {}) },
    lens: opts.lens,
    ...(arch.normOnePlus ? { normOnePlus: true } : {}),
    ...(arch.embedScale !== undefined ? { embedScale: arch.embedScale } : {}),
  };
}
