// The products of the matmul module (matmulModule.ts) from 16-bit panels: a checkpoint's BF16 or
// F16 matrix held as panels of 16 columns, 32 bytes a row (../halfWeights.ts). Two forms, one
// result: the numbers multiplied are the float32 ones a decode to float32 gives, each output's
// acc + a·b in the order k = 0…K−1 with mm's instruction (mulAdd), so the result is bit-identical
// to mm on float32 panels whatever the form or the number of rows.
// - Three rows or more: each panel is widened into a float32 scratch panel of the thread's own,
//   then multiplied there by mm. The widening is paid once per panel, for all M rows (widened
//   inline per k step it would be paid again for every pair of rows).
// - One or two rows (an appended token, a patched last row, a decoded token): the 16-bit panel
//   multiplied where it lies, each k step's 16 halves widened in registers. Widened into scratch,
//   the store and reload of 64 bytes per 16 weights was as much work as the product itself.

import { mulAdd } from './matmulProducts';
import { FuncBuilder, I32, V128, type Local } from './wasmBytes';

export type HalfProduct = 'BF16' | 'F16';

// mm_bf16 / mm_f16(a, b, out, M, K, NP, p0, p1, _, tmp): out (M, NP·16) = a (M,K) · B for
// panels p0 … p1−1, panel p row k at b + p·K·32 + k·32; tmp: K·64 bytes of this thread's (three
// rows or more). `fused`: as the module's mm is (its acc + a·b, which the one- and two-row form repeats).
export function matmulHalfFunction(dtype: HalfProduct, fused: boolean): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const params = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => f.param(i));
  const M = params[3];
  const consts = dtype === 'F16' ? f16Constants(f) : null;
  f.block(() => {
    f.get(M).i32(3).i32LtU().if(() => halfRows(f, params, consts, fused));
    f.get(M).i32(3).i32LtU().brIf(0);
    widenedPanels(f, params, consts);
  });
  return f;
}

// Three rows or more: each panel widened into tmp, then mm there.
function widenedPanels(f: FuncBuilder, params: Local[], consts: F16Constants | null): void {
  const MM = 0; // mm's index in the module
  const [a, b, out, M, K, NP, p0, p1, , tmp] = params;
  const p = f.local(I32);
  const s = f.local(I32);
  const d = f.local(I32);
  const dEnd = f.local(I32);
  const v = f.local(V128);
  const w = f.local(V128);
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
}

// One or two rows (M < 3): panel by panel, the row block's 8 (or 4) f32x4 accumulators over k, each
// k step's 32 bytes of halves widened in registers into bv. BF16 widens in two instructions per 8
// halves: v << 16 gives the even columns' float32 bits, v & 0xffff0000 the odd ones'; so bv holds
// columns (0 2 4 6) (1 3 5 7) (8 10 12 14) (9 11 13 15), and the accumulators are put back in
// column order as they are stored. F16: extended lane by lane and widened as widenF16.
function halfRows(f: FuncBuilder, params: Local[], consts: F16Constants | null, fused: boolean): void {
  const [a, b, out, M, K, NP, p0, p1] = params;
  const p = f.local(I32);
  const pb = f.local(I32);
  const pbEnd = f.local(I32);
  const pa = f.local(I32);
  const outCol = f.local(I32);
  const v = f.local(V128);
  const w = f.local(V128);
  const odd = f.local(V128);
  const bv = [0, 1, 2, 3].map(() => f.local(V128));
  const x = [0, 1].map(() => f.local(V128));
  const acc = [0, 1].map(() => [0, 1, 2, 3].map(() => f.local(V128)));
  if (!consts) f.i32(-65536).i32x4Splat().set(odd); // 0xffff0000
  const rowBlock = (rows: number): void => {
    for (let r = 0; r < rows; r++) for (let c = 0; c < 4; c++) f.v128Zero().set(acc[r][c]);
    f.get(b).get(p).get(K).i32Mul().i32(5).i32Shl().i32Add().tee(pb).get(K).i32(5).i32Shl().i32Add().set(pbEnd);
    f.get(a).set(pa);
    f.loop(() => {
      for (let h = 0; h < 2; h++) {
        f.get(pb).v128Load(16 * h).set(v);
        if (consts) {
          for (const high of [false, true]) {
            f.get(v);
            if (high) f.i32x4ExtendHighU16();
            else f.i32x4ExtendLowU16();
            widenF16(f, consts, w);
            f.set(bv[2 * h + (high ? 1 : 0)]);
          }
        } else {
          f.get(v).i32(16).i32x4Shl().set(bv[2 * h]);
          f.get(v).get(odd).v128And().set(bv[2 * h + 1]);
        }
      }
      f.get(pa).v128Load32Splat().set(x[0]);
      if (rows === 2) f.get(pa).get(K).i32(2).i32Shl().i32Add().v128Load32Splat().set(x[1]);
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < 4; c++) {
          mulAdd(f, fused, () => f.get(acc[r][c]), x[r], bv[c]);
          f.set(acc[r][c]);
        }
      }
      f.get(pa).i32(4).i32Add().set(pa);
      f.get(pb).i32(32).i32Add().tee(pb).get(pbEnd).i32LtU().brIf(0);
    });
    for (let r = 0; r < rows; r++) {
      f.get(outCol);
      if (r === 1) f.get(NP).i32(6).i32Shl().i32Add();
      f.set(pa); // (the row's output: pa is free after the loop)
      for (let c = 0; c < 4; c++) {
        f.get(pa);
        // BF16: columns 4q … 4q+3 = lanes of the even and odd accumulators interleaved
        if (consts) f.get(acc[r][c]);
        else f.get(acc[r][c & 2]).get(acc[r][(c & 2) + 1]).shuffle32(...((c & 1) === 0 ? [0, 4, 1, 5] : [2, 6, 3, 7]) as [number, number, number, number]);
        f.v128Store(16 * c);
      }
    }
  };
  f.get(p0).set(p);
  f.block(() => {
    f.get(p).get(p1).i32GeU().brIf(0);
    f.get(K).i32Eqz().brIf(0);
    f.loop(() => {
      f.get(out).get(p).i32(6).i32Shl().i32Add().set(outCol);
      f.get(M).i32(2).i32Eq().if(() => rowBlock(2));
      f.get(M).i32(1).i32Eq().if(() => rowBlock(1));
      f.get(p).i32(1).i32Add().tee(p).get(p1).i32LtU().brIf(0);
    });
  });
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
