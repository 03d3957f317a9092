// Generates the WebAssembly module of expf over f32x4 lanes (the algorithm and its constants:
// ../expf.ts, whose scalar form this matches bit for bit).
//
// Exports: exp(ptr, n)   ptr[0 … n) = e^ptr[0 … n) in place; n a multiple of 4, ptr a byte offset
// into the imported memory.

import { EXPF } from '../expf';
import { encodeModule, FuncBuilder, I32, V128 } from './wasmBytes';

export function expModuleBytes(): Uint8Array {
  return encodeModule({ memoryImport: { minPages: 1 }, functions: [{ name: 'exp', fn: expFunction() }] });
}

function expFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32]);
  const [ptr, n] = [0, 1].map((i) => f.param(i));
  const end = f.local(I32);
  const [lo, hi, log2e, c1, c2, one, inf] = [0, 1, 2, 3, 4, 5, 6].map(() => f.local(V128));
  const p = EXPF.P.map(() => f.local(V128));
  const [x0, x, fx, r, z, y, over, under] = [0, 1, 2, 3, 4, 5, 6, 7].map(() => f.local(V128));
  const splat = (v: number, l: number): void => void f.f32Const(v).f32x4Splat().set(l);
  splat(EXPF.LO, lo);
  splat(EXPF.HI, hi);
  splat(EXPF.LOG2E, log2e);
  splat(EXPF.C1, c1);
  splat(EXPF.C2, c2);
  splat(1, one);
  splat(Infinity, inf);
  EXPF.P.forEach((v, i) => splat(v, p[i]));
  f.get(ptr).get(n).i32(2).i32Shl().i32Add().set(end);
  f.block(() => {
    f.get(ptr).get(end).i32GeU().brIf(0);
    f.loop(() => {
      f.get(ptr).v128Load().set(x0);
      f.get(x0).get(hi).f32x4Gt().set(over);
      f.get(x0).get(lo).f32x4Lt().set(under);
      f.get(x0).get(hi).f32x4Min().get(lo).f32x4Max().set(x);
      f.get(x).get(log2e).f32x4Mul().f32x4Nearest().set(fx);
      f.get(x).get(fx).get(c1).f32x4Mul().f32x4Sub().set(r);
      f.get(r).get(fx).get(c2).f32x4Mul().f32x4Sub().set(r);
      f.get(r).get(r).f32x4Mul().set(z);
      f.get(p[0]).set(y);
      for (let i = 1; i < p.length; i++) f.get(y).get(r).f32x4Mul().get(p[i]).f32x4Add().set(y);
      f.get(y).get(z).f32x4Mul().get(r).f32x4Add().get(one).f32x4Add().set(y);
      // y · 2^n, 2^n made from its bits: (n + 127) << 23
      f.get(y).get(fx).i32x4TruncSatF32x4S().i32(127).i32x4Splat().i32x4Add().i32(23).i32x4Shl().f32x4Mul().set(y);
      // above HI: +∞; below LO: 0
      f.get(y).get(over).v128AndNot().get(inf).get(over).v128And().v128Or().get(under).v128AndNot().set(y);
      f.get(ptr).get(y).v128Store();
      f.get(ptr).i32(16).i32Add().tee(ptr).get(end).i32LtU().brIf(0);
    });
  });
  return f;
}
