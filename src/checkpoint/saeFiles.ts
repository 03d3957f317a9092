// A sparse autoencoder's files, in the two layouts released SAEs come in:
//   SAELens: cfg.json (d_in, d_sae, architecture or activation_fn, k, apply_b_dec_to_input,
//            normalize_activations …) + sae_weights.safetensors (W_enc [d_in, d_sae], b_enc,
//            W_dec [d_sae, d_in], b_dec, threshold for JumpReLU);
//   Gemma Scope: params.npz (the same five arrays; JumpReLU, b_dec not taken off the input).
// Every size is checked against the config (or W_enc's shape) before a number is read; a wrong
// one names its file and its field.

import { asOurs, CheckpointError } from './errors';
import type { CheckpointFiles } from './files';
import { checkedFile, type Root } from './inside';
import { npzEntries, readNpy } from './npz';
import type { WeightHolder } from './load';
import { readHeader, readTensor, readTensorBits, type SafetensorsFile, type TensorInfo } from './safetensors';
import { describeValue } from '../common/quote';
import { panelsLength, type Param } from '../core/params';
import { SAE_ACTIVATIONS, SAE_NORMALIZE, type SaeActivation, type SaeNormalize, type SaeSpec } from '../core/saeSpec';

/** What an SAE computes, but where it is attached (the model file says that). */
export type SaeConfig = Omit<SaeSpec, 'site'> & {
  /** Its config's hook (`blocks.12.hook_resid_post`) and Neuronpedia id, when it names them. */
  readonly hookName?: string;
  readonly neuronpedia?: string;
};

export interface SaeWeights {
  /**
   * W_enc [d_in, d_sae] as the matrix param the encoder multiplies: with a holder (the kernel), its
   * panels in the kernel's memory, held once (the product reads them where they lie), 16-bit when
   * the file's are (BF16/F16 widened inside the product); else in_out as read.
   */
  readonly Wenc: Param;
  readonly benc: Float32Array | null;
  readonly Wdec: Float32Array;
  readonly bdec: Float32Array | null;
  readonly threshold: Float32Array | null;
}

export interface LoadedSae {
  readonly format: 'saelens' | 'gemma-scope';
  readonly config: SaeConfig;
  readonly weights: SaeWeights;
}

const CFG = 'cfg.json';
const WEIGHTS = 'sae_weights.safetensors';
const NPZ = 'params.npz';
/** The staging buffer a tensor is read through into the holder (load.ts's is larger: a checkpoint's tensors are). */
const STAGING_BYTES = 8 << 20;

/** The SAE in `folder` (SAELens' layout, else Gemma Scope's); nothing is read from outside it. */
export async function loadSae(files: CheckpointFiles, folder: string, hfCache = true, holder?: WeightHolder): Promise<LoadedSae> {
  // (what it is doing, for a fault nothing foresaw: an internal error in that step, never a bare TypeError)
  const step = { now: `looking for ${CFG} or ${NPZ}` };
  try {
    return await loadSteps(files, folder, hfCache, step, holder);
  } catch (e) {
    throw asOurs(e, step.now);
  }
}

async function loadSteps(files: CheckpointFiles, folder: string, hfCache: boolean, step: { now: string }, holder?: WeightHolder): Promise<LoadedSae> {
  const root: Root = { path: folder, hfCache, shown: "the SAE's folder" };
  const inside = (name: string): Promise<string | null> => checkedFile(files, root, name, (why) => `${name} ${why}: FFN Lens reads only files inside the SAE's folder`, { file: name });
  const cfg = await inside(CFG);
  if (cfg !== null && (await files.size(cfg)) !== null) return loadSaeLens(files, cfg, await inside(WEIGHTS), folder, step, holder);
  const npz = await inside(NPZ);
  if (npz !== null && (await files.size(npz)) !== null) return loadGemmaScope(files, npz, folder, step, holder);
  throw new CheckpointError(`no SAE there: expected SAELens' ${CFG} + ${WEIGHTS}, or Gemma Scope's ${NPZ}`);
}

