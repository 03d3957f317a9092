// Generates the WebAssembly module of expf over f32x4 lanes (the algorithm and its constants:
// ../expf.ts, whose scalar form this matches bit for bit), and of the row softmax built on it
// (../softmax.ts, whose scalar form it matches bit for bit).
//
// Exports (pointers are byte offsets into the imported memory):
//   exp(ptr, n)                  ptr[0 … n) = e^ptr[0 … n) in place; n a multiple of 4
//   softmax(ptr, R, N4, scale)   R rows of N4 f32 (a multiple of 4; padding lanes −∞) in place:
//                                softmax of each row · scale (an f64), as softmaxForward computes it
//   norm_rows(ptr, T, C, g, b, eps, rms)
//                                T rows of C f32 (a multiple of 4) in place: LayerNorm (rms 0) or
//                                RMSNorm (rms 1) with gamma at g and beta at b (C each), as
//                                ../layernorm.ts and ../rmsnorm.ts compute them
//   sigmoid_act(x, up, out, n, kind)
//                                out = x / (1 + e^g(x)) (· up, unless up is 0), n a multiple of 4:
//                                SiLU (kind 0: g = −x) or GELU-tanh (kind 1), as activationColumns

import { EXPF } from '../expfScalar';
import { GELU_TANH_K, GELU_TANH_CUBIC } from '../geluTanh';
import { encodeModule, F64, FuncBuilder, I32, V128, type Local } from './wasmBytes';
import { SHARED_MAX_PAGES } from './matmulModule';

/** `shared`: on a shared memory (a matmul kernel's, whose helper threads split its rows: matmulThreads.ts). */
export function expModuleBytes(shared = false): Uint8Array {
  return encodeModule({
    memoryImport: shared ? { minPages: 1, maxPages: SHARED_MAX_PAGES, shared: true } : { minPages: 1 },
    functions: [{ name: 'exp', fn: expFunction() }, { name: 'softmax', fn: softmaxFunction() }, { name: 'sigmoid_act', fn: sigmoidActFunction() }, { name: 'norm_rows', fn: normRowsFunction() }],
  });
}

/** 1.5·2^23: n + MAGIC holds n in its low mantissa bits, for an integer |n| < 2^22. */
const MAGIC = 12582912;
const MAGIC_BITS = 0x4b400000;

interface ExpLocals {
  readonly c: readonly Local[]; // lo, hi, log2e, c1, c2, one, inf
  readonly p: readonly Local[];
  readonly t: readonly Local[]; // x, fx, r, z, over, under
  readonly magic: Local; // 1.5·2^23 in each lane
  readonly bias: Local; // its bits minus 127, as i32 lanes
}

// The constants of expf splatted into locals, and the locals one evaluation takes.
function expLocals(f: FuncBuilder): ExpLocals {
  const c = [0, 1, 2, 3, 4, 5, 6].map(() => f.local(V128));
  const p = EXPF.P.map(() => f.local(V128));
  const t = [0, 1, 2, 3, 4, 5].map(() => f.local(V128));
  [EXPF.LO, EXPF.HI, EXPF.LOG2E, EXPF.C1, EXPF.C2, 1, Infinity].forEach((v, i) => void f.f32Const(v).f32x4Splat().set(c[i]));
  EXPF.P.forEach((v, i) => void f.f32Const(v).f32x4Splat().set(p[i]));
  const magic = f.local(V128);
  const bias = f.local(V128);
  f.f32Const(MAGIC).f32x4Splat().set(magic);
  f.i32(MAGIC_BITS - 127).i32x4Splat().set(bias);
  return { c, p, t, magic, bias };
}

// y = e^x0, lane by lane
function emitExpf(f: FuncBuilder, e: ExpLocals, x0: Local, y: Local): void {
  const [lo, hi, log2e, c1, c2, one, inf] = e.c;
  const { p, magic, bias } = e;
  const [x, fx, r, z, over, under] = e.t;
  f.get(x0).get(hi).f32x4Gt().set(over);
  f.get(x0).get(lo).f32x4Lt().set(under);
  // (no clamp to [LO, HI]: a lane outside is replaced below whatever it computed, and NaN stays
  // NaN through every step; wasm's min and max, NaN-exact, are 8 instructions each in V8)
  f.get(x0).set(x);
  f.get(x).get(log2e).f32x4Mul().f32x4Nearest().set(fx);
  f.get(x).get(fx).get(c1).f32x4Mul().f32x4Sub().set(r);
  f.get(r).get(fx).get(c2).f32x4Mul().f32x4Sub().set(r);
  f.get(r).get(r).f32x4Mul().set(z);
  f.get(p[0]).set(y);
  for (let i = 1; i < p.length; i++) f.get(y).get(r).f32x4Mul().get(p[i]).f32x4Add().set(y);
  f.get(y).get(z).f32x4Mul().get(r).f32x4Add().get(one).f32x4Add().set(y);
  // y · 2^n, 2^n made from its bits: (n + 127) << 23, n read from the bits of n + 1.5·2^23 (exact
  // for |n| < 2^22; i32x4.trunc_sat is 7 instructions in V8)
  f.get(y).get(fx).get(magic).f32x4Add().get(bias).i32x4Sub().i32(23).i32x4Shl().f32x4Mul().set(y);
  // above HI: +∞; below LO: 0
  f.get(y).get(over).v128AndNot().get(inf).get(over).v128And().v128Or().get(under).v128AndNot().set(y);
}

