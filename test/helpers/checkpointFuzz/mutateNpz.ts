// The checkpoint fuzzer's Gemma Scope params.npz: written here member by member (a zip of .npy
// files, stored or deflated, as np.savez and np.savez_compressed write them), so that a mutation
// can change one member, one .npy header or one field of the zip's own records: the end record's
// count and offsets, a central entry's sizes, method and offset, the ZIP64 fields, a local header;
// or inflate to far more than it says (a deflate bomb).

import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FuzzCase } from './seeds';
import { int, pick, type Rng } from './values';

export interface Member { name: string; data: Uint8Array; deflate?: boolean; size?: number }

const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The members of an .npz (stored or deflated entries), or null if it is not one this can read. */
export function readMembers(b: Uint8Array): Member[] | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: Member[] = [];
  let p = 0;
  while (p + 30 <= b.length && v.getUint32(p, true) === 0x04034b50) {
    const method = v.getUint16(p + 8, true);
    const csize = v.getUint32(p + 18, true);
    const nlen = v.getUint16(p + 26, true);
    const xlen = v.getUint16(p + 28, true);
    const name = dec(b.subarray(p + 30, p + 30 + nlen));
    const raw = b.subarray(p + 30 + nlen + xlen, p + 30 + nlen + xlen + csize);
    if (method !== 0 && method !== 8) return null;
    out.push({ name, data: method === 8 ? new Uint8Array(inflateRawSync(raw)) : new Uint8Array(raw), deflate: method === 8 });
    p += 30 + nlen + xlen + csize;
  }
  return out.length ? out : null;
}

interface Record_ { name: Uint8Array; method: number; crc: number; csize: number; size: number; offset: number }

/** An .npz of `members` (each stored, or deflated where it says; `size` overrides the size written). */
export function writeMembers(members: readonly Member[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const recs: Record_[] = [];
  let at = 0;
  for (const m of members) {
    const name = enc(m.name);
    const body = m.deflate ? new Uint8Array(deflateRawSync(m.data)) : m.data;
    const rec = { name, method: m.deflate ? 8 : 0, crc: crc32(m.data) >>> 0, csize: body.length, size: m.size ?? m.data.length, offset: at };
    const h = new Uint8Array(30 + name.length);
    const v = new DataView(h.buffer);
    v.setUint32(0, 0x04034b50, true);
    v.setUint16(4, 20, true);
    v.setUint16(8, rec.method, true);
    v.setUint32(14, rec.crc, true);
    v.setUint32(18, rec.csize, true);
    v.setUint32(22, rec.size >>> 0, true);
    v.setUint16(26, name.length, true);
    h.set(name, 30);
    parts.push(h, body);
    recs.push(rec);
    at += h.length + body.length;
  }
  const dirStart = at;
  for (const r of recs) {
    const c = new Uint8Array(46 + r.name.length);
    const v = new DataView(c.buffer);
    v.setUint32(0, 0x02014b50, true);
    v.setUint16(4, 20, true);
    v.setUint16(6, 20, true);
    v.setUint16(10, r.method, true);
    v.setUint32(16, r.crc, true);
    v.setUint32(20, r.csize, true);
    v.setUint32(24, r.size >>> 0, true);
    v.setUint16(28, r.name.length, true);
    v.setUint32(42, r.offset, true);
    c.set(r.name, 46);
    parts.push(c);
    at += c.length;
  }
  const e = new Uint8Array(22);
  const ev = new DataView(e.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, recs.length, true);
  ev.setUint16(10, recs.length, true);
  ev.setUint32(12, at - dirStart, true);
  ev.setUint32(16, dirStart, true);
  parts.push(e);
  return concat(parts);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An .npy (version 1) of a header dict text and data bytes; `len` overrides the header length field. */
export function npy(header: string, data: Uint8Array, opts: { magic?: string; major?: number; len?: number } = {}): Uint8Array {
  const h = enc(header);
  const out = new Uint8Array(10 + h.length + data.length);
  out.set([0x93, ...enc(opts.magic ?? 'NUMPY'), opts.major ?? 1, 0].slice(0, 8), 0);
  new DataView(out.buffer).setUint16(8, opts.len ?? h.length, true);
  out.set(h, 10);
  out.set(data, 10 + h.length);
  return out;
}

/** An .npy's header text and data, or null. */
function splitNpy(b: Uint8Array): { header: string; data: Uint8Array } | null {
  if (b.length < 10 || b[0] !== 0x93) return null;
  const n = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint16(8, true);
  return { header: dec(b.subarray(10, 10 + n)), data: b.subarray(10 + n) };
}

const HEADERS = (h: string): string[] => [
  h.replace("'<f4'", "'>f4'"), h.replace("'<f4'", "'<i8'"), h.replace("'<f4'", "'|O'"), h.replace("'<f4'", `'${'x'.repeat(300)}'`), h.replace("'<f4'", "'toString'"),
  h.replace('False', 'True'), h.replace(/'shape': \(([^)]*)\)/, "'shape': ($1, 1)"), h.replace(/'shape': \(([^)]*)\)/, "'shape': (1000000000, 1000000000)"),
  h.replace(/'shape': \(([^)]*)\)/, "'shape': (-1, 16)"), h.replace(/'shape': \(([^)]*)\)/, "'shape': (99999999999999999999, 1)"), h.replace(/'shape': \(([^)]*)\)/, "'shape': ()"),
  h.replace(/'shape': \(([^)]*)\)/, `'shape': (${'('.repeat(5000)}`), h.replace('descr', 'dscr'), '', '{}', h.replace(/'shape': \(([^)]*)\)/, "'shape': (1e3, 16)"),
];

