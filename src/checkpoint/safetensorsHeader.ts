// A safetensors header checked as strictly as the format's own reader (the Rust `safetensors`
// crate) checks it: UTF-8 text of one JSON object; `__metadata__`, when there, a map of strings;
// every tensor a known dtype, a shape of whole numbers and data_offsets [begin, end] holding
// exactly shape × dtype bytes; the tensors, sorted by their offsets, tiling the data after the
// header from its first byte to the file's last (no gap, no overlap, nothing after). Beyond the
// crate: a name given twice is refused (JSON.parse would keep the last silently). Messages name
// the file and the tensor and quote nothing whole: a 10 MB name or 100,000 nested brackets are cut.

import { describeValue } from '../common/quote';
import { firstDuplicateKey } from './duplicateKeys';
import { CheckpointError, named } from './errors';

/** Bits per element of every dtype safetensors defines, in its order (a Map: "toString" is no dtype). */
export const DTYPE_BITS: ReadonlyMap<string, number> = new Map([
  ['BOOL', 8], ['F4', 4], ['F6_E2M3', 6], ['F6_E3M2', 6], ['U8', 8], ['I8', 8], ['F8_E5M2', 8], ['F8_E4M3', 8], ['F8_E8M0', 8],
  ['F8_E4M3FNUZ', 8], ['F8_E5M2FNUZ', 8], ['I16', 16], ['U16', 16], ['F16', 16], ['BF16', 16], ['I32', 32], ['U32', 32], ['F32', 32],
  ['C64', 64], ['F64', 64], ['I64', 64], ['U64', 64],
]);

export interface TensorInfo {
  readonly name: string;
  /** As the header says: one of DTYPE_BITS' keys (only READABLE_DTYPES can be read). */
  readonly dtype: string;
  readonly shape: readonly number[];
  /** Absolute byte offsets in the file. */
  readonly begin: number;
  readonly end: number;
}

/**
 * The tensors of a header's bytes (those after the 8-byte length), checked against the file's
 * size: offsets are made absolute. `shown` is how messages name the file.
 */
export function parseHeader(headerBytes: Uint8Array, fileSize: number, shown: string): Map<string, TensorInfo> {
  const file = named(shown);
  const json = headerObject(headerBytes, shown);
  const dataStart = 8 + headerBytes.length;
  const tensors = new Map<string, TensorInfo>();
  for (const name of Object.keys(json)) {
    if (name === '__metadata__') {
      checkMetadata(json[name], shown);
      continue;
    }
    const t = tensorEntry(name, json[name], shown);
    if (dataStart + t.end > fileSize) {
      throw new CheckpointError(`${file} is corrupt: tensor ${named(name)} ends at byte ${dataStart + t.end}, past the end of the file (${fileSize} bytes): the file is truncated`, { file: shown, tensor: name });
    }
    tensors.set(name, { name, dtype: t.dtype, shape: t.shape, begin: dataStart + t.begin, end: dataStart + t.end });
  }
  checkTiling([...tensors.values()], dataStart, fileSize, shown);
  return tensors;
}

// The header's text as a JSON object whose keys are each given once.
function headerObject(headerBytes: Uint8Array, shown: string): Record<string, unknown> {
  const notSafetensors = (why: string): never => {
    throw new CheckpointError(`${named(shown)} is not a safetensors file (its header ${why})`, { file: shown });
  };
  let text = '';
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(headerBytes);
  } catch {
    notSafetensors('is not UTF-8 text');
  }
  if (!text.startsWith('{')) notSafetensors('does not begin with "{": it is not a JSON object');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    notSafetensors('is not valid JSON');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) notSafetensors('is not a JSON object');
  const dup = firstDuplicateKey(text);
  if (dup) {
    const [tensor, ...rest] = dup.within;
    const where = tensor === undefined ? `names tensor ${named(dup.key)} twice`
      : rest.length === 0 ? `gives ${named(dup.key)} twice for ${tensor === '__metadata__' ? '"__metadata__"' : `tensor ${named(tensor)}`}`
      : `repeats the key ${named(dup.key)} inside ${tensor === '__metadata__' ? '"__metadata__"' : `tensor ${named(tensor)}`}`;
    throw new CheckpointError(`${named(shown)} is corrupt: its header ${where}`, { file: shown, ...(tensor === undefined ? { tensor: dup.key } : tensor === '__metadata__' ? {} : { tensor }) });
  }
  return json as Record<string, unknown>;
}

