// The three products of the matmul module (matmulModule.ts says what each computes, from which
// form of B, and why acc + a·b is fused or not) as the instruction streams that build them: mm on
// packed panels, mm_nk on (N,K) where it lies, mm_kn on (K,N) where it lies.

import { copyPanel } from './matmulPacking';
import { FuncBuilder, I32, V128, type Local } from './wasmBytes';

// acc + x·b on the stack, where pushAcc pushes acc (a local, or a load): fused or mul then add.
export function mulAdd(f: FuncBuilder, fused: boolean, pushAcc: () => void, x: Local, b: Local): void {
  if (fused) {
    f.get(x).get(b);
    pushAcc();
    f.f32x4RelaxedMadd();
  } else {
    pushAcc();
    f.get(x).get(b).f32x4Mul().f32x4Add();
  }
}

// mm(a, b, out, M, K, NP, p0, p1, panelStride, rowStride): panels outer so one panel (K·64 bytes) stays in cache while every
// row pair of a streams past it; B is read from memory once per call. (Touching the next panel
// during the current one, as a software prefetch, measured slower: 37 vs 39 GFLOPS at
// 32×768×3072, 17 vs 26 at M = 1.)
// A panel still comes from memory during its first row pair, faster than memory gives it: a
// GPT-2-small forward's products took 146, 224 and 433 ms at T = 16, 32 and 64, so about 70 ms
// of them is the weights' 500 MB read, not overlapped with the multiplies (which run at ~50
// GFLOPS, this core's peak). Spreading touches of panel p + 1 over p's row pairs (an i32.load
// dropped every 16 k steps: wasm has no prefetch, and a load that misses holds the core's
// retirement like any other) gave 1.04-1.13× on products alone, but 0.99-1.02× in the forward
// (alternating rounds, 2026-11-26): not kept.
export function matmulFunction(fused: boolean): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [a, b, out, M, K, NP, p0, p1, panelStride, rowStride] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => f.param(i));
  const aRowBytes = f.local(I32);   // K·4
  const outRowBytes = f.local(I32); // NP·64
  const panel = f.local(I32);       // current panel start
  const panelEnd = f.local(I32);
  const outCol = f.local(I32);      // out + p·64
  const aRow = f.local(I32);
  const outPtr = f.local(I32);
  const rowsLeft = f.local(I32);
  const pa0 = f.local(I32);
  const pa1 = f.local(I32);
  const paEnd = f.local(I32);
  const pb = f.local(I32);
  const bv = [0, 1, 2, 3].map(() => f.local(V128));
  const x = [0, 1].map(() => f.local(V128));
  const acc = [0, 1].map(() => [0, 1, 2, 3].map(() => f.local(V128)));

  f.get(K).i32(2).i32Shl().set(aRowBytes);
  f.get(NP).i32(6).i32Shl().set(outRowBytes);
  f.get(b).get(p0).get(panelStride).i32Mul().i32Add().set(panel);
  f.get(b).get(p1).get(panelStride).i32Mul().i32Add().set(panelEnd);
  f.get(out).get(p0).i32(6).i32Shl().i32Add().set(outCol);

  // One k step for `rows` rows: 4 loads of B, a load-and-splat of A per row, 4·rows mul + add.
  const step = (rows: number): void => {
    for (let c = 0; c < 4; c++) f.get(pb).v128Load(16 * c).set(bv[c]);
    f.get(pa0).v128Load32Splat().set(x[0]);
    if (rows === 2) f.get(pa1).v128Load32Splat().set(x[1]);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < 4; c++) {
        mulAdd(f, fused, () => f.get(acc[r][c]), x[r], bv[c]);
        f.set(acc[r][c]);
      }
    }
  };

  // Accumulates rows (1 or 2) starting at aRow over the whole panel, stores them at outPtr.
  // One k step per trip: TurboFan unrolls this loop itself, while a k loop unrolled here made
  // it hoist every load of the trip and spill accumulators (measured: 40 vs 28 GFLOPS).
  const rowBlock = (rows: number): void => {
    for (let r = 0; r < rows; r++) for (let c = 0; c < 4; c++) f.v128Zero().set(acc[r][c]);
    f.get(aRow).set(pa0);
    if (rows === 2) f.get(aRow).get(aRowBytes).i32Add().set(pa1);
    f.get(panel).set(pb);
    f.get(aRow).get(aRowBytes).i32Add().set(paEnd);
    f.block(() => {
      f.get(pa0).get(paEnd).i32GeU().brIf(0);
      f.loop(() => {
        step(rows);
        f.get(pa0).i32(4).i32Add().set(pa0);
        if (rows === 2) f.get(pa1).i32(4).i32Add().set(pa1);
        f.get(pb).get(rowStride).i32Add().set(pb);
        f.get(pa0).get(paEnd).i32LtU().brIf(0);
      });
    });
    for (let c = 0; c < 4; c++) f.get(outPtr).get(acc[0][c]).v128Store(16 * c);
    if (rows === 2) {
      f.get(outPtr).get(outRowBytes).i32Add().set(outPtr);
      for (let c = 0; c < 4; c++) f.get(outPtr).get(acc[1][c]).v128Store(16 * c);
    }
  };

  f.block(() => {
    f.get(panel).get(panelEnd).i32GeU().brIf(0);
    f.loop(() => {
      f.get(a).set(aRow);
      f.get(outCol).set(outPtr);
      f.get(M).set(rowsLeft);
      f.block(() => {
        f.loop(() => {
          f.get(rowsLeft).i32(2).i32LtU().brIf(1);
          rowBlock(2);
          // rowBlock left outPtr on the second row
          f.get(outPtr).get(outRowBytes).i32Add().set(outPtr);
          f.get(aRow).get(aRowBytes).i32(1).i32Shl().i32Add().set(aRow);
          f.get(rowsLeft).i32(2).i32Sub().set(rowsLeft);
          f.br(0);
        });
      });
      f.get(rowsLeft).if(() => rowBlock(1));
      f.get(panel).get(panelStride).i32Add().set(panel);
      f.get(outCol).i32(64).i32Add().set(outCol);
      f.get(panel).get(panelEnd).i32LtU().brIf(0);
    });
  });
  return f;
}