/** params.npz of the case: a member dropped, renamed, doubled, its .npy header or data changed; the zip's records; a bomb. */
export function mutateNpz(c: FuzzCase, r: Rng): string | null {
  const rel = c.saeDir ? `${c.saeDir}/params.npz` : null;
  const b = rel ? c.files.get(rel) : undefined;
  if (!rel || !(b instanceof Uint8Array)) return null;
  const ms = readMembers(b);
  if (!ms) return null;
  const k = int(r, 10);
  const i = int(r, ms.length);
  const m = ms[i];
  let label: string;
  if (k === 0) {
    ms.splice(i, 1);
    label = `${m.name} left out`;
  } else if (k === 1) {
    const to = pick(r, ['w_enc.npy', 'W_enc', '../W_enc.npy', '/etc/passwd', `${'n'.repeat(60000)}.npy`, '', 'W_enc.npy\u0000x', 'threshold.npy']);
    ms[i] = { ...m, name: to };
    label = `${m.name} renamed ${JSON.stringify(to.slice(0, 30))} (${to.length} chars)`;
  } else if (k === 2) {
    ms.push({ ...m, data: m.data.subarray(0, int(r, m.data.length)) });
    label = `${m.name} twice, the second cut`;
  } else if (k <= 4) {
    const s = splitNpy(m.data);
    if (!s) return null;
    const h = pick(r, HEADERS(s.header));
    ms[i] = { ...m, data: npy(h, s.data) };
    label = `${m.name}: header ${JSON.stringify(h.slice(0, 60))}`;
  } else if (k === 5) {
    const s = splitNpy(m.data);
    if (!s) return null;
    const o = pick(r, [{ magic: 'NUMPX' }, { major: 3 }, { major: 9 }, { len: 65535 }, { len: 0 }, { len: s.header.length + 7 }]);
    ms[i] = { ...m, data: npy(s.header, s.data, o) };
    label = `${m.name}: .npy ${JSON.stringify(o)}`;
  } else if (k === 6) {
    const s = splitNpy(m.data);
    if (!s) return null;
    const cut = pick(r, [0, 1, 4, s.data.length - 1, s.data.length + 4]);
    const data = cut <= s.data.length ? s.data.subarray(0, cut) : new Uint8Array([...s.data, 1, 2, 3, 4]);
    ms[i] = { ...m, data: npy(s.header, data) };
    label = `${m.name}: data ${data.length} bytes of ${s.data.length}`;
  } else if (k === 7) {
    // deflated; what it says it inflates to, or a bomb: megabytes of zeros said as few
    const bomb = r() < 0.5;
    ms[i] = bomb ? { name: m.name, data: npy("{'descr': '<f4', 'fortran_order': False, 'shape': (16, 4000000), }", new Uint8Array(64_000_000)), deflate: true, size: pick(r, [m.data.length, 100, 0xffffffff]) } : { ...m, deflate: true, size: pick(r, [m.data.length, m.data.length + 1, 0]) };
    label = `${m.name} deflated${bomb ? ', a 64 MB bomb' : ''}, said ${ms[i].size} bytes`;
  } else {
    c.files.set(rel, zipRecord(writeMembers(ms), r, (s) => (label = s)));
    return label!;
  }
  c.files.set(rel, writeMembers(ms));
  return `params.npz: ${label}`;
}

/** One field of the zip's records changed: the end record, a central entry, a local header; ZIP64 fields. */
function zipRecord(z: Uint8Array, r: Rng, say: (s: string) => void): Uint8Array {
  const out = new Uint8Array(z);
  const v = new DataView(out.buffer);
  const e = out.length - 22;
  const dir = v.getUint32(e + 16, true);
  const fields: Array<[string, () => void]> = [
    ['end record count 0xffff', () => v.setUint16(e + 10, 0xffff, true)],
    ['end record count 60000', () => v.setUint16(e + 10, 60000, true)],
    ['directory offset past the end', () => v.setUint32(e + 16, 0xfffffff0, true)],
    ['directory size 0', () => v.setUint32(e + 12, 0, true)],
    ['directory offset 0xffffffff with a ZIP64 locator past the end', () => v.setUint32(e + 16, 0xffffffff, true)],
    ['central entry signature broken', () => v.setUint32(dir, 0x12345678, true)],
    ['central entry method 12', () => v.setUint16(dir + 10, 12, true)],
    ['central entry sizes 0xffffffff (ZIP64, no extra field)', () => { v.setUint32(dir + 20, 0xffffffff, true); v.setUint32(dir + 24, 0xffffffff, true); }],
    ['central entry local offset past the end', () => v.setUint32(dir + 42, out.length + 100, true)],
    ['central entry name length 65535', () => v.setUint16(dir + 28, 65535, true)],
    ['central entry extra length 8 (a ZIP64 field cut short)', () => { v.setUint16(dir + 30, 8, true); v.setUint16(dir + 46 + v.getUint16(dir + 28, true), 1, true); }],
    ['local header signature broken', () => v.setUint32(0, 0, true)],
    ['local header name length 65535', () => v.setUint16(26, 65535, true)],
    ['truncated to its end record', () => undefined],
  ];
  const [what, apply] = pick(r, fields);
  apply();
  say(`params.npz: zip ${what}`);
  return what.startsWith('truncated') ? out.subarray(e) : out;
}