// `__metadata__`, as the format defines it: free-form text, a map of strings to strings (or null).
function checkMetadata(v: unknown, shown: string): void {
  const bad = (what: string): never => {
    throw new CheckpointError(`${named(shown)} is corrupt: its "__metadata__" ${what}, expected an object of strings (text → text)`, { file: shown });
  };
  if (v === null) return;
  if (typeof v !== 'object' || Array.isArray(v)) bad(`is ${describeValue(v)}`);
  for (const [k, s] of Object.entries(v as Record<string, unknown>)) {
    if (typeof s !== 'string') bad(`gives ${named(k)} the value ${describeValue(s)}`);
  }
}

// One tensor's entry: a known dtype, a shape of whole numbers, data_offsets [begin, end] (relative
// to the data) holding exactly the shape's elements in that dtype.
function tensorEntry(name: string, v: unknown, shown: string): { dtype: string; shape: number[]; begin: number; end: number } {
  const bad = (why: string): never => {
    throw new CheckpointError(`${named(shown)} is corrupt: tensor ${named(name)} ${why}`, { file: shown, tensor: name });
  };
  if (!v || typeof v !== 'object' || Array.isArray(v)) bad(`is described by ${describeValue(v)}, expected an object {"dtype", "shape", "data_offsets"}`);
  const t = v as Record<string, unknown>;
  for (const key of ['dtype', 'shape', 'data_offsets']) if (!Object.hasOwn(t, key)) bad(`has no "${key}"`);
  const bits = typeof t.dtype === 'string' ? DTYPE_BITS.get(t.dtype) : undefined;
  if (bits === undefined) bad(`has the dtype ${describeValue(t.dtype)}, which safetensors does not define (it defines ${DTYPE_BITS.size}: F64, F32, F16, BF16, I64 … BOOL)`);
  const dtype = t.dtype as string;
  const shape = t.shape;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) bad(`has the shape ${describeValue(shape)}, expected a list of whole numbers`);
  const offs = t.data_offsets;
  if (!Array.isArray(offs) || offs.length !== 2 || !offs.every((d) => Number.isSafeInteger(d) && d >= 0)) bad(`has the data_offsets ${describeValue(offs)}, expected [begin, end] (whole numbers)`);
  const [begin, end] = offs as [number, number];
  if (end < begin) bad(`has data_offsets [${begin}, ${end}] that end before they begin`);
  const shown2 = describeValue(shape);
  let elements = 1;
  for (const d of shape as number[]) {
    elements *= d;
    if (!Number.isSafeInteger(elements * (bits as number))) bad(`has the shape ${shown2}, too many elements to be held`);
  }
  const elementBits = elements * (bits as number);
  if (elementBits % 8 !== 0) bad(`has the shape ${shown2} of ${dtype}, which is not a whole number of bytes (${elementBits} bits)`);
  if (end - begin !== elementBits / 8) bad(`holds ${end - begin} bytes; ${shown2} of ${dtype} needs ${elementBits / 8}`);
  return { dtype, shape: shape as number[], begin, end };
}

// Sorted by their offsets, the tensors must cover the data exactly: each begins where the one
// before ends (the first at 0), and the last ends with the file.
function checkTiling(tensors: TensorInfo[], dataStart: number, fileSize: number, shown: string): void {
  const file = named(shown);
  const spans = tensors.slice().sort((x, y) => x.begin - y.begin || x.end - y.end);
  let at = dataStart;
  let before: TensorInfo | undefined;
  for (const t of spans) {
    const rel = (n: number): number => n - dataStart;
    if (t.begin > at) {
      const gap = before
        ? `${belong(t.begin - at)} to no tensor between tensors ${named(before.name)} and ${named(t.name)} (one ends at byte ${rel(at)} of the data, the other begins at ${rel(t.begin)})`
        : `the first ${belong(t.begin - at)} to no tensor (the first tensor, ${named(t.name)}, begins at byte ${rel(t.begin)})`;
      throw new CheckpointError(`${file} is corrupt: ${gap}`, { file: shown, tensor: t.name });
    }
    if (t.begin < at) {
      throw new CheckpointError(`${file} is corrupt: tensors ${named(before!.name)} and ${named(t.name)} overlap (one ends at byte ${rel(at)} of the data, the other begins at ${rel(t.begin)})`, { file: shown, tensor: t.name });
    }
    at = t.end;
    before = t;
  }
  if (at < fileSize) {
    throw new CheckpointError(
      `${file} is corrupt: the last ${belong(fileSize - at)} to no tensor: its tensors end at byte ${at - dataStart} of its data, which has ${fileSize - dataStart} (a wrong header length, or bytes after the last tensor)`,
      { file: shown, ...(before ? { tensor: before.name } : {}) },
    );
  }
}

const belong = (n: number): string => (n === 1 ? '1 byte of its data belongs' : `${n} bytes of its data belong`);
