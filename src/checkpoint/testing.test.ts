// The test helpers' encoders, so the tests built on them can be trusted: float16 and bfloat16
// round to nearest even and give back every value they decode, and the writer's files read back.
import * as assert from 'node:assert/strict';
import { memoryFiles } from './memoryFiles';
import { bf16, f16, readHeader, readTensor } from './safetensors';
import { exactNumbers, safetensorsBytes, toBf16Bits, toF16Bits } from './testing';

describe('checkpoint test helpers', () => {
  it('toF16Bits: every half gives back its bits; ties round to even; overflow is infinity', () => {
    for (let h = 0; h < 0x10000; h++) {
      if (Number.isNaN(f16(h))) continue;
      assert.equal(toF16Bits(f16(h)), h, h.toString(16));
    }
    assert.equal(toF16Bits(1 + 2 ** -11), 0x3c00); // halfway between 1 and 1 + 2^-10: even
    assert.equal(toF16Bits(1 + 3 * 2 ** -11), 0x3c02);
    assert.equal(toF16Bits(2 ** -25), 0x0000); // half the smallest subnormal: even (zero)
    assert.equal(toF16Bits(3 * 2 ** -25), 0x0002);
    assert.equal(toF16Bits(65519), 0x7bff);
    assert.equal(toF16Bits(65520), 0x7c00);
    assert.equal(toF16Bits(NaN), 0x7e00);
  });

  it('toBf16Bits: every bfloat16 gives back its bits; ties round to even', () => {
    for (let h = 0; h < 0x10000; h++) {
      if (Number.isNaN(bf16(h))) continue;
      assert.equal(toBf16Bits(bf16(h)), h, h.toString(16));
    }
    assert.equal(toBf16Bits(1 + 2 ** -8), 0x3f80);
    assert.equal(toBf16Bits(1 + 3 * 2 ** -8), 0x3f82);
    assert.equal(toBf16Bits(NaN), 0x7fc0);
  });

  it('safetensorsBytes: a header padded to 8 bytes, tensors that read back in every dtype', async () => {
    const data = exactNumbers(12, 3);
    for (const dtype of ['F32', 'F16', 'BF16'] as const) {
      const bytes = safetensorsBytes({ x: { shape: [3, 4], data }, y: { shape: [2], data: [0.5, -8] } }, dtype);
      assert.equal(Number(new DataView(bytes.buffer).getBigUint64(0, true)) % 8, 0);
      const files = memoryFiles(new Map([['/f', bytes]]));
      const st = await readHeader(files, '/f');
      assert.deepEqual(Array.from(await readTensor(files, st, st.tensors.get('x')!)), Array.from(data), dtype);
      assert.deepEqual(Array.from(await readTensor(files, st, st.tensors.get('y')!)), [0.5, -8], dtype);
    }
  });
});
