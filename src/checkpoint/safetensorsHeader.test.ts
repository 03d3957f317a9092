// A safetensors header checked as the Rust crate checks it, and a little more: the tensors tile the
// data exactly (a gap, an overlap, a byte after the last tensor are refused), dtypes are looked up
// as own keys ("toString" is no dtype), __metadata__ is a map of strings, a name given twice is
// refused; and every message is one bounded line that names the file and the tensor, whatever the
// file holds (100,000 nested brackets, a 10 MB name, control characters).
import * as assert from 'node:assert/strict';
import { readHeader } from './safetensors';
import { headerError, one } from '../../test/helpers/safetensorsTesting';
import { rawSafetensors } from './testing';

const message = async (header: object | string, data = 0): Promise<string> => (await headerError(rawSafetensors(header, data))).message;
const f32 = (n: number, at: number) => ({ dtype: 'F32', shape: [n], data_offsets: [at, at + 4 * n] });

describe('safetensors header', () => {
  it('reads tensors listed in any order, zero-size ones, a tensor named "__proto__" or "constructor", __metadata__ of strings or null', async () => {
    const header = { __metadata__: { format: 'pt' }, b: f32(2, 4), __proto__x: f32(0, 12), a: f32(1, 0), ['constructor']: f32(1, 12) };
    const text = JSON.stringify(header).replace('"__proto__x"', '"__proto__"');
    const st = await readHeader(one('/f', rawSafetensors(text, 16)), '/f');
    assert.deepEqual([...st.tensors.keys()].sort(), ['__proto__', 'a', 'b', 'constructor']);
    assert.equal(Object.getPrototypeOf(st.tensors), Map.prototype);
    const start = 8 + new TextEncoder().encode(text).length;
    assert.deepEqual([st.tensors.get('__proto__')!.begin, st.tensors.get('__proto__')!.end], [start + 12, start + 12]);
    assert.deepEqual(st.tensors.get('constructor')!.shape, [1]);
    await readHeader(one('/f', rawSafetensors({ __metadata__: null, x: f32(1, 0) }, 4)), '/f');
    await readHeader(one('/f', rawSafetensors({}, 0)), '/f');
    // sub-byte dtypes by bits: 4 × F4 is 2 bytes
    await readHeader(one('/f', rawSafetensors({ q: { dtype: 'F4', shape: [4], data_offsets: [0, 2] } }, 2)), '/f');
  });

  it('a header that is not UTF-8, not an object, not JSON', async () => {
    assert.equal(await message('{"a": {"dtype": "F32",'), 'model.safetensors is not a safetensors file (its header is not valid JSON)');
    assert.equal(await message('[1, 2]'), 'model.safetensors is not a safetensors file (its header does not begin with "{": it is not a JSON object)');
    assert.equal(await message(' {}'), 'model.safetensors is not a safetensors file (its header does not begin with "{": it is not a JSON object)');
    assert.equal((await headerError(rawSafetensors(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])))).message, 'model.safetensors is not a safetensors file (its header is not UTF-8 text)');
  });

  it('__metadata__ must be a map of strings', async () => {
    assert.equal(await message({ __metadata__: { format: 'pt', step: 5 } }), 'model.safetensors is corrupt: its "__metadata__" gives step the value 5, expected an object of strings (text → text)');
    assert.equal(await message({ __metadata__: ['pt'] }), 'model.safetensors is corrupt: its "__metadata__" is ["pt"], expected an object of strings (text → text)');
  });

  it('each bad tensor entry names the file and the tensor, and never says undefined', async () => {
    const cases: Array<[object, number, string]> = [
      [{ w: { dtype: 'F128', shape: [1], data_offsets: [0, 16] } }, 16, 'tensor w has the dtype "F128", which safetensors does not define (it defines 22: F64, F32, F16, BF16, I64 … BOOL)'],
      [{ w: { shape: [1], data_offsets: [0, 4] } }, 4, 'tensor w has no "dtype"'],
      [{ w: { dtype: 'F32', data_offsets: [0, 4] } }, 4, 'tensor w has no "shape"'],
      [{ w: { dtype: 'F32', shape: [1] } }, 4, 'tensor w has no "data_offsets"'],
      [{ w: { dtype: 7, shape: [1], data_offsets: [0, 4] } }, 4, 'tensor w has the dtype 7, which safetensors does not define'],
      [{ w: { dtype: 'F32', shape: [2, -1], data_offsets: [0, 4] } }, 4, 'tensor w has the shape [2, -1], expected a list of whole numbers'],
      [{ w: { dtype: 'F32', shape: [1.5], data_offsets: [0, 4] } }, 4, 'tensor w has the shape [1.5], expected a list of whole numbers'],
      [{ w: { dtype: 'F32', shape: [1], data_offsets: [0] } }, 4, 'tensor w has the data_offsets [0], expected [begin, end] (whole numbers)'],
      [{ w: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 12] } }, 16, 'tensor w holds 12 bytes; [2, 2] of F32 needs 16'],
      [{ w: { dtype: 'BF16', shape: [3], data_offsets: [0, 8] } }, 8, 'tensor w holds 8 bytes; [3] of BF16 needs 6'],
      [{ w: { dtype: 'F4', shape: [3], data_offsets: [0, 2] } }, 2, 'tensor w has the shape [3] of F4, which is not a whole number of bytes (12 bits)'],
      [{ w: { dtype: 'F32', shape: [2 ** 20, 2 ** 20, 2 ** 20], data_offsets: [0, 4] } }, 4, 'tensor w has the shape [1048576, 1048576, 1048576], too many elements to be held'],
      [{ w: { dtype: 'F32', shape: [1], data_offsets: [8, 4] } }, 8, 'tensor w has data_offsets [8, 4] that end before they begin'],
      [{ w: 7 }, 0, 'tensor w is described by 7, expected an object {"dtype", "shape", "data_offsets"}'],
      [{ w: null }, 0, 'tensor w is described by null, expected an object {"dtype", "shape", "data_offsets"}'],
    ];
    for (const [header, data, want] of cases) {
      const e = await headerError(rawSafetensors(header, data));
      assert.ok(e.message.startsWith(`model.safetensors is corrupt: ${want}`), `${e.message}\n  expected to begin with\n${want}`);
      assert.equal(e.tensor, 'w');
    }
  });

  it('dtypes are own keys: "toString", "constructor", "__proto__", "hasOwnProperty" are no dtype', async () => {
    for (const dtype of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const e = await headerError(rawSafetensors({ w: { dtype, shape: [64], data_offsets: [0, 256] } }, 256));
      assert.ok(e.message.startsWith(`model.safetensors is corrupt: tensor w has the dtype "${dtype}", which safetensors does not define`), e.message);
      assert.ok(!e.message.includes('NaN'));
    }
  });

  it('the tensors tile the data exactly: a gap at the start, between two tensors, or bytes after the last are refused', async () => {
    assert.equal(await message({ a: f32(1, 4) }, 8),
      'model.safetensors is corrupt: the first 4 bytes of its data belong to no tensor (the first tensor, a, begins at byte 4)');
    assert.equal(await message({ a: f32(1, 0), b: f32(1, 8) }, 12),
      'model.safetensors is corrupt: 4 bytes of its data belong to no tensor between tensors a and b (one ends at byte 4 of the data, the other begins at 8)');
    assert.equal(await message({ a: f32(1, 0), b: f32(1, 4) }, 11),
      'model.safetensors is corrupt: the last 3 bytes of its data belong to no tensor: its tensors end at byte 8 of its data, which has 11 (a wrong header length, or bytes after the last tensor)');
    assert.equal(await message({ __metadata__: { format: 'pt' } }, 1),
      'model.safetensors is corrupt: the last 1 byte of its data belongs to no tensor: its tensors end at byte 0 of its data, which has 1 (a wrong header length, or bytes after the last tensor)');
  });

  it('overlapping tensors, and a tensor past the end of the file', async () => {
    assert.equal(await message({ v: f32(2, 0), w: f32(2, 4) }, 12),
      'model.safetensors is corrupt: tensors v and w overlap (one ends at byte 8 of the data, the other begins at 4)');
    assert.equal(await message({ v: f32(4, 0), w: f32(0, 8) }, 16),
      'model.safetensors is corrupt: tensors v and w overlap (one ends at byte 16 of the data, the other begins at 8)',
      'a zero-size tensor inside another');
    assert.match(await message({ w: f32(4, 0) }, 8), /^model\.safetensors is corrupt: tensor w ends at byte \d+, past the end of the file \(\d+ bytes\): the file is truncated$/);
  });

  it('a tensor named twice is refused (JSON.parse would keep the last), escaped or not; so is a field given twice', async () => {
    const w = JSON.stringify(f32(1, 0));
    const e = await headerError(rawSafetensors(`{"w": ${w}, "v": ${JSON.stringify(f32(1, 4))}, "w": ${w}}`, 8));
    assert.equal(e.message, 'model.safetensors is corrupt: its header names tensor w twice');
    assert.equal(e.tensor, 'w');
    assert.equal(await message(`{"ab": ${w}, "a\\u0062": ${w}}`, 4), 'model.safetensors is corrupt: its header names tensor ab twice');
    assert.equal(await message('{"w": {"dtype": "F32", "shape": [1], "dtype": "F16", "data_offsets": [0, 4]}}', 4),
      'model.safetensors is corrupt: its header gives dtype twice for tensor w');
    assert.equal(await message('{"__metadata__": {"format": "pt", "format": "np"}}'), 'model.safetensors is corrupt: its header gives format twice for "__metadata__"');
    assert.equal(await message('{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": [{"a": 1, "a": 2}]}}', 4),
      'model.safetensors is corrupt: its header repeats the key a inside tensor w');
  });

  it('100,000 nested brackets in a shape or an offset: a bounded message, no stack overflow', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const shape = await message(`{"w": {"dtype": "F32", "shape": ${deep}, "data_offsets": [0, 4]}}`, 4);
    assert.equal(shape, 'model.safetensors is corrupt: tensor w has the shape [[[[…]]]], expected a list of whole numbers');
    const offs = await message(`{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, ${deep}]}}`, 4);
    assert.equal(offs, 'model.safetensors is corrupt: tensor w has the data_offsets [0, [[[…]]]], expected [begin, end] (whole numbers)');
    const deepObject = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    assert.match(await message(`{"w": ${deepObject}}`), /^model\.safetensors is corrupt: tensor w has no "dtype"$/);
  });

  it('a 10 MB tensor name is quoted cut short; control characters in a name are escapes', async () => {
    const name = 'x'.repeat(10_000_000);
    const e = await headerError(rawSafetensors({ [name]: { dtype: 'toString', shape: [1], data_offsets: [0, 4] } }, 4));
    assert.match(e.message, /^model\.safetensors is corrupt: tensor "x{60}…" \(10,000,000 characters\) has the dtype "toString", which safetensors does not define/);
    assert.equal(e.tensor, name, 'the error still knows which tensor');
    const esc = await message({ 'a\u001b[2Jb': { dtype: 'F32', shape: [1], data_offsets: [0, 8] } }, 8);
    assert.ok(esc.startsWith('model.safetensors is corrupt: tensor "a\\u001b[2Jb" (\\u001b is an escape character) holds 8 bytes'), esc);
  });

  it('a huge shape list or a long string value is quoted cut short', async () => {
    const shape = Array.from({ length: 1_000_000 }, (_, i) => i % 7);
    const e = await message({ w: { dtype: 'F32', shape, data_offsets: [0, 4] } }, 4);
    assert.match(e, /^model\.safetensors is corrupt: tensor w holds 4 bytes; \[0, 1, 2, 3, [0-9, ]*… of F32 needs 0$/);
    const long = await message({ w: { dtype: 'F'.repeat(1_000_000), shape: [1], data_offsets: [0, 4] } }, 4);
    assert.match(long, /has the dtype "F{60}…" \(1,000,000 characters\), which/);
  });
});