/** Pushes lanes 0, 1 (low) or 2, 3 (high) of an f32x4 local as f64x2: the f64 JavaScript computes two float32s in. */
function halvesOf(f: FuncBuilder): { low: (l: Local) => void; high: (l: Local) => void } {
  return {
    low: (l) => void f.get(l).f64x2PromoteLow(),
    high: (l) => void f.get(l).get(l).shuffle32(2, 3, 0, 1).f64x2PromoteLow(),
  };
}

function expFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32]);
  const [ptr, n] = [0, 1].map((i) => f.param(i));
  const end = f.local(I32);
  const e = expLocals(f);
  const [x0, y] = [0, 1].map(() => f.local(V128));
  f.get(ptr).get(n).i32(2).i32Shl().i32Add().set(end);
  f.block(() => {
    f.get(ptr).get(end).i32GeU().brIf(0);
    f.loop(() => {
      f.get(ptr).v128Load().set(x0);
      emitExpf(f, e, x0, y);
      f.get(ptr).get(y).v128Store();
      f.get(ptr).i32(16).i32Add().tee(ptr).get(end).i32LtU().brIf(0);
    });
  });
  return f;
}

// softmax(ptr, R, N4, scale), each row as softmaxForward's scalar form: the max of x·scale (in f64,
// NaN ignored), then e^(f32(x·scale − max)), their sum in f64 by lane ((s0 + s2) + (s1 + s3), s_l
// the values at j ≡ l mod 4 in order), then f32(e / sum). A row with no finite max gives zeros.
// The f64 operations are the ones JavaScript does on a float32 array, so the bits agree.
function softmaxFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, F64]);
  const [ptr, R, N4, scale] = [0, 1, 2, 3].map((i) => f.param(i));
  const rowBytes = f.local(I32);
  const end = f.local(I32);
  const rowEnd = f.local(I32);
  const q = f.local(I32);
  const e = expLocals(f);
  const [sc, mA, mB, vA, vB, x, y, sA, sB, d] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(() => f.local(V128));
  const [max, v, sum] = [0, 1, 2].map(() => f.local(F64));
  const { low, high } = halvesOf(f);
  // m = v > m ? v : m, lane by lane (NaN never greater: ignored, as `if (v > max)` does)
  const keepMax = (val: Local, m: Local): void => void f.get(val).get(m).get(val).get(m).f64x2Gt().v128Bitselect().set(m);
  const scalarMax = (lane: () => void): void => {
    lane();
    f.set(v);
    f.get(v).get(max).get(v).get(max).f64Gt().select().set(max);
  };
  // each pass over the row, 4 values at a time
  const overRow = (body: () => void): void => {
    f.get(ptr).set(q);
    f.block(() => {
      f.get(q).get(rowEnd).i32GeU().brIf(0);
      f.loop(() => {
        body();
        f.get(q).i32(16).i32Add().tee(q).get(rowEnd).i32LtU().brIf(0);
      });
    });
  };

  f.get(scale).f64x2Splat().set(sc);
  f.get(N4).i32(2).i32Shl().set(rowBytes);
  f.get(ptr).get(R).get(rowBytes).i32Mul().i32Add().set(end);
  f.block(() => {
    f.get(ptr).get(end).i32GeU().brIf(0);
    f.loop(() => {
      f.get(ptr).get(rowBytes).i32Add().set(rowEnd);
      f.f64Const(-Infinity).f64x2Splat().set(mA);
      f.f64Const(-Infinity).f64x2Splat().set(mB);
      overRow(() => {
        f.get(q).v128Load().set(x);
        low(x);
        f.get(sc).f64x2Mul().set(vA);
        high(x);
        f.get(sc).f64x2Mul().set(vB);
        keepMax(vA, mA);
        keepMax(vB, mB);
      });
      f.f64Const(-Infinity).set(max);
      for (const [m, lane] of [[mA, 0], [mA, 1], [mB, 0], [mB, 1]] as const) scalarMax(() => f.get(m).f64x2ExtractLane(lane));
      f.get(max).f64Const(-Infinity).f64Eq().if(() => overRow(() => void f.get(q).v128Zero().v128Store()));
      f.get(max).f64Const(-Infinity).f64Ne().if(() => {
        f.get(max).f64x2Splat().set(d);
        f.f64Const(0).f64x2Splat().set(sA);
        f.f64Const(0).f64x2Splat().set(sB);
        overRow(() => {
          f.get(q).v128Load().set(x);
          low(x);
          f.get(sc).f64x2Mul().get(d).f64x2Sub().f32x4DemoteZero().set(vA);
          high(x);
          f.get(sc).f64x2Mul().get(d).f64x2Sub().f32x4DemoteZero().set(vB);
          f.get(vA).get(vB).shuffle32(0, 1, 4, 5).set(x);
          emitExpf(f, e, x, y);
          f.get(q).get(y).v128Store();
          low(y);
          f.get(sA).f64x2Add().set(sA);
          high(y);
          f.get(sB).f64x2Add().set(sB);
        });
        f.get(sA).get(sB).f64x2Add().set(vA);
        f.get(vA).f64x2ExtractLane(0).get(vA).f64x2ExtractLane(1).f64Add().set(sum);
        f.get(sum).f64Const(0).f64Ne().if(() => {
          f.get(sum).f64x2Splat().set(d);
          overRow(() => {
            f.get(q).v128Load().set(x);
            low(x);
            f.get(d).f64x2Div().f32x4DemoteZero().set(vA);
            high(x);
            f.get(d).f64x2Div().f32x4DemoteZero().set(vB);
            f.get(q).get(vA).get(vB).shuffle32(0, 1, 4, 5).v128Store();
          });
        });
      });
      f.get(rowEnd).tee(ptr).get(end).i32LtU().brIf(0);
    });
  });
  return f;
}

