// The safetensors format (Hugging Face): 8 bytes of little-endian header length N, N bytes of JSON
// ({name: {dtype, shape, data_offsets: [begin, end]}} plus an optional "__metadata__"), then the
// tensors' bytes, offsets counted from the end of the header. The header is read and checked
// first; then tensors are read one by one with ranged reads, so a 500 MB checkpoint is never held
// twice. F32, F16 and BF16 become float32 exactly.

import { CheckpointError, named } from './errors';
import type { CheckpointFiles } from './files';
import { parseHeader, type TensorInfo } from './safetensorsHeader';
import { cutRowsInto } from './tensorNames';
import { formatCount } from '../common/numberFormat';
import { f16Bits, type HalfBits, type HalfDtype } from '../core/halfWeights';

export { parseHeader, type TensorInfo } from './safetensorsHeader';

/** The dtypes FFN Lens reads. */
export type Dtype = 'F32' | 'F16' | 'BF16';
export const READABLE_DTYPES: readonly Dtype[] = ['F32', 'F16', 'BF16'];

/** Bytes per element of the dtypes read. */
const SIZES: Readonly<Record<Dtype, number>> = { F32: 4, F16: 2, BF16: 2 };

export interface SafetensorsFile {
  readonly path: string;
  /** How messages name the file (its name in the folder). */
  readonly shown: string;
  readonly tensors: ReadonlyMap<string, TensorInfo>;
}

/** Header limit, the Rust crate's: the Hub's largest headers are a few MB; a corrupt length must not allocate GBs. */
export const MAX_HEADER = 100_000_000;

/**
 * Reads and checks a file's header (safetensorsHeader.ts): its tensors tile the data to the
 * file's end. A file that is not safetensors is described, never quoted: the 8 bytes of a text
 * file read as a length are that text.
 */
export async function readHeader(files: CheckpointFiles, path: string, shown = path): Promise<SafetensorsFile> {
  const file = named(shown);
  const size = await files.size(path);
  if (size === null) throw new CheckpointError(`${file} is missing`, { file: shown });
  if (size < 8) throw new CheckpointError(`${file} is not a safetensors file (it has ${size} bytes, fewer than the 8 that give its header's length)`, { file: shown });
  const lenBytes = await files.read(path, 0, 8);
  const n = new DataView(lenBytes.buffer, lenBytes.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(size - 8)) throw new CheckpointError(`${file} is not a safetensors file (its header length is larger than the file)`, { file: shown });
  if (n > BigInt(MAX_HEADER)) throw new CheckpointError(`${file} is not a safetensors file (its header length is over ${formatCount(MAX_HEADER)} bytes, the most safetensors reads)`, { file: shown });
  const tensors = parseHeader(await files.read(path, 8, 8 + Number(n)), size, shown);
  return { path, shown, tensors };
}

/**
 * One tensor as float32: F32 as stored, F16 and BF16 converted exactly; into `alloc(n)` when given
 * (the kernel's own memory). With an allocator, a staging buffer and files that read into a given
 * buffer, nothing is held beside the result: F32 is read straight into it, part by part with
 * PARTS_IN_FLIGHT reads at a time; F16 and BF16 through the staging buffer's halves, each decoded
 * while the next is read. Else one ranged read of the tensor's bytes.
 */
export async function readTensor(files: CheckpointFiles, file: SafetensorsFile, t: TensorInfo, alloc?: (length: number) => Float32Array, staging?: Uint8Array): Promise<Float32Array> {
  if (!(READABLE_DTYPES as readonly string[]).includes(t.dtype)) {
    throw new CheckpointError(`${named(file.shown)}: tensor ${named(t.name)} is ${t.dtype}; FFN Lens reads ${READABLE_DTYPES.join(', ')}`, { file: file.shown, tensor: t.name });
  }
  const dtype = t.dtype as Dtype;
  const size = SIZES[dtype];
  const byteLength = t.end - t.begin;
  if (alloc && staging && files.readInto && byteLength % size === 0) {
    const half = staging.length >> 3 << 2; // a multiple of 4 bytes: whole numbers of every dtype
    if (half === 0) throw new RangeError('readTensor: a staging buffer of at least 8 bytes');
    const out = alloc(byteLength / size);
    if (dtype === 'F32') {
      // Straight into the kernel's memory: the page faults of its fresh pages are taken by the
      // reading threads, off this one, and nothing is copied twice (GPT-2-small read in a Node worker
      // in 440-530 ms, against 560-880 through the staging buffer).
      await readInParts(files, file.path, t.begin, new Uint8Array(out.buffer, out.byteOffset, byteLength), half);
      return out;
    }
    await readThroughHalves(files, file.path, t.begin, byteLength, staging, 4, (part, at) => decodeInto(part, dtype, out, at / size));
    return out;
  }
  const bytes = await files.read(file.path, t.begin, t.end);
  if (bytes.length !== byteLength) {
    throw new CheckpointError(`${named(file.shown)}: tensor ${named(t.name)} gave ${bytes.length} bytes, expected ${byteLength} (was the file changed while being read?)`, { file: file.shown, tensor: t.name });
  }
  return decodeTensor(bytes, dtype, alloc);
}

