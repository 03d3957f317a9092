// NumPy's .npz (a zip of .npy files, as np.savez and np.savez_compressed write them) read by ranged
// reads: the zip's central directory from its end, then each array's bytes alone. Entries stored
// (np.savez) or deflated (np.savez_compressed, inflated with the platform's DecompressionStream);
// ZIP64 fields as numpy writes them (force_zip64). Arrays: little-endian float32, float64, float16,
// C order. Every size is checked against the file before anything is allocated.

import { CheckpointError, named } from './errors';
import { errorDetail } from '../common/faultText';
import { describeValue } from '../common/quote';
import type { CheckpointFiles } from './files';
import { f16 } from './safetensors';

export interface NpzEntry {
  /** The array's name (the entry's without `.npy`). */
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

export interface NpyArray {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;

/** The arrays of an .npz file by name (their headers not yet read). */
export async function npzEntries(files: CheckpointFiles, path: string, shown = path): Promise<Map<string, NpzEntry>> {
  const size = await files.size(path);
  const bad = (why: string): CheckpointError => new CheckpointError(`${named(shown)} is not an .npz file (${why})`, { file: shown });
  if (size === null) throw new CheckpointError(`${named(shown)} is missing`, { file: shown });
  if (size < 22) throw bad(`it has ${size} bytes, fewer than a zip's end record`);
  const tailStart = Math.max(0, size - 22 - MAX_COMMENT - 20);
  const tail = await files.read(path, tailStart, size);
  const v = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let e = -1;
  for (let i = tail.length - 22; i >= 0; i--) if (v.getUint32(i, true) === EOCD) { e = i; break; }
  if (e < 0) throw bad('no zip end record');
  let count = v.getUint16(e + 10, true);
  let dirSize = v.getUint32(e + 12, true);
  let dirOffset = v.getUint32(e + 16, true);
  if ((count === 0xffff || dirOffset === 0xffffffff) && e >= 20 && v.getUint32(e - 20, true) === EOCD64_LOCATOR) {
    const at = Number(v.getBigUint64(e - 12, true));
    if (at + 56 > size) throw bad('its ZIP64 end record lies past its end');
    const r = await files.read(path, at, at + 56);
    const w = new DataView(r.buffer, r.byteOffset, 56);
    count = Number(w.getBigUint64(32, true));
    dirSize = Number(w.getBigUint64(40, true));
    dirOffset = Number(w.getBigUint64(48, true));
  }
  if (dirOffset + dirSize > size || count > dirSize / 46) throw bad('its directory does not fit in it');
  const dir = await files.read(path, dirOffset, dirOffset + dirSize);
  return centralEntries(dir, count, size, bad);
}

function centralEntries(dir: Uint8Array, count: number, size: number, bad: (why: string) => CheckpointError): Map<string, NpzEntry> {
  const v = new DataView(dir.buffer, dir.byteOffset, dir.byteLength);
  const out = new Map<string, NpzEntry>();
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > dir.length || v.getUint32(p, true) !== CENTRAL) throw bad(`directory entry ${n} is damaged`);
    const method = v.getUint16(p + 10, true);
    let compressedSize = v.getUint32(p + 20, true);
    let fileSize = v.getUint32(p + 24, true);
    const nameLen = v.getUint16(p + 28, true);
    const extraLen = v.getUint16(p + 30, true);
    const commentLen = v.getUint16(p + 32, true);
    let localOffset = v.getUint32(p + 42, true);
    const name = new TextDecoder().decode(dir.subarray(p + 46, p + 46 + nameLen));
    // ZIP64: the fields saturated above are in the extra field 0x0001, in this order
    for (let x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen;) {
      const id = v.getUint16(x, true);
      const len = v.getUint16(x + 2, true);
      if (id === 1) {
        let q = x + 4;
        const next = (): number => { const r = Number(v.getBigUint64(q, true)); q += 8; return r; };
        if (fileSize === 0xffffffff) fileSize = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localOffset === 0xffffffff) localOffset = next();
      }
      x += 4 + len;
    }
    if (localOffset + 30 + compressedSize > size) throw bad(`entry ${named(name)} lies past its end`);
    if (name.endsWith('.npy')) out.set(name.slice(0, -4), { name: name.slice(0, -4), method, compressedSize, size: fileSize, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** One array of an .npz, as float32 (`expect`: the shape it must have, checked before its data is read). */
export async function readNpy(files: CheckpointFiles, path: string, entry: NpzEntry, shown = path, expect?: readonly number[]): Promise<NpyArray> {
  const where = `${named(shown)}: array ${named(entry.name)}`;
  const local = await files.read(path, entry.localOffset, entry.localOffset + 30);
  const lv = new DataView(local.buffer, local.byteOffset, 30);
  if (lv.getUint32(0, true) !== LOCAL) throw new CheckpointError(`${where}: its zip entry is damaged`, { file: shown, tensor: entry.name });
  const start = entry.localOffset + 30 + lv.getUint16(26, true) + lv.getUint16(28, true);
  if (entry.method !== 0 && entry.method !== 8) throw new CheckpointError(`${where} is compressed with zip method ${entry.method}; FFN Lens reads stored and deflated entries (np.savez, np.savez_compressed)`, { file: shown, tensor: entry.name });
  if (entry.method === 8) {
    // (what it inflates to is bounded before it is inflated: the expected shape in float64, and a header)
    if (expect && entry.size > expect.reduce((a, b) => a * b, 1) * 8 + 65_548) throw new CheckpointError(`${where} inflates to ${entry.size} bytes, more than [${expect.join(', ')}] can take`, { file: shown, tensor: entry.name });
    const bytes = await inflate(await files.read(path, start, start + entry.compressedSize), entry.size, where);
    return parseNpy(bytes, where, shown, entry.name, expect);
  }
  // stored: the header first, checked, then the data
  const head = await files.read(path, start, start + Math.min(entry.compressedSize, 4096));
  const h = npyHeader(head, where, shown, entry.name, expect);
  if (entry.compressedSize - h.body !== h.n * h.width) throw npyError(where, shown, entry.name, `has ${entry.compressedSize - h.body} bytes of data; its shape ${describeValue(h.shape)} needs ${h.n * h.width}`);
  const body = await files.read(path, start + h.body, start + entry.compressedSize);
  return { shape: h.shape, data: npyData(body, h.width, h.n) };
}

const npyError = (where: string, shown: string, name: string, why: string): CheckpointError => new CheckpointError(`${where} ${why}`, { file: shown, tensor: name });

async function inflate(bytes: Uint8Array, size: number, where: string): Promise<Uint8Array> {
  // (stopped as soon as it passes what its zip entry says: a few KB that inflate to gigabytes are not inflated whole)
  const parts: Uint8Array[] = [];
  let at = 0;
  try {
    const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      at += value.length;
      if (at > size) {
        await reader.cancel();
        throw new CheckpointError(`${where} inflates to more than the ${size} bytes its zip entry says`);
      }
      parts.push(value);
    }
  } catch (e) {
    if (e instanceof CheckpointError) throw e;
    throw new CheckpointError(`${where} cannot be inflated: its deflated data is damaged (${errorDetail(e, 60)})`);
  }
  if (at !== size) throw new CheckpointError(`${where} inflates to ${at} bytes, where its zip entry says ${size}`);
  const out = new Uint8Array(size);
  for (let i = 0, p = 0; i < parts.length; p += parts[i].length, i++) out.set(parts[i], p);
  return out;
}

/** (a Map: a descr "toString" is no dtype, as an object's lookup would find one) */
const DTYPES: ReadonlyMap<string, number> = new Map([['<f4', 4], ['<f8', 8], ['<f2', 2]]);

/** An .npy file's bytes → float32 (version 1, 2 or 3; little-endian float32/64/16, C order). */
export function parseNpy(bytes: Uint8Array, where: string, shown: string, name: string, expect?: readonly number[]): NpyArray {
  const h = npyHeader(bytes, where, shown, name, expect);
  if (bytes.length - h.body !== h.n * h.width) throw npyError(where, shown, name, `has ${bytes.length - h.body} bytes of data; its shape ${describeValue(h.shape)} needs ${h.n * h.width}`);
  return { shape: h.shape, data: npyData(bytes.subarray(h.body), h.width, h.n) };
}

interface NpyHeader { readonly shape: number[]; readonly width: number; readonly n: number; readonly body: number }

function npyHeader(bytes: Uint8Array, where: string, shown: string, name: string, expect?: readonly number[]): NpyHeader {
  const fail = (why: string): CheckpointError => npyError(where, shown, name, why);
  if (bytes.length < 10 || bytes[0] !== 0x93 || String.fromCharCode(...bytes.subarray(1, 6)) !== 'NUMPY') throw fail('is not a .npy array');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = bytes[6];
  const hstart = major === 1 ? 10 : 12;
  const hlen = major === 1 ? v.getUint16(8, true) : v.getUint32(8, true);
  if (hstart + hlen > bytes.length) throw fail('has a header longer than itself (or than 4 KB)');
  const header = new TextDecoder().decode(bytes.subarray(hstart, hstart + hlen));
  const descr = /'descr':\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || dims === undefined) throw fail('has a header without descr, fortran_order or shape');
  const width = DTYPES.get(descr);
  if (!width) throw fail(`holds ${descr.length > 12 ? 'an unknown type' : descr}; FFN Lens reads float32, float64 and float16 (<f4, <f8, <f2)`);
  if (fortran === 'True') throw fail('is in Fortran order; save it in C order (np.ascontiguousarray)');
  const shape = dims.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  if (shape.some((d) => !Number.isSafeInteger(d) || d < 0)) throw fail('has a shape that is not a list of sizes');
  if (expect && (expect.length !== shape.length || expect.some((d, i) => d !== shape[i]))) throw fail(`is ${describeValue(shape)}; expected [${expect.join(', ')}]`);
  return { shape, width, n: shape.reduce((a, b) => a * b, 1), body: hstart + hlen };
}

function npyData(body: Uint8Array, width: number, n: number): Float32Array {
  const data = new Float32Array(n);
  if (width === 4) {
    new Uint8Array(data.buffer).set(body.subarray(0, 4 * n));
    return data;
  }
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let i = 0; i < n; i++) data[i] = width === 8 ? v.getFloat64(8 * i, true) : f16(v.getUint16(2 * i, true));
  return data;
}