// sigmoid_act(x, up, out, n, kind): the f64 operations of activationColumns' whole-stage loop
// (g(x) rounded to f32, e^ of it, then x / (1 + e) · up rounded once), two lanes at a time.
function sigmoidActFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32]);
  const [x, up, out, n, kind] = [0, 1, 2, 3, 4].map((i) => f.param(i));
  const end = f.local(I32);
  const e = expLocals(f);
  const [v, g, y, u, a, b, k, cubic, one] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map(() => f.local(V128));
  f.f64Const(GELU_TANH_K).f64x2Splat().set(k);
  f.f64Const(GELU_TANH_CUBIC).f64x2Splat().set(cubic);
  f.f64Const(1).f64x2Splat().set(one);
  const { low, high } = halvesOf(f);
  // GELU-tanh's g = K·(((c·x)·x)·x + x) of one half, rounded to f32 in lanes 0, 1
  const geluArg = (half: (l: Local) => void, into: Local): void => {
    half(v);
    f.set(a);
    f.get(cubic).get(a).f64x2Mul().get(a).f64x2Mul().get(a).f64x2Mul().get(a).f64x2Add();
    f.set(b);
    f.get(k).get(b).f64x2Mul().f32x4DemoteZero().set(into);
  };
  // x / (1 + e) of one half, times up's
  const ratio = (half: (l: Local) => void, into: Local): void => {
    half(v);
    f.get(one);
    half(y);
    f.f64x2Add().f64x2Div().set(into);
    f.get(up).if(() => {
      f.get(into);
      half(u);
      f.f64x2Mul().set(into);
    });
  };
  f.get(x).get(n).i32(2).i32Shl().i32Add().set(end);
  f.block(() => {
    f.get(x).get(end).i32GeU().brIf(0);
    f.loop(() => {
      f.get(x).v128Load().set(v);
      f.get(kind).if(() => {
        geluArg(low, g);
        geluArg(high, y);
        f.get(g).get(y).shuffle32(0, 1, 4, 5).set(g);
      });
      f.get(kind).i32Eqz().if(() => void f.get(v).f32x4Neg().set(g));
      emitExpf(f, e, g, y);
      f.get(up).if(() => {
        f.get(up).v128Load().set(u);
        f.get(up).i32(16).i32Add().set(up);
      });
      ratio(low, a);
      ratio(high, b);
      f.get(out).get(a).f32x4DemoteZero().get(b).f32x4DemoteZero().shuffle32(0, 1, 4, 5).v128Store();
      f.get(out).i32(16).i32Add().set(out);
      f.get(x).i32(16).i32Add().tee(x).get(end).i32LtU().brIf(0);
    });
  });
  return f;
}

