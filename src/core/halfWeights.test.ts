// 16-bit weights widened to float32: every one of the 65,536 patterns of each dtype against an
// independent decode (the number by its formula), the panels of 16-bit matrices, and the readers of
// a 16-bit param (params.ts) against the float32 param it stands for.
import * as assert from 'node:assert/strict';
import { bf16Bits, f16Bits, halfPanelsInto, widen, widenOne, type HalfBits } from './halfWeights';
import { floatData, readOutputRow, toPanels, valuesAt, weightAt, weightIndex, type Param } from './params';

// IEEE half by its definition, in float64 (every half is a float32 exactly)
function f16Number(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const asFloat = (bits: number): number => ((u32[0] = bits), f32[0]);

describe('16-bit weights (src/core/halfWeights)', () => {
  it('F16: all 65,536 patterns widen to the number they stand for; NaN keeps its sign and payload', () => {
    for (let h = 0; h < 65536; h++) {
      const want = f16Number(h);
      const got = asFloat(f16Bits(h));
      if (Number.isNaN(want)) {
        assert.ok(Number.isNaN(got), `0x${h.toString(16)}`);
        assert.equal(f16Bits(h), ((h & 0x8000) << 16 | 0x7f800000 | (h & 0x3ff) << 13) >>> 0, `NaN 0x${h.toString(16)}`);
      } else {
        assert.ok(Object.is(got, want), `0x${h.toString(16)}: ${got} against ${want}`);
      }
      assert.ok(Object.is(widenOne('F16', h), got) || Number.isNaN(got));
    }
    // by hand: 1, −2, the smallest subnormal, the largest normal, −0, +∞
    assert.deepEqual([0x3c00, 0xc000, 0x0001, 0x7bff, 0x8000, 0x7c00].map((h) => asFloat(f16Bits(h))), [1, -2, 2 ** -24, 65504, -0, Infinity]);
  });

  it('BF16: all 65,536 patterns are the top halves of float32', () => {
    for (let h = 0; h < 65536; h++) {
      assert.equal(bf16Bits(h), (h * 65536) >>> 0);
      const got = widenOne('BF16', h);
      assert.ok(Object.is(got, asFloat(h * 65536)) || Number.isNaN(got));
    }
    assert.deepEqual([0x3f80, 0xc000, 0x0001].map((h) => widenOne('BF16', h)), [1, -2, 2 ** -133]);
  });

  it('widen gives every pattern as float32 bits (NaN payloads kept), in both dtypes', () => {
    const bits = Uint16Array.from({ length: 65536 }, (_, i) => i);
    for (const dtype of ['BF16', 'F16'] as const) {
      const out = new Uint32Array(widen({ dtype, bits }).buffer);
      for (let h = 0; h < 65536; h++) assert.equal(out[h], dtype === 'BF16' ? bf16Bits(h) : f16Bits(h));
    }
  });

  it('halfPanelsInto lays 16-bit patterns out as toPanels lays float32 ones (ragged N)', () => {
    for (const [K, N] of [[3, 1], [5, 17], [2, 33]]) {
      const src = Uint16Array.from({ length: K * N }, (_, i) => 0x3c00 + i);
      for (const layout of ['kn', 'nk'] as const) {
        const out = new Uint16Array(Math.ceil(N / 16) * 16 * K).fill(7);
        halfPanelsInto(src, out, K, N, layout);
        const want = toPanels(widen({ dtype: 'F16', bits: src }), K, N, layout);
        assert.deepEqual(widen({ dtype: 'F16', bits: out }), want, `${K}×${N} ${layout}`);
      }
    }
  });

  it('a 16-bit param reads as the float32 param it stands for: weightAt, readOutputRow, valuesAt, floatData', () => {
    const K = 3, N = 18;
    const bits = Uint16Array.from({ length: K * N }, (_, i) => (0x3c00 + 37 * i) & 0xffff);
    for (const dtype of ['BF16', 'F16'] as const) {
      const half: HalfBits = { dtype, bits };
      const data = widen(half);
      const panelsBits = new Uint16Array(Math.ceil(N / 16) * 16 * K);
      halfPanelsInto(bits, panelsBits, K, N, 'nk');
      const pairs: Array<[Param, Param]> = [
        [{ half, shape: [N, K], layout: 'out_in' }, { data, shape: [N, K], layout: 'out_in' }],
        [{ half: { dtype, bits: panelsBits }, shape: [N, K], layout: 'panels' }, { data: toPanels(data, K, N, 'nk'), shape: [N, K], layout: 'panels' }],
      ];
      for (const [h, f] of pairs) {
        for (let n = 0; n < N; n++) {
          for (let k = 0; k < K; k++) assert.equal(weightAt(h, k, n, K, N), weightAt(f, k, n, K, N));
          const [rh, rf] = [new Float32Array(K), new Float32Array(K)];
          readOutputRow(h, n, K, N, rh);
          readOutputRow(f, n, K, N, rf);
          assert.deepEqual(rh, rf, `${dtype} ${h.layout} row ${n}`);
        }
        const idx = [0, weightIndex(h.layout, 2, 17, K, N)];
        assert.deepEqual(valuesAt(h, idx), valuesAt(f, idx));
        assert.deepEqual(floatData(h), f.data);
      }
    }
  });
});
