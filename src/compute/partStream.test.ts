import * as assert from 'node:assert/strict';
import { readInParts, type ByteReader } from './partStream';

function reader(chunks: Uint8Array[]): ByteReader & { cancelled: boolean } {
  let i = 0;
  const r = {
    cancelled: false,
    read: async () => (i < chunks.length ? { done: false, value: chunks[i++] } : { done: true }),
    cancel: async () => void (r.cancelled = true),
  };
  return r;
}
const seq = (n: number, from: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (from + i) & 255);

describe('readInParts: a stream cut into parts of their own', () => {
  it('parts of the given size whatever the chunks, the last shorter, each its own buffer, the bytes in order', async () => {
    const chunks = [seq(3, 0), seq(10, 3), seq(1, 13), seq(7, 14)];
    const got: Array<[number, number[]]> = [];
    const bufs = new Set<ArrayBufferLike>();
    const r = await readInParts(reader(chunks), 8, 21, (at, part) => {
      got.push([at, [...part]]);
      assert.equal(part.byteOffset, 0);
      assert.equal(part.byteLength, part.buffer.byteLength, 'a buffer of its own, to transfer');
      bufs.add(part.buffer);
      return true;
    });
    assert.deepEqual(r, { bytes: 21, stopped: false });
    assert.deepEqual(got.map(([at, p]) => [at, p.length]), [[0, 8], [8, 8], [16, 5]]);
    assert.deepEqual(got.flatMap(([, p]) => p), [...seq(21, 0)]);
    assert.equal(bufs.size, 3);
  });

  it('stops and cancels the stream when told (Cancel), and before handing on more than the file\'s size', async () => {
    const rd = reader([seq(8, 0), seq(8, 8), seq(8, 16)]);
    let calls = 0;
    assert.deepEqual(await readInParts(rd, 8, 100, () => ++calls < 2), { bytes: 16, stopped: true });
    assert.ok(rd.cancelled);
    const grown = reader([seq(8, 0), seq(8, 8)]);
    const seen: number[] = [];
    const r = await readInParts(grown, 8, 12, (at) => (seen.push(at), true));
    assert.deepEqual(r, { bytes: 16, stopped: true });
    assert.deepEqual(seen, [0], 'only what is within the size went on');
    assert.ok(grown.cancelled);
  });
});