/**
 * One BF16 or F16 tensor as its 16-bit patterns (held as they are: core/halfWeights.ts), into
 * `alloc(n)` when given (the kernel's own memory), read straight into it where the files can read
 * into a buffer (no staging, nothing decoded), else one ranged read copied in.
 */
export async function readTensorBits(files: CheckpointFiles, file: SafetensorsFile, t: TensorInfo, alloc: (length: number) => Uint16Array = (n) => new Uint16Array(n), partBytes = 8 << 20): Promise<HalfBits> {
  if (t.dtype !== 'BF16' && t.dtype !== 'F16') throw new TypeError(`readTensorBits: ${t.name} is ${t.dtype}`);
  const dtype: HalfDtype = t.dtype;
  const byteLength = t.end - t.begin;
  const n = byteLength >> 1;
  if (files.readInto && byteLength % 2 === 0) {
    const out = alloc(n);
    await readInParts(files, file.path, t.begin, new Uint8Array(out.buffer, out.byteOffset, byteLength), partBytes);
    return { dtype, bits: out };
  }
  const bytes = await files.read(file.path, t.begin, t.end);
  if (bytes.length !== byteLength) {
    throw new CheckpointError(`${named(file.shown)}: tensor ${named(t.name)} gave ${bytes.length} bytes, expected ${byteLength} (was the file changed while being read?)`, { file: file.shown, tensor: t.name });
  }
  const out = alloc(n);
  new Uint8Array(out.buffer, out.byteOffset, 2 * n).set(bytes.subarray(0, 2 * n));
  return { dtype, bits: out };
}

/**
 * A [rows][cols] F32 tensor cut into `parts` matrices of cols/parts columns each, side by side
 * (GPT-2's c_attn: Q, K and V), each in a new `alloc` array, read through the staging buffer's
 * halves a whole number of rows at a time: no copy of the whole tensor is made first. Null where
 * this cannot be done (another dtype, a staging half smaller than a row, files that cannot read
 * into a buffer): the caller reads the tensor and cuts it.
 */
export async function readSplitColumns(files: CheckpointFiles, file: SafetensorsFile, t: TensorInfo, parts: number, alloc: (length: number) => Float32Array, staging: Uint8Array): Promise<Float32Array[] | null> {
  if (t.dtype !== 'F32' || t.shape.length !== 2 || !files.readInto || t.shape[1] % parts !== 0) return null;
  const [rows, cols] = t.shape;
  const w = cols / parts;
  const rowBytes = cols * 4;
  if (t.end - t.begin !== rows * rowBytes || staging.length >> 1 < rowBytes) return null;
  const out = Array.from({ length: parts }, () => alloc(rows * w));
  await readThroughHalves(files, file.path, t.begin, rows * rowBytes, staging, rowBytes, (part, at) =>
    cutRowsInto(new Float32Array(part.buffer, part.byteOffset, part.length >> 2), at / rowBytes, cols, out));
  return out;
}