// mm_nk(a, b, out, M, K, NP, p0, p1, N, _): b (N,K) read where it lies. Column blocks of 4 rows
// of b outer (4·K·4 bytes, in L1 or L2 while every row pair of a streams past), k inner along
// both rows. Columns p0·16 … min(p1·16, N rounded up to 4): a block past N reads row N−1 again
// into columns that are padding of out.
export function matmulNkFunction(): FuncBuilder {
  const fused = false; // (see the head of this file)
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [a, b, out, M, K, NP, p0, p1, N] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => f.param(i));
  const rowBytes = f.local(I32);    // K·4, of a row of a and of b
  const outRowBytes = f.local(I32); // NP·64
  const j = f.local(I32);           // first column of the block
  const jEnd = f.local(I32);
  const r = f.local(I32);
  const pbs = [0, 1, 2, 3].map(() => f.local(I32)); // the block's 4 rows of b
  const aRow = f.local(I32);
  const outPtr = f.local(I32);
  const rowsLeft = f.local(I32);
  const kb = f.local(I32); // byte offset along k
  const x = [0, 1].map(() => f.local(V128));
  const bv = f.local(V128);
  const acc = [0, 1].map(() => [0, 1, 2, 3].map(() => f.local(V128)));
  const s01 = f.local(V128);
  const s23 = f.local(V128);

  f.get(K).i32(2).i32Shl().set(rowBytes);
  f.get(NP).i32(6).i32Shl().set(outRowBytes);
  f.get(p0).i32(4).i32Shl().set(j);
  // jEnd = min(p1·16, (N + 3) & ~3)
  f.get(p1).i32(4).i32Shl().get(N).i32(3).i32Add().i32(-4).i32And()
    .get(p1).i32(4).i32Shl().get(N).i32(3).i32Add().i32(-4).i32And().i32LtU().select().set(jEnd);

  const rowBlock = (rows: number): void => {
    for (let q = 0; q < rows; q++) for (let c = 0; c < 4; c++) f.v128Zero().set(acc[q][c]);
    f.i32(0).set(kb);
    f.loop(() => {
      f.get(aRow).get(kb).i32Add().v128Load().set(x[0]);
      if (rows === 2) f.get(aRow).get(rowBytes).i32Add().get(kb).i32Add().v128Load().set(x[1]);
      for (let c = 0; c < 4; c++) {
        f.get(pbs[c]).get(kb).i32Add().v128Load().set(bv);
        for (let q = 0; q < rows; q++) {
          mulAdd(f, fused, () => f.get(acc[q][c]), x[q], bv);
          f.set(acc[q][c]);
        }
      }
      f.get(kb).i32(16).i32Add().tee(kb).get(rowBytes).i32LtU().brIf(0);
    });
    // lanes → one sum per column: (l0 + l2) + (l1 + l3), the 4 columns side by side
    for (let q = 0; q < rows; q++) {
      const [c0, c1, c2, c3] = acc[q];
      f.get(c0).get(c1).shuffle32(0, 1, 4, 5).get(c0).get(c1).shuffle32(2, 3, 6, 7).f32x4Add().set(s01);
      f.get(c2).get(c3).shuffle32(0, 1, 4, 5).get(c2).get(c3).shuffle32(2, 3, 6, 7).f32x4Add().set(s23);
      f.get(outPtr);
      if (q === 1) f.get(outRowBytes).i32Add();
      f.get(s01).get(s23).shuffle32(0, 2, 4, 6).get(s01).get(s23).shuffle32(1, 3, 5, 7).f32x4Add().v128Store();
    }
  };

  f.block(() => {
    f.get(j).get(jEnd).i32GeU().brIf(0);
    f.loop(() => {
      for (let c = 0; c < 4; c++) {
        // row min(j + c, N − 1) of b
        f.get(j).i32(c).i32Add().set(r);
        f.get(b).get(r).get(N).i32(1).i32Sub().get(r).get(N).i32LtU().select().get(rowBytes).i32Mul().i32Add().set(pbs[c]);
      }
      f.get(a).set(aRow);
      f.get(out).get(j).i32(2).i32Shl().i32Add().set(outPtr);
      f.get(M).set(rowsLeft);
      f.block(() => {
        f.loop(() => {
          f.get(rowsLeft).i32(2).i32LtU().brIf(1);
          rowBlock(2);
          f.get(outPtr).get(outRowBytes).i32(1).i32Shl().i32Add().set(outPtr);
          f.get(aRow).get(rowBytes).i32(1).i32Shl().i32Add().set(aRow);
          f.get(rowsLeft).i32(2).i32Sub().set(rowsLeft);
          f.br(0);
        });
      });
      f.get(rowsLeft).if(() => rowBlock(1));
      f.get(j).i32(4).i32Add().tee(j).get(jEnd).i32LtU().brIf(0);
    });
  });
  return f;
}