async function loadSaeLens(files: CheckpointFiles, cfgPath: string, weightsPath: string | null, folder: string, step: { now: string }, holder?: WeightHolder): Promise<LoadedSae> {
  step.now = `reading ${CFG}`;
  let raw: unknown;
  const text = new TextDecoder().decode(await files.read(cfgPath));
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CheckpointError(`${CFG} is not JSON (SAELens writes it as an object of the SAE's settings: d_in, d_sae, architecture …)`, { file: CFG });
  }
  const config = saeLensConfig(raw, folderName(folder));
  if (weightsPath === null || (await files.size(weightsPath)) === null) throw new CheckpointError(`${WEIGHTS} is missing beside ${CFG}`, { file: WEIGHTS });
  step.now = `reading the header of ${WEIGHTS}`;
  const file = await readHeader(files, weightsPath, WEIGHTS);
  const { dIn, dSae } = config;
  const want: Record<string, readonly number[] | null> = { W_enc: [dIn, dSae], b_enc: [dSae], W_dec: [dSae, dIn], b_dec: [dIn], threshold: config.activation === 'jumprelu' ? [dSae] : null };
  // every shape checked before any tensor is read
  for (const [name, shape] of Object.entries(want)) {
    const t = file.tensors.get(name);
    const needed = name === 'W_enc' || name === 'W_dec' || (name === 'threshold' && shape !== null);
    if (!t) {
      if (needed) throw new CheckpointError(`${WEIGHTS} has no tensor ${name}${name === 'threshold' ? ' (a jumprelu SAE needs its thresholds)' : ''}`, { file: WEIGHTS, tensor: name });
      continue;
    }
    if (shape && (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))) {
      throw new CheckpointError(`${WEIGHTS}: tensor ${name} is ${describeValue(t.shape)}; ${CFG}'s d_in ${dIn} and d_sae ${dSae} make it [${shape.join(', ')}]`, { file: WEIGHTS, tensor: name });
    }
  }
  const read = async (name: string): Promise<Float32Array | null> => {
    const t = file.tensors.get(name);
    step.now = `reading the tensor ${name} of ${WEIGHTS}`;
    return t && want[name] ? readTensor(files, file, t) : null;
  };
  step.now = `reading the tensor W_enc of ${WEIGHTS}`;
  const Wenc = await readEncoder(files, file, file.tensors.get('W_enc')!, dIn, dSae, holder);
  const weights: SaeWeights = { Wenc, benc: await read('b_enc'), Wdec: (await read('W_dec'))!, bdec: await read('b_dec'), threshold: await read('threshold') };
  return { format: 'saelens', config, weights };
}

/** W_enc read into the holder with the room to become panels where it lies (in its own dtype when 16-bit). */
async function readEncoder(files: CheckpointFiles, file: SafetensorsFile, t: TensorInfo, dIn: number, dSae: number, holder: WeightHolder | undefined): Promise<Param> {
  const room = panelsLength(dIn, dSae);
  if (t.dtype === 'BF16' || t.dtype === 'F16') {
    const half = await readTensorBits(files, file, t, holder ? (n) => holder.halfArray(n, room) : undefined);
    const bits = holder?.intoPanels(half.bits, dIn, dSae, 'kn') ?? null;
    return bits ? { half: { dtype: half.dtype, bits }, shape: [dSae, dIn], layout: 'panels' } : { half, shape: [dIn, dSae], layout: 'in_out' };
  }
  const data = await readTensor(files, file, t, holder ? (n) => holder.weightArray(n, false, room) : undefined, holder ? new Uint8Array(STAGING_BYTES) : undefined);
  return encoderParam(data, dIn, dSae, holder);
}

/** A float32 W_enc [d_in, d_sae] as the encoder's param: panels where the holder can make them, else in_out. */
function encoderParam(data: Float32Array, dIn: number, dSae: number, holder: WeightHolder | undefined): Param {
  const panels = holder?.intoPanels(data, dIn, dSae, 'kn') ?? null;
  return panels ? { data: panels, shape: [dSae, dIn], layout: 'panels' } : { data, shape: [dIn, dSae], layout: 'in_out' };
}