// Bytes [begin, begin + byteLength) of the file through the staging buffer's two halves, in parts
// of a whole number of `unit` bytes: consume(part, at) runs on each part while the next is read.
async function readThroughHalves(files: CheckpointFiles, path: string, begin: number, byteLength: number, staging: Uint8Array, unit: number, consume: (part: Uint8Array, at: number) => void): Promise<void> {
  const half = Math.floor((staging.length >> 1) / unit) * unit;
  if (half === 0) throw new RangeError(`readThroughHalves: a staging buffer of at least ${2 * unit} bytes`);
  const halves = [staging.subarray(0, half), staging.subarray(half, 2 * half)];
  const readPart = (at: number): Promise<void> | null =>
    at < byteLength ? files.readInto!(path, begin + at, halves[(at / half) & 1].subarray(0, Math.min(half, byteLength - at))) : null;
  let reading = readPart(0);
  for (let at = 0; reading; at += half) {
    await reading;
    reading = readPart(at + half);
    consume(halves[(at / half) & 1].subarray(0, Math.min(half, byteLength - at)), at);
  }
}

/** Reads of one tensor under way at once: two keep the disk and the page cache busy while leaving libuv's other threads (4 by default, shared with the extension host) free. */
export const PARTS_IN_FLIGHT = 2;

// dest ← the file's bytes from `start`, in parts of partBytes, PARTS_IN_FLIGHT at a time.
async function readInParts(files: CheckpointFiles, path: string, start: number, dest: Uint8Array, partBytes: number): Promise<void> {
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < dest.length) {
      const at = next;
      next += partBytes;
      await files.readInto!(path, start + at, dest.subarray(at, Math.min(at + partBytes, dest.length)));
    }
  };
  await Promise.all(Array.from({ length: PARTS_IN_FLIGHT }, reader));
}

/**
 * Little-endian bytes of F32, F16 or BF16 as float32, in a new `alloc(n)` when given. Else F32 is
 * a view of `bytes` when they are 4-byte aligned (no copy of a 150 MB embedding), else one copy.
 * (Typed arrays use the host's byte order: little-endian on every platform VS Code runs on.)
 */
export function decodeTensor(bytes: Uint8Array, dtype: Dtype, alloc?: (length: number) => Float32Array): Float32Array {
  const n = Math.floor(bytes.length / SIZES[dtype]);
  if (dtype === 'F32' && !alloc) {
    if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, n);
    return new Float32Array(bytes.slice().buffer, 0, n);
  }
  const out = alloc ? alloc(n) : new Float32Array(n);
  decodeInto(bytes, dtype, out, 0);
  return out;
}

// out[at …] ← the numbers of `bytes` (whole numbers only) as float32.
function decodeInto(bytes: Uint8Array, dtype: Dtype, out: Float32Array, at: number): void {
  if (dtype === 'F32') {
    const n = bytes.length >> 2;
    new Uint8Array(out.buffer, out.byteOffset + 4 * at, 4 * n).set(bytes.subarray(0, 4 * n));
    return;
  }
  const n = bytes.length >> 1;
  if (dtype === 'BF16') {
    // bfloat16 is the top half of a float32: shifting the bits back is exact (NaN, infinities,
    // subnormals included); two at a time from one 32-bit word where the bytes are 4-aligned
    // (1.7 ns a number against 2.8 one by one, measured in Node)
    const u = new Uint32Array(out.buffer, out.byteOffset + 4 * at, n);
    let i = 0;
    if (bytes.byteOffset % 4 === 0) {
      const w = new Uint32Array(bytes.buffer, bytes.byteOffset, n >> 1);
      for (let j = 0; j < w.length; j++, i += 2) {
        const x = w[j];
        u[i] = x << 16;
        u[i + 1] = x & 0xffff0000;
      }
    }
    for (; i < n; i++) u[i] = (bytes[2 * i] | (bytes[2 * i + 1] << 8)) << 16;
    return;
  }
  // (as bits: the exact float32 of every half, NaN payloads kept, as the kernel widens them)
  const h = bytes.byteOffset % 2 === 0 ? new Uint16Array(bytes.buffer, bytes.byteOffset, n) : new Uint16Array(bytes.slice(0, 2 * n).buffer, 0, n);
  const u = new Uint32Array(out.buffer, out.byteOffset + 4 * at, n);
  for (let i = 0; i < n; i++) u[i] = f16Bits(h[i]);
}

/** IEEE half precision bits → number, exactly (subnormals, infinities, NaN; every half is a float32). */
export function f16(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** bfloat16 bits → number, exactly. */
export function bf16(h: number): number {
  const u = new Uint32Array([(h & 0xffff) << 16]);
  return new Float32Array(u.buffer)[0];
}
