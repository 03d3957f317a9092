// Generates the WebAssembly module of exact GELU over f32x4 lanes, two f64 lanes at a time: the
// operations of ../gelu.ts and ../erf.ts's erfcByTable in the same order, so the bits agree.
// erfc reads the Taylor table of ../erf.ts (ERF_TAYLOR, ERFC_ROW values a point), which the caller
// copies into the memory at `table`: each lane loads its own point's row.
//
// Export (pointers are byte offsets into the imported memory):
//   gelu_act(x, up, out, n, table)
//                             out = GELU(x) (· up, unless up is 0), n a multiple of 4, as
//                             activationColumns' loop: 0.5·x · erfc(−x·√½), rounded to f32 once

import { ERFC_ROW, ERFC_TABLE_MAX } from '../erf';
import { SHARED_MAX_PAGES } from './matmulModule';
import { encodeModule, FuncBuilder, I32, V128, type Local } from './wasmBytes';

/** Bytes of the table's rows: a power of two, so a point's row starts at p << ROW_SHIFT. */
const ROW_SHIFT = Math.log2(ERFC_ROW * 8);
const TERMS = 10;
const ROW_ERFC = TERMS + 1;

/** `shared`: on a shared memory (a matmul kernel's, whose threads share it: vectorThreads.ts). */
export function geluModuleBytes(shared = false): Uint8Array {
  if (2 ** ROW_SHIFT !== ERFC_ROW * 8) throw new Error('erf.ts: ERFC_ROW is not a power of two');
  const memoryImport = shared ? { minPages: 1, maxPages: SHARED_MAX_PAGES, shared: true } : { minPages: 1 };
  return encodeModule({ memoryImport, functions: [{ name: 'gelu_act', fn: geluActFunction() }] });
}

interface Consts { half: Local; sqrtHalf: Local; max: Local; step: Local; thirtyTwo: Local; zero: Local; two: Local }
/** One chain's temporaries: x in, y out. */
interface Chain { x: Local; z: Local; a: Local; p: Local; h: Local; acc: Local; neg: Local; idx: Local; o0: Local; o1: Local }

function constants(f: FuncBuilder): Consts {
  const splat = (v: number): Local => {
    const l = f.local(V128);
    f.f64Const(v).f64x2Splat().set(l);
    return l;
  };
  return { half: splat(0.5), sqrtHalf: splat(Math.SQRT1_2), max: splat(ERFC_TABLE_MAX), step: splat(1 / 32), thirtyTwo: splat(32), zero: splat(0), two: splat(2) };
}

function chain(f: FuncBuilder): Chain {
  const [x, z, a, p, h, acc, neg, idx] = [0, 1, 2, 3, 4, 5, 6, 7].map(() => f.local(V128));
  return { x, z, a, p, h, acc, neg, idx, o0: f.local(I32), o1: f.local(I32) };
}

// y = 0.5·x · erfcByTable(−x·√½) of the two f64 lanes in each chain's x, the chains' operations
// interleaved step by step: each chain's Horner steps wait on the one before (a long latency
// chain), so the processor overlaps independent chains (the bits of each are unchanged)
function emitGelu(f: FuncBuilder, c: Consts, chains: readonly Chain[], table: Local): void {
  const each = (emit: (l: Chain) => void): void => chains.forEach(emit);
  each((l) => void f.get(l.x).f64x2Neg().get(c.sqrtHalf).f64x2Mul().set(l.z));
  each((l) => void f.get(l.z).f64x2Abs().set(l.a));
  // the point: p = floor(a·32 + 0.5) of a ≤ max (a lane past it computes the last row, replaced
  // below; NaN stays NaN, its row 0); h = a − p/32
  each((l) => void f.get(l.a).get(c.max).f64x2Pmin().set(l.h));
  each((l) => void f.get(l.h).get(c.thirtyTwo).f64x2Mul().get(c.half).f64x2Add().f64x2Floor().set(l.p));
  each((l) => void f.get(l.h).get(l.p).get(c.step).f64x2Mul().f64x2Sub().set(l.h));
  each((l) => void f.get(l.p).i32x4TruncSatF64x2SZero().i32(ROW_SHIFT).i32x4Shl().set(l.idx));
  each((l) => {
    f.get(l.idx).i32x4ExtractLane(0).get(table).i32Add().set(l.o0);
    f.get(l.idx).i32x4ExtractLane(1).get(table).i32Add().set(l.o1);
  });
  // each lane's coefficient k of its own row
  const coef = (l: Chain, k: number): void => {
    f.get(l.o1);
    f.get(l.o0).v128Load64Splat(8 * k);
    f.v128Load64Lane(8 * k, 1);
  };
  // erfc(a) = row[ROW_ERFC] − (…(row[TERMS]·h + row[TERMS−1])·h … + row[1])·h
  each((l) => {
    coef(l, TERMS);
    f.set(l.acc);
  });
  for (let k = TERMS - 1; k >= 1; k--) {
    each((l) => {
      f.get(l.acc).get(l.h).f64x2Mul();
      coef(l, k);
      f.f64x2Add().set(l.acc);
    });
  }
  each((l) => {
    coef(l, ROW_ERFC);
    f.get(l.acc).get(l.h).f64x2Mul().f64x2Sub().set(l.acc);
  });
  // erfc(z) = z < 0 ? 2 − erfc(a) : erfc(a); past max, 2 or 0
  each((l) => {
    f.get(l.z).get(c.zero).f64x2Lt().set(l.neg);
    f.get(c.two).get(l.acc).f64x2Sub().get(l.acc).get(l.neg).v128Bitselect().set(l.acc);
    f.get(c.two).get(c.zero).get(l.neg).v128Bitselect().get(l.acc).get(l.a).get(c.max).f64x2Gt().v128Bitselect().set(l.acc);
    f.get(c.half).get(l.x).f64x2Mul().get(l.acc).f64x2Mul().set(l.x);
  });
}

function geluActFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32]);
  const [x, up, out, n, table] = [0, 1, 2, 3, 4].map((i) => f.param(i));
  const end = f.local(I32);
  const c = constants(f);
  const chains = [chain(f), chain(f)];
  const [v, u] = [0, 1].map(() => f.local(V128));
  // one half (lanes 0, 1 or 2, 3 of an f32x4 local) as f64x2
  const halves = [(s: Local): void => void f.get(s).f64x2PromoteLow(), (s: Local): void => void f.get(s).get(s).shuffle32(2, 3, 0, 1).f64x2PromoteLow()];
  f.get(x).get(n).i32(2).i32Shl().i32Add().set(end);
  f.block(() => {
    f.get(x).get(end).i32GeU().brIf(0);
    f.loop(() => {
      f.get(x).v128Load().set(v);
      chains.forEach((l, i) => {
        halves[i](v);
        f.set(l.x);
      });
      emitGelu(f, c, chains, table);
      f.get(up).if(() => {
        f.get(up).v128Load().set(u);
        chains.forEach((l, i) => {
          f.get(l.x);
          halves[i](u);
          f.f64x2Mul().set(l.x);
        });
        f.get(up).i32(16).i32Add().set(up);
      });
      f.get(out).get(chains[0].x).f32x4DemoteZero().get(chains[1].x).f32x4DemoteZero().shuffle32(0, 1, 4, 5).v128Store();
      f.get(out).i32(16).i32Add().set(out);
      f.get(x).i32(16).i32Add().tee(x).get(end).i32LtU().brIf(0);
    });
  });
  return f;
}
