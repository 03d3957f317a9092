// The products of the matmul module (matmulModule.ts) from 16-bit panels: a checkpoint's BF16 or
// F16 matrix held as panels of 16 columns, 32 bytes a row (../halfWeights.ts). Each panel is
// widened into a float32 scratch panel of the thread's own, then multiplied there by mm: the
// numbers mm multiplies are the float32 ones a decode to float32 gives, in the same order, so the
// result is bit-identical to mm on float32 panels. The widening is paid once per panel, for all
// M rows (widened inline per k step it would be paid again for every pair of rows).

import { FuncBuilder, I32, V128, type Local } from './wasmBytes';

export type HalfProduct = 'BF16' | 'F16';

// mm_bf16 / mm_f16(a, b, out, M, K, NP, p0, p1, _, tmp): out (M, NP·16) = a (M,K) · B for
// panels p0 … p1−1, panel p row k at b + p·K·32 + k·32; tmp: K·64 bytes of this thread's.
export function matmulHalfFunction(dtype: HalfProduct): FuncBuilder {
  const MM = 0; // mm's index in the module
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [a, b, out, M, K, NP, p0, p1, , tmp] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => f.param(i));
  const p = f.local(I32);
  const s = f.local(I32);
  const d = f.local(I32);
  const dEnd = f.local(I32);
  const v = f.local(V128);
  const w = f.local(V128);
  const consts = dtype === 'F16' ? f16Constants(f) : null;
  f.get(p0).set(p);
  f.block(() => {
    f.get(p).get(p1).i32GeU().brIf(0);
    f.get(K).i32Eqz().brIf(0);
    f.loop(() => {
      // panel p widened into tmp: 16 halves (two v128) → 16 float32 (four), row by row
      f.get(b).get(p).get(K).i32Mul().i32(5).i32Shl().i32Add().set(s);
      f.get(tmp).set(d);
      f.get(tmp).get(K).i32(6).i32Shl().i32Add().set(dEnd);
      f.loop(() => {
        for (let h = 0; h < 2; h++) {
          f.get(s).v128Load(16 * h).set(v);
          for (const high of [false, true]) {
            f.get(v);
            if (high) f.i32x4ExtendHighU16();
            else f.i32x4ExtendLowU16();
            if (consts) widenF16(f, consts, w);
            else f.i32(16).i32x4Shl();
            f.set(w);
            f.get(d).get(w).v128Store(32 * h + (high ? 16 : 0));
          }
        }
        f.get(s).i32(32).i32Add().set(s);
        f.get(d).i32(64).i32Add().tee(d).get(dEnd).i32LtU().brIf(0);
      });
      // mm(a, tmp, out + p·64, M, K, NP, 0, 1, K·64, 64)
      f.get(a).get(tmp).get(out).get(p).i32(6).i32Shl().i32Add().get(M).get(K).get(NP).i32(0).i32(1)
        .get(K).i32(6).i32Shl().i32(64).call(MM);
      f.get(p).i32(1).i32Add().tee(p).get(p1).i32LtU().brIf(0);
    });
  });
  return f;
}

interface F16Constants {
  readonly low15: Local; readonly signBit: Local; readonly scale: Local; readonly infBits: Local; readonly maxFinite: Local;
  readonly em: Local; readonly t: Local;
}

function f16Constants(f: FuncBuilder): F16Constants {
  const c = {
    low15: f.local(V128), signBit: f.local(V128), scale: f.local(V128), infBits: f.local(V128), maxFinite: f.local(V128),
    em: f.local(V128), t: f.local(V128),
  };
  f.i32(0x7fff).i32x4Splat().set(c.low15);
  f.i32(0x8000).i32x4Splat().set(c.signBit);
  f.f32Const(2 ** 112).f32x4Splat().set(c.scale);
  f.i32(0x7f800000).i32x4Splat().set(c.infBits);
  f.i32(0x7bff).i32x4Splat().set(c.maxFinite);
  return c;
}

// The half bits x (one per 32-bit lane, on the stack) → float32 bits, as f16Bits (../halfWeights.ts)
// does: em = x & 0x7fff; t = em << 13; finite: t·2^112 (exact, subnormals too); exponent 31:
// t | 0x7f800000 (infinity, NaN with its payload); then the sign, (x & 0x8000) << 16, OR'd in.
function widenF16(f: FuncBuilder, c: F16Constants, x: Local): void {
  f.tee(x).get(c.low15).v128And().tee(c.em).i32(13).i32x4Shl().set(c.t);
  f.get(c.t).get(c.infBits).v128Or();
  f.get(c.t).get(c.scale).f32x4Mul();
  f.get(c.em).get(c.maxFinite).i32x4GtS();
  f.v128Bitselect();
  f.get(x).get(c.signBit).v128And().i32(16).i32x4Shl().v128Or();
}