/** cfg.json → the SAE's config, each field checked (SAELens' defaults where it has one). */
export function saeLensConfig(raw: unknown, name: string): SaeConfig {
  const bad = (field: string, why: string): CheckpointError => new CheckpointError(`${CFG}: ${field} ${why}`, { file: CFG });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CheckpointError(`${CFG} is not a JSON object: it is ${describeValue(raw)}`, { file: CFG });
  const c = raw as Record<string, unknown>;
  const meta = (typeof c.metadata === 'object' && c.metadata !== null ? c.metadata : {}) as Record<string, unknown>;
  const size = (field: string): number => {
    const v = c[field];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw bad(field, `is ${describeValue(v)}; expected a positive integer`);
    if (v > 1 << 24) throw bad(field, `is ${v}; FFN Lens reads SAEs of at most ${1 << 24} features and inputs`);
    return v;
  };
  const dIn = size('d_in');
  const dSae = size('d_sae');
  const activation = activationOf(c, bad);
  let k: number | undefined;
  if (activation === 'topk') {
    const kwargs = (typeof c.activation_fn_kwargs === 'object' && c.activation_fn_kwargs !== null ? c.activation_fn_kwargs : {}) as Record<string, unknown>;
    const v = c.k ?? kwargs.k;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > dSae) throw bad('k', `is ${describeValue(v)}; a topk SAE needs k, an integer from 1 to d_sae (${dSae})`);
    k = v;
  }
  const applyRaw = c.apply_b_dec_to_input ?? true;
  if (typeof applyRaw !== 'boolean') throw bad('apply_b_dec_to_input', `is ${describeValue(applyRaw)}; expected true or false`);
  const normRaw = c.normalize_activations ?? 'none';
  if (typeof normRaw !== 'string' || !(SAE_NORMALIZE as readonly string[]).includes(normRaw)) {
    throw bad('normalize_activations', `is ${describeValue(normRaw)}; FFN Lens reads ${SAE_NORMALIZE.join(', ')}`);
  }
  const normalize = normRaw as SaeNormalize;
  const factor = c.norm_scaling_factor ?? c.scaling_factor;
  if (factor !== undefined && factor !== null && (typeof factor !== 'number' || !(factor > 0) || !Number.isFinite(factor))) throw bad('norm_scaling_factor', `is ${describeValue(factor)}; expected a positive number`);
  const hook = c.hook_name ?? meta.hook_name;
  const np = c.neuronpedia_id ?? meta.neuronpedia_id;
  return {
    dIn, dSae, activation, ...(k === undefined ? {} : { k }), applyBDecToInput: applyRaw, normalize,
    ...(normalize === 'expected_average_only_in' && typeof factor === 'number' ? { scalingFactor: factor } : {}),
    name, ...(typeof hook === 'string' ? { hookName: hook } : {}), ...(typeof np === 'string' ? { neuronpedia: np } : {}),
  };
}

/** The activation: `architecture` (SAELens 4+: standard, jumprelu, topk), else `activation_fn` / `activation_fn_str` (relu, topk). */
function activationOf(c: Record<string, unknown>, bad: (field: string, why: string) => CheckpointError): SaeActivation {
  const arch = c.architecture;
  const fn = c.activation_fn ?? c.activation_fn_str ?? 'relu';
  if (arch !== undefined && arch !== 'standard') {
    if (arch === 'jumprelu' || arch === 'topk') return arch;
    throw bad('architecture', `is ${describeValue(arch)}; FFN Lens reads standard, topk and jumprelu SAEs`);
  }
  if (typeof fn === 'string' && (SAE_ACTIVATIONS as readonly string[]).includes(fn)) return fn as SaeActivation;
  throw bad('activation_fn', `is ${describeValue(fn)}; FFN Lens reads relu, topk and jumprelu`);
}

async function loadGemmaScope(files: CheckpointFiles, path: string, folder: string, step: { now: string }, holder?: WeightHolder): Promise<LoadedSae> {
  step.now = `reading the zip directory of ${NPZ}`;
  const entries = await npzEntries(files, path, NPZ);
  const entry = (name: string, required: boolean): ReturnType<typeof entries.get> => {
    const e = entries.get(name);
    if (!e && required) throw new CheckpointError(`${NPZ} has no array ${name} (Gemma Scope's params.npz holds W_enc, W_dec, b_enc, b_dec, threshold)`, { file: NPZ, tensor: name });
    return e;
  };
  step.now = `reading the array W_enc of ${NPZ}`;
  const enc = await readNpy(files, path, entry('W_enc', true)!, NPZ);
  if (enc.shape.length !== 2) throw new CheckpointError(`${NPZ}: array W_enc is ${describeValue(enc.shape)}; expected [d_in, d_sae]`, { file: NPZ, tensor: 'W_enc' });
  const [dIn, dSae] = enc.shape;
  const opt = async (name: string, shape: readonly number[], required = false): Promise<Float32Array | null> => {
    const e = entry(name, required);
    step.now = `reading the array ${name} of ${NPZ}`;
    return e ? (await readNpy(files, path, e, NPZ, shape)).data : null;
  };
  const Wdec = (await opt('W_dec', [dSae, dIn], true))!;
  // (W_enc copied into the holder, the array read let go: held once)
  const held = holder ? holder.weightArray(enc.data.length, false, panelsLength(dIn, dSae)) : enc.data;
  if (held !== enc.data) held.set(enc.data);
  const weights: SaeWeights = { Wenc: encoderParam(held, dIn, dSae, holder), Wdec, benc: await opt('b_enc', [dSae]), bdec: await opt('b_dec', [dIn]), threshold: await opt('threshold', [dSae], true) };
  return { format: 'gemma-scope', config: { dIn, dSae, activation: 'jumprelu', applyBDecToInput: false, normalize: 'none', name: folderName(folder) }, weights };
}

function folderName(folder: string): string {
  const parts = folder.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  return parts.slice(-2).join('/') || folder;
}