// norm_rows(ptr, T, C, g, b, eps, rms): each row as layernormForward / rmsnormForward's loops,
// their f64 sums by lane ((s0 + s2) + (s1 + s3), s_l the terms at i ≡ l mod 4 in order).
function normRowsFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, F64, I32]);
  const [ptr, T, C, g, b, eps, rms] = [0, 1, 2, 3, 4, 5, 6].map((i) => f.param(i));
  const rowBytes = f.local(I32);
  const end = f.local(I32);
  const rowEnd = f.local(I32);
  const q = f.local(I32);
  const gq = f.local(I32);
  const bq = f.local(I32);
  const [x, lo, hi, sA, sB, m, r, t] = [0, 1, 2, 3, 4, 5, 6, 7].map(() => f.local(V128));
  const [mean, inv] = [0, 1].map(() => f.local(F64));
  const { low, high } = halvesOf(f);
  const overRow = (body: () => void): void => {
    f.get(ptr).set(q);
    f.get(g).set(gq);
    f.get(b).set(bq);
    f.block(() => {
      f.get(q).get(rowEnd).i32GeU().brIf(0);
      f.loop(() => {
        body();
        f.get(gq).i32(16).i32Add().set(gq);
        f.get(bq).i32(16).i32Add().set(bq);
        f.get(q).i32(16).i32Add().tee(q).get(rowEnd).i32LtU().brIf(0);
      });
    });
  };
  // (s0 + s2) + (s1 + s3) / C
  const laneSum = (into: Local): void => {
    f.get(sA).get(sB).f64x2Add().set(t);
    f.get(t).f64x2ExtractLane(0).get(t).f64x2ExtractLane(1).f64Add().get(C).f64ConvertI32U().f64Div().set(into);
  };
  // the terms of x (in lo, hi) summed into sA, sB: x itself, or its square (less m)
  const accumulate = (square: boolean, centred: boolean): void => {
    f.get(q).v128Load().set(x);
    low(x);
    f.set(lo);
    high(x);
    f.set(hi);
    if (centred) {
      f.get(lo).get(m).f64x2Sub().set(lo);
      f.get(hi).get(m).f64x2Sub().set(hi);
    }
    if (square) {
      f.get(lo).get(lo).f64x2Mul().set(lo);
      f.get(hi).get(hi).f64x2Mul().set(hi);
    }
    f.get(sA).get(lo).f64x2Add().set(sA);
    f.get(sB).get(hi).f64x2Add().set(sB);
  };
  const zero = (): void => {
    f.f64Const(0).f64x2Splat().set(sA);
    f.f64Const(0).f64x2Splat().set(sB);
  };
  // r = 1 / √(v + eps) in both lanes
  const scaleOf = (v: Local): void => {
    f.f64Const(1).get(v).get(eps).f64Add().f64Sqrt().f64Div().set(inv);
    f.get(inv).f64x2Splat().set(r);
  };
  // the row written over: (x · r) · g, or centred ((x − m) · r) · g + b
  const writeRow = (centred: boolean): void => overRow(() => {
    f.get(q).v128Load().set(x);
    f.get(gq).v128Load().set(t);
    if (centred) f.get(bq).v128Load().set(sA);
    for (const [half, into] of [[low, lo], [high, hi]] as const) {
      half(x);
      if (centred) f.get(m).f64x2Sub();
      f.get(r).f64x2Mul();
      half(t);
      f.f64x2Mul();
      if (centred) {
        half(sA);
        f.f64x2Add();
      }
      f.f32x4DemoteZero().set(into);
    }
    f.get(q).get(lo).get(hi).shuffle32(0, 1, 4, 5).v128Store();
  });
  f.get(C).i32(2).i32Shl().set(rowBytes);
  f.get(ptr).get(T).get(rowBytes).i32Mul().i32Add().set(end);
  f.block(() => {
    f.get(ptr).get(end).i32GeU().brIf(0);
    f.loop(() => {
      f.get(ptr).get(rowBytes).i32Add().set(rowEnd);
      f.f64Const(0).f64x2Splat().set(m);
      f.get(rms).if(() => {
        // ms = Σ x² / C; r = 1 / √(ms + eps); out = (x · r) · g
        zero();
        overRow(() => accumulate(true, false));
        laneSum(mean);
        scaleOf(mean);
        writeRow(false);
      });
      f.get(rms).i32Eqz().if(() => {
        // mean = Σ x / C; v = Σ (x − mean)² / C; rstd = 1 / √(v + eps); out = ((x − mean) · rstd) · g + b
        zero();
        overRow(() => accumulate(false, false));
        laneSum(mean);
        f.get(mean).f64x2Splat().set(m);
        zero();
        overRow(() => accumulate(true, true));
        laneSum(inv);
        scaleOf(inv);
        writeRow(true);
      });
      f.get(rowEnd).tee(ptr).get(end).i32LtU().brIf(0);
    });
  });
  return f;
}
