// The safetensors format (Hugging Face): 8 bytes of little-endian header length N, N bytes of JSON
// ({name: {dtype, shape, data_offsets: [begin, end]}} plus an optional "__metadata__"), then the
// tensors' bytes, offsets counted from the end of the header. Read tensor by tensor with ranged
// reads, so a 500 MB checkpoint is never held twice; F32, F16 and BF16 become float32.

import type { CheckpointFiles } from './files';

export class CheckpointError extends Error {
  constructor(message: string, readonly file?: string, readonly tensor?: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

export type Dtype = 'F32' | 'F16' | 'BF16';
const SIZES: Record<string, number> = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1, F8_E4M3: 1, F8_E5M2: 1 };

export interface TensorInfo {
  readonly name: string;
  readonly dtype: Dtype;
  readonly shape: readonly number[];
  /** Absolute byte offsets in the file. */
  readonly begin: number;
  readonly end: number;
}

export interface SafetensorsFile {
  readonly path: string;
  readonly tensors: ReadonlyMap<string, TensorInfo>;
}

/** Header limit: the Hub's largest headers are a few MB; a corrupt length must not allocate GBs. */
const MAX_HEADER = 100 * 1024 * 1024;

/** Reads and checks a file's header (every tensor inside the file, no overlaps, sizes that match shapes). */
export async function readHeader(files: CheckpointFiles, path: string, shown = path): Promise<SafetensorsFile> {
  const size = await files.size(path);
  if (size === null) throw new CheckpointError(`${shown} is missing`, shown);
  if (size < 8) throw new CheckpointError(`${shown} is not a safetensors file: ${size} bytes, less than its 8-byte header length`, shown);
  const lenBytes = await files.read(path, 0, 8);
  const n = Number(new DataView(lenBytes.buffer, lenBytes.byteOffset, 8).getBigUint64(0, true));
  if (n > size - 8) throw new CheckpointError(`${shown} is truncated or not a safetensors file: its header says ${n} bytes, the file has ${size - 8} after the length`, shown);
  if (n > MAX_HEADER) throw new CheckpointError(`${shown}: a header of ${n} bytes is not plausible (corrupt file?)`, shown);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await files.read(path, 8, 8 + n)));
  } catch {
    throw new CheckpointError(`${shown} is corrupt: its header is not JSON`, shown);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new CheckpointError(`${shown} is corrupt: its header is not a JSON object`, shown);
  const dataStart = 8 + n;
  const tensors = new Map<string, TensorInfo>();
  const spans: Array<[number, number, string]> = [];
  for (const [name, v] of Object.entries(json as Record<string, unknown>)) {
    if (name === '__metadata__') continue;
    const t = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const bad = (why: string): never => { throw new CheckpointError(`${shown}: tensor ${name} ${why}`, shown, name); };
    if (typeof t?.dtype !== 'string') bad('has no dtype');
    const dtype = t.dtype as string;
    if (!Array.isArray(t.shape) || !t.shape.every((d) => Number.isInteger(d) && d >= 0)) bad('has no valid shape');
    if (!Array.isArray(t.data_offsets) || t.data_offsets.length !== 2 || !t.data_offsets.every((d) => Number.isInteger(d) && d >= 0)) bad('has no valid data_offsets');
    const shape = t.shape as number[];
    const [b, e] = t.data_offsets as [number, number];
    const elemSize = SIZES[dtype];
    if (elemSize === undefined) bad(`has an unknown dtype "${dtype}"`);
    const want = shape.reduce((x, y) => x * y, 1) * elemSize;
    if (e - b !== want) bad(`holds ${e - b} bytes; [${shape.join(', ')}] of ${dtype} needs ${want}`);
    if (dataStart + e > size) bad(`ends at byte ${dataStart + e}, past the end of the file (${size} bytes): the file is truncated`);
    spans.push([b, e, name]);
    tensors.set(name, { name, dtype: dtype as Dtype, shape, begin: dataStart + b, end: dataStart + e });
  }
  spans.sort((x, y) => x[0] - y[0]);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i][0] < spans[i - 1][1]) throw new CheckpointError(`${shown} is corrupt: tensors ${spans[i - 1][2]} and ${spans[i][2]} overlap`, shown, spans[i][2]);
  }
  return { path, tensors };
}

/** One tensor as float32 (F32 as stored, F16 and BF16 converted exactly). */
export async function readTensor(files: CheckpointFiles, file: SafetensorsFile, t: TensorInfo, shown = file.path): Promise<Float32Array> {
  if (t.dtype !== 'F32' && t.dtype !== 'F16' && t.dtype !== 'BF16') {
    throw new CheckpointError(`${shown}: tensor ${t.name} is ${t.dtype}; FFN Lens reads F32, F16 and BF16`, shown, t.name);
  }
  const bytes = await files.read(file.path, t.begin, t.end);
  const n = t.shape.reduce((x, y) => x * y, 1);
  if (t.dtype === 'F32') {
    // a view when aligned (the usual case), else one copy
    if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, n);
    return new Float32Array(bytes.slice().buffer, 0, n);
  }
  const h = bytes.byteOffset % 2 === 0 ? new Uint16Array(bytes.buffer, bytes.byteOffset, n) : new Uint16Array(bytes.slice().buffer, 0, n);
  const out = new Float32Array(n);
  if (t.dtype === 'BF16') {
    const u = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) u[i] = h[i] << 16;
  } else {
    for (let i = 0; i < n; i++) out[i] = f16(h[i]);
  }
  return out;
}

/** IEEE half precision → number, exactly (subnormals, infinities, NaN). */
export function f16(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
