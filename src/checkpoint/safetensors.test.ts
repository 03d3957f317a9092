// The safetensors reader: F32, F16 and BF16 decoded against values worked out by hand (half
// precision's subnormals, infinities and NaN included), F32 as a view when aligned, one ranged
// read per tensor, and one clear error, naming the file and the tensor, for each way a header can
// be wrong.
import * as assert from 'node:assert/strict';
import { CheckpointError } from './errors';
import { memoryFiles } from './memoryFiles';
import { bf16, decodeTensor, f16, readHeader, readSplitColumns, readTensor } from './safetensors';
import { splitColumns } from './tensorNames';
import { headerError, one } from '../../test/helpers/safetensorsTesting';
import { rawSafetensors, recordingFiles, safetensorsBytes } from './testing';

const u16le = (bits: number[]): Uint8Array => {
  const b = new Uint8Array(bits.length * 2);
  bits.forEach((h, i) => new DataView(b.buffer).setUint16(i * 2, h, true));
  return b;
};

describe('safetensors', () => {
  it('F16 bits → numbers, by hand: normals, the largest, subnormals, signed zero, infinities, NaN', () => {
    const cases: Array<[number, number]> = [
      [0x0000, 0], [0x3c00, 1], [0xc000, -2], [0x5640, 100],
      [0x3555, 0.333251953125], // (1 + 341/1024) · 2^-2
      [0x7bff, 65504], // (2 - 2^-10) · 2^15, the largest
      [0x0400, 2 ** -14], // the smallest normal
      [0x03ff, 1023 * 2 ** -24], // the largest subnormal
      [0x0001, 2 ** -24], [0x8001, -(2 ** -24)], // the smallest subnormals
      [0x7c00, Infinity], [0xfc00, -Infinity],
    ];
    for (const [h, v] of cases) assert.equal(f16(h), v, h.toString(16));
    assert.ok(Object.is(f16(0x8000), -0));
    for (const h of [0x7e00, 0x7c01, 0xfe00, 0x7fff]) assert.ok(Number.isNaN(f16(h)), h.toString(16));
    const d = decodeTensor(u16le([0x3c00, 0x0001, 0x7c00, 0x7e00]), 'F16');
    assert.deepEqual([d[0], d[1], d[2]], [1, 2 ** -24, Infinity]);
    assert.ok(Number.isNaN(d[3]));
  });

  it('BF16 bits → numbers, by hand: the top half of a float32', () => {
    const cases: Array<[number, number]> = [
      [0x3f80, 1], [0xc000, -2], [0x4049, 3.140625], // (1 + 73/128) · 2
      [0x3eab, 0.333984375], // (1 + 43/128) · 2^-2
      [0x0001, 2 ** -133], // a float32 subnormal: 2^16 · 2^-149
      [0x7f7f, (2 - 2 ** -7) * 2 ** 127], // the largest
      [0x7f80, Infinity], [0xff80, -Infinity],
    ];
    for (const [h, v] of cases) assert.equal(bf16(h), v, h.toString(16));
    assert.ok(Object.is(bf16(0x8000), -0));
    assert.ok(Number.isNaN(bf16(0x7fc0)));
    const d = decodeTensor(u16le(cases.map((c) => c[0])), 'BF16');
    assert.deepEqual(Array.from(d), cases.map((c) => c[1]));
  });

  it('reads each tensor with one ranged read of its bytes, F32 as a view when aligned, else a copy', async () => {
    const file = safetensorsBytes({
      a: { shape: [2, 2], data: [1, -2.5, 1e-30, 3.4e38], dtype: 'F32' },
      h: { shape: [3], data: [1, 2 ** -24, -65504], dtype: 'F16' }, // 6 bytes: what follows is not 4-byte aligned
      b: { shape: [2], data: [0.333984375, -1e30], dtype: 'F32' },
      g: { shape: [2], data: [3.140625, -2], dtype: 'BF16' },
    });
    const { files, reads } = recordingFiles(one('/f', file));
    const st = await readHeader(files, '/f');
    assert.deepEqual([...st.tensors.keys()], ['a', 'h', 'b', 'g']);
    const headerEnd = reads[1].end!;
    assert.deepEqual(reads, [{ path: '/f', start: 0, end: 8 }, { path: '/f', start: 8, end: headerEnd }]);
    const t = (n: string) => st.tensors.get(n)!;
    assert.deepEqual(t('a'), { name: 'a', dtype: 'F32', shape: [2, 2], begin: headerEnd, end: headerEnd + 16 });

    const a = await readTensor(files, st, t('a'));
    assert.deepEqual(Array.from(a), [1, -2.5, Math.fround(1e-30), Math.fround(3.4e38)]);
    assert.equal(a.buffer, file.buffer, 'aligned F32: a view of the bytes read');
    assert.deepEqual(Array.from(await readTensor(files, st, t('h'))), [1, 2 ** -24, -65504]);
    const b = await readTensor(files, st, t('b'));
    assert.equal(t('b').begin % 4, 2);
    assert.deepEqual(Array.from(b), [0.333984375, Math.fround(-1e30)]);
    assert.notEqual(b.buffer, file.buffer, 'unaligned: a copy');
    assert.deepEqual(Array.from(await readTensor(files, st, t('g'))), [3.140625, -2]);
    // after the header, one read per tensor, of exactly its bytes: never the whole file
    assert.deepEqual(reads.slice(2).map((r) => [r.start, r.end]), ['a', 'h', 'b', 'g'].map((n) => [t(n).begin, t(n).end]));
  });

  it('into a given allocator: F32 read straight into its array in parts, two at a time; F16 and BF16 through the staging buffer\'s halves, the next part read before this one is decoded', async () => {
    const data = Array.from({ length: 11 }, (_, i) => (i - 5.5) * 1.25);
    const bf = Array.from({ length: 9 }, (_, i) => (i - 4) * 0.5);
    const file = safetensorsBytes({
      a: { shape: [11], data, dtype: 'F32' },
      h: { shape: [3], data: [1, 2 ** -24, -65504], dtype: 'F16' },
      g: { shape: [9], data: bf, dtype: 'BF16' },
    });
    const mem = one('/f', file);
    const pool = new Float32Array(new SharedArrayBuffer(4 * 64));
    let used = 0;
    const alloc = (n: number): Float32Array => pool.subarray(used, (used += n));
    const log: string[] = [];
    const into: Uint8Array[] = [];
    const files = { ...mem, readInto: async (p: string, start: number, dest: Uint8Array) => {
      log.push(`read ${dest.length}`);
      into.push(dest);
      await Promise.resolve();
      dest.set(await mem.read(p, start, start + dest.length));
      log.push('done');
    } };
    const st = await readHeader(files, '/f');
    const a = await readTensor(files, st, st.tensors.get('a')!, alloc, new Uint8Array(16));
    assert.deepEqual(Array.from(a), data);
    assert.equal(a.buffer, pool.buffer, 'in the allocator\'s memory');
    assert.ok(into.every((d) => d.buffer === pool.buffer), 'read straight into it, no buffer between');
    assert.deepEqual(log.filter((l) => l !== 'done'), ['read 8', 'read 8', 'read 8', 'read 8', 'read 8', 'read 4'], '44 bytes in parts of 8 (half the staging buffer)');
    assert.deepEqual(log.slice(0, 3), ['read 8', 'read 8', 'done'], 'two parts under way at once');

    log.length = 0;
    const decoded: number[] = []; // numbers of g in place as each read begins
    const g0 = used;
    const watch = { ...files, readInto: async (p: string, start: number, dest: Uint8Array) => {
      decoded.push(pool.subarray(g0, g0 + 9).filter((v) => v !== 0).length);
      await files.readInto(p, start, dest);
    } };
    const g = await readTensor(watch, st, st.tensors.get('g')!, alloc, new Uint8Array(16));
    assert.deepEqual(Array.from(g), bf);
    assert.equal(g.buffer, pool.buffer);
    assert.deepEqual(log.filter((l) => l !== 'done'), ['read 8', 'read 8', 'read 2'], '18 bytes through the 8-byte halves');
    assert.deepEqual(decoded, [0, 0, 4], 'part k + 1 asked for before part k is decoded (4 numbers a part)');
    assert.deepEqual(Array.from(await readTensor(files, st, st.tensors.get('h')!, alloc, new Uint8Array(12))), [1, 2 ** -24, -65504]);
    assert.deepEqual(Array.from(pool.subarray(0, used)), [...data, ...bf, 1, 2 ** -24, -65504]);
  });

  it('a fused [rows][cols] F32 tensor cut into column blocks as it is read, a whole number of rows per staging half, as splitColumns cuts the whole', async () => {
    const data = Array.from({ length: 5 * 6 }, (_, i) => i * 0.5 - 3);
    const file = safetensorsBytes({ w: { shape: [5, 6], data, dtype: 'F32' }, b: { shape: [5, 6], data, dtype: 'BF16' } });
    const mem = one('/f', file);
    const parts: number[] = [];
    const files = { ...mem, readInto: async (p: string, start: number, into: Uint8Array) => {
      parts.push(into.length);
      into.set(await mem.read(p, start, start + into.length));
    } };
    const st = await readHeader(files, '/f');
    const pool = new Float32Array(new SharedArrayBuffer(4 * 64));
    let used = 0;
    const alloc = (n: number): Float32Array => pool.subarray(used, (used += n));
    const cut = await readSplitColumns(files, st, st.tensors.get('w')!, 3, alloc, new Uint8Array(100));
    assert.ok(cut);
    assert.deepEqual(cut.map((c) => Array.from(c)), splitColumns(Float32Array.from(data), 5, 6, 3).map((c) => Array.from(c)));
    assert.ok(cut.every((c) => c.buffer === pool.buffer), 'in the allocator\'s memory');
    assert.deepEqual(parts, [48, 48, 24], 'two rows (24 bytes each) per 50-byte half');
    assert.equal(await readSplitColumns(files, st, st.tensors.get('b')!, 3, alloc, new Uint8Array(100)), null, 'BF16: read whole, then cut');
    assert.equal(await readSplitColumns(files, st, st.tensors.get('w')!, 3, alloc, new Uint8Array(40)), null, 'a half smaller than a row');
    assert.equal(await readSplitColumns(files, st, st.tensors.get('w')!, 4, alloc, new Uint8Array(100)), null, '6 columns do not cut in 4');
  });

  it('a header longer than the file, a file shorter than 8 bytes', async () => {
    const good = safetensorsBytes({ a: { shape: [2], data: [1, 2] } });
    const long = good.slice();
    new DataView(long.buffer).setBigUint64(0, BigInt(good.length), true);
    assert.equal((await headerError(long)).message, 'model.safetensors is not a safetensors file (its header length is larger than the file)');
    assert.equal((await headerError(new Uint8Array(5))).message, 'model.safetensors is not a safetensors file (it has 5 bytes, fewer than the 8 that give its header\'s length)');
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setBigUint64(0, 2n ** 64n - 1n, true);
    assert.equal((await headerError(huge)).message, 'model.safetensors is not a safetensors file (its header length is larger than the file)');
  });

  it('a text file is described, not quoted: its first 8 bytes read as a length are never printed', async () => {
    const passwd = new TextEncoder().encode('root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n');
    const length = new DataView(passwd.buffer).getBigUint64(0, true);
    assert.equal(length, 3475222254926655346n, 'the bytes "root:x:0" as a u64');
    const e = await headerError(passwd);
    assert.equal(e.message, 'model.safetensors is not a safetensors file (its header length is larger than the file)');
    assert.ok(!/\d{6,}/.test(e.message), 'no number from the file');
    assert.ok(!e.message.includes('root'), 'no text from the file');
  });

  it('a header length over 100,000,000 bytes (the crate\'s limit) in a file that large', async () => {
    const bytes = rawSafetensors('{}', 0);
    new DataView(bytes.buffer).setBigUint64(0, 100_000_001n, true);
    const files = { size: async () => 200_000_000, read: async (_p: string, start = 0, end?: number) => bytes.slice(start, end), join: (f: string, n: string) => `${f}/${n}`, locate: async () => ({ kind: 'missing' as const }) };
    await assert.rejects(readHeader(files, '/m/model.safetensors', 'model.safetensors'), (e: unknown) =>
      e instanceof CheckpointError && e.message === 'model.safetensors is not a safetensors file (its header length is over 100,000,000 bytes, the most safetensors reads)');
  });

  it('a header length one byte short (a padding space dropped): refused, not read as NaN', async () => {
    const good = safetensorsBytes({ a: { shape: [2], data: [1, 2] }, b: { shape: [3], data: [3, 4, 5] } });
    const n = Number(new DataView(good.buffer).getBigUint64(0, true));
    assert.equal(good[8 + n - 1], 0x20, 'the header ends with a padding space');
    await readHeader(one('/f', good), '/f');
    const short = good.slice();
    new DataView(short.buffer).setBigUint64(0, BigInt(n - 1), true);
    assert.equal((await headerError(short)).message,
      'model.safetensors is corrupt: the last 1 byte of its data belongs to no tensor: its tensors end at byte 20 of its data, which has 21 (a wrong header length, or bytes after the last tensor)');
  });
  it('a dtype safetensors knows but FFN Lens does not read: the header is fine, reading the tensor says so', async () => {
    const files = one('/f', rawSafetensors({ steps: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, 8));
    const st = await readHeader(files, '/f', 'model.safetensors');
    await assert.rejects(readTensor(files, st, st.tensors.get('steps')!), (e: unknown) =>
      e instanceof CheckpointError && e.message === 'model.safetensors: tensor steps is I64; FFN Lens reads F32, F16, BF16' && e.tensor === 'steps');
  });

  it('a file cut after its header was read: reading the tensor fails clearly', async () => {
    const bytes = safetensorsBytes({ a: { shape: [4], data: [1, 2, 3, 4] } });
    const map = new Map([['/f', bytes]]);
    const files = memoryFiles(map);
    const st = await readHeader(files, '/f', 'model.safetensors');
    map.set('/f', bytes.subarray(0, bytes.length - 4));
    await assert.rejects(readTensor(files, st, st.tensors.get('a')!), (e: unknown) => e instanceof CheckpointError && /ended at byte/.test(e.message));
  });
});