// mm_kn(a, b, out, M, K, NP, p0, p1, N, tmp): b (K,N) where it lies, panel by panel: copied to tmp
// (K rows of 64 bytes, contiguous) and multiplied there by mm, which gives the bits mm gives on
// packed panels. One or two rows of a read each panel once: then mm reads it in place.
/** Panels mm_kn copies before each call of mm: the pages of b's rows are walked once per group, not per panel. */
export const KN_GROUP = 8;

export function matmulKnFunction(fused: boolean): FuncBuilder {
  const MM = 0; // mm's index in the module
  const f = new FuncBuilder([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32]);
  const [a, b, out, M, K, NP, p0, p1, N, tmp] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => f.param(i));
  const rowBytes = f.local(I32); // N·4
  const p = f.local(I32);
  const s = f.local(I32);
  const d = f.local(I32);
  const dEnd = f.local(I32);
  const pg = f.local(I32); // first panel of the group
  const pgEnd = f.local(I32);
  f.get(N).i32(2).i32Shl().set(rowBytes);
  f.get(M).i32(2).i32GtU().if(() => {
    f.get(p0).set(pg);
    f.block(() => {
      f.get(pg).get(p1).i32GeU().brIf(0);
      f.loop(() => {
        // pgEnd = min(pg + KN_GROUP, p1)
        f.get(pg).i32(KN_GROUP).i32Add().get(p1).get(pg).i32(KN_GROUP).i32Add().get(p1).i32LtU().select().set(pgEnd);
        f.get(tmp).set(d);
        f.get(pg).set(p);
        f.loop(() => {
          copyPanel(f, b, p, K, rowBytes, s, d, dEnd);
          f.get(p).i32(1).i32Add().tee(p).get(pgEnd).i32LtU().brIf(0);
        });
        // mm(a, tmp, out + pg·64, M, K, NP, 0, pgEnd − pg, K·64, 64): the group, into columns 16·pg …
        f.get(a).get(tmp).get(out).get(pg).i32(6).i32Shl().i32Add().get(M).get(K).get(NP).i32(0).get(pgEnd).get(pg).i32Sub()
          .get(K).i32(6).i32Shl().i32(64).call(MM);
        f.get(pgEnd).tee(pg).get(p1).i32LtU().brIf(0);
      });
    });
  });
  // One or two rows: b row by row, out[r][j] += a[r][k]·b[k][j] for k = 0…K−1 in order (the
  // same sums as mm's, bit for bit), with the rows of out in L1 (read in place by panels, each
  // 64-byte line of b is on its own page: 4.7 GFLOPS against 16.5 packed at 1×768×3072).
  const outRowBytes = f.local(I32);
  const j0 = f.local(I32);
  const j1 = f.local(I32);
  const jb = f.local(I32);
  const kb = f.local(I32);
  const kEnd = f.local(I32);
  const brow = f.local(I32);
  const x = [0, 1].map(() => f.local(V128));
  const bv = f.local(V128);
  f.get(NP).i32(6).i32Shl().set(outRowBytes);
  f.get(p0).i32(6).i32Shl().set(j0);
  f.get(p1).i32(6).i32Shl().set(j1);
  const axpy = (rows: number): void => {
    for (let r = 0; r < rows; r++) {
      f.get(j0).set(jb);
      f.block(() => {
        f.get(jb).get(j1).i32GeU().brIf(0);
        f.loop(() => {
          f.get(out).get(jb).i32Add();
          if (r === 1) f.get(outRowBytes).i32Add();
          f.v128Zero().v128Store();
          f.get(jb).i32(16).i32Add().tee(jb).get(j1).i32LtU().brIf(0);
        });
      });
    }
    f.get(b).set(brow);
    f.i32(0).set(kb);
    f.get(K).i32(2).i32Shl().set(kEnd);
    f.block(() => {
      f.get(kb).get(kEnd).i32GeU().brIf(0);
      f.loop(() => {
        f.get(a).get(kb).i32Add().v128Load32Splat().set(x[0]);
        if (rows === 2) f.get(a).get(kEnd).i32Add().get(kb).i32Add().v128Load32Splat().set(x[1]);
        f.get(j0).set(jb);
        f.loop(() => {
          for (let c = 0; c < 4; c++) {
            f.get(brow).get(jb).i32Add().v128Load(16 * c).set(bv);
            for (let r = 0; r < rows; r++) {
              f.get(out).get(jb).i32Add();
              if (r === 1) f.get(outRowBytes).i32Add();
              f.tee(d);
              mulAdd(f, fused, () => f.get(d).v128Load(16 * c), x[r], bv);
              f.v128Store(16 * c);
            }
          }
          f.get(jb).i32(64).i32Add().tee(jb).get(j1).i32LtU().brIf(0);
        });
        f.get(brow).get(rowBytes).i32Add().set(brow);
        f.get(kb).i32(4).i32Add().tee(kb).get(kEnd).i32LtU().brIf(0);
      });
    });
  };
  f.get(j0).get(j1).i32LtU().if(() => {
    f.get(M).i32(1).i32Eq().if(() => axpy(1));
    f.get(M).i32(2).i32Eq().if(() => axpy(2));
  });
  return f;
}
