// The packing functions of the matmul module (matmulModule.ts): B (K,N) or (N,K) row-major
// rearranged as panels of 16 columns, as the instruction streams that build them; the copy of
// one panel that pack_kn and mm_kn (matmulProducts.ts) both emit; and the last, partial panel,
// which JS fills.

import { PANEL_UNITS as PANEL } from '../params';
import { FuncBuilder, I32, V128, type Local } from './wasmBytes';

/**
 * The partial panel (N not a multiple of 16) that pack_kn and pack_nk leave, in JS: its padding
 * zeroed, its N mod 16 columns copied. f32 over the memory; src, dst as indices into it.
 */
export function packLastPanel(f32: Float32Array, src: number, dst: number, K: number, N: number, bLayout: 'kn' | 'nk'): void {
  const j0 = N - (N % PANEL);
  if (j0 === N) return;
  const d = dst + (j0 / PANEL) * K * PANEL;
  f32.fill(0, d, d + K * PANEL);
  for (let j = j0; j < N; j++) {
    const c = j - j0;
    if (bLayout === 'kn') for (let k = 0; k < K; k++) f32[d + k * PANEL + c] = f32[src + k * N + j];
    else for (let k = 0; k < K; k++) f32[d + k * PANEL + c] = f32[src + j * K + k];
  }
}

// pack_kn(src, dst, K, N): src (K,N) row-major; panel p row k = src[k][16p … 16p+15].
export function packKnFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32]);
  const [src, dst, K, N] = [0, 1, 2, 3].map((i) => f.param(i));
  const rowBytes = f.local(I32);
  const p = f.local(I32);
  const pFull = f.local(I32);
  const s = f.local(I32);
  const d = f.local(I32);
  const dEnd = f.local(I32);
  f.get(N).i32(2).i32Shl().set(rowBytes);
  f.get(N).i32(4).i32ShrU().set(pFull);
  f.get(dst).set(d);
  f.block(() => {
    f.get(p).get(pFull).i32GeU().brIf(0);
    f.loop(() => {
      copyPanel(f, src, p, K, rowBytes, s, d, dEnd);
      f.get(p).i32(1).i32Add().tee(p).get(pFull).i32LtU().brIf(0);
    });
  });
  return f;
}

// Emits the copy of panel p of a (K,N) row-major matrix at src (row stride rowBytes) to d: K rows
// of 64 bytes, d left just after them (pack_kn and mm_kn). s, dEnd: scratch locals.
export function copyPanel(f: FuncBuilder, src: Local, p: Local, K: Local, rowBytes: Local, s: Local, d: Local, dEnd: Local): void {
  f.get(src).get(p).i32(6).i32Shl().i32Add().set(s);
  f.get(d).get(K).i32(6).i32Shl().i32Add().set(dEnd);
  f.block(() => {
    f.get(d).get(dEnd).i32GeU().brIf(0);
    f.loop(() => {
      for (let c = 0; c < 4; c++) f.get(d).get(s).v128Load(16 * c).v128Store(16 * c);
      f.get(s).get(rowBytes).i32Add().set(s);
      f.get(d).i32(64).i32Add().tee(d).get(dEnd).i32LtU().brIf(0);
    });
  });
}

// pack_nk(src, dst, K, N): src (N,K) row-major (torch Linear weight); panel p column c is row
// 16p+c of src. A whole panel at a time: its 16 source rows (contiguous: 16·K·4 bytes) read 4 k
// at a time, 4 rows transposed in registers per group (8 shuffles per 4×4 block), so each 64-byte
// panel row is written whole while in cache (GPT-2's 50,257 × 768 embedding: 97 ms a group of 4
// rows at a time, each panel row written in four passes; ~30 ms this way). The last K mod 4 k of
// each row, one by one.
export function packNkFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32]);
  const [src, dst, K, N] = [0, 1, 2, 3].map((i) => f.param(i));
  const rowBytes = f.local(I32);
  const rows3 = f.local(I32); // 3·rowBytes
  const rows4 = f.local(I32); // 4·rowBytes
  const panel = f.local(I32); // first source row of the panel, as a byte address
  const panelEnd = f.local(I32);
  const kb = f.local(I32);    // byte offset along k
  const kEnd4 = f.local(I32); // (K & ~3)·4
  const kEnd = f.local(I32);
  const s = f.local(I32);     // row 4g of the panel at kb
  const d = f.local(I32);
  const r = [0, 1, 2, 3].map(() => f.local(V128));
  const t = [0, 1, 2, 3].map(() => f.local(V128));
  f.get(K).i32(2).i32Shl().tee(rowBytes).i32(3).i32Mul().set(rows3);
  f.get(rowBytes).i32(2).i32Shl().set(rows4);
  f.get(K).i32(-4).i32And().i32(2).i32Shl().set(kEnd4);
  f.get(K).i32(2).i32Shl().set(kEnd);
  f.get(src).set(panel);
  f.get(src).get(N).i32(-16).i32And().get(rowBytes).i32Mul().i32Add().set(panelEnd);
  f.get(dst).set(d);
  f.block(() => {
    f.get(panel).get(panelEnd).i32GeU().brIf(0);
    f.loop(() => {
      f.i32(0).set(kb);
      f.block(() => {
        f.get(kb).get(kEnd4).i32GeU().brIf(0);
        f.loop(() => {
          f.get(panel).get(kb).i32Add().set(s);
          for (let g = 0; g < 4; g++) {
            // rows 4g … 4g+3 of the panel, k … k+3
            f.get(s).v128Load().set(r[0]);
            f.get(s).get(rowBytes).i32Add().v128Load().set(r[1]);
            f.get(s).get(rowBytes).i32(1).i32Shl().i32Add().v128Load().set(r[2]);
            f.get(s).get(rows3).i32Add().v128Load().set(r[3]);
            f.get(r[0]).get(r[1]).shuffle32(0, 4, 1, 5).set(t[0]); // r0[0] r1[0] r0[1] r1[1]
            f.get(r[2]).get(r[3]).shuffle32(0, 4, 1, 5).set(t[1]); // r2[0] r3[0] r2[1] r3[1]
            f.get(r[0]).get(r[1]).shuffle32(2, 6, 3, 7).set(t[2]); // r0[2] r1[2] r0[3] r1[3]
            f.get(r[2]).get(r[3]).shuffle32(2, 6, 3, 7).set(t[3]);
            f.get(d).get(t[0]).get(t[1]).shuffle32(0, 1, 4, 5).v128Store(16 * g);       // k+0: columns 4g … 4g+3
            f.get(d).get(t[0]).get(t[1]).shuffle32(2, 3, 6, 7).v128Store(64 + 16 * g);  // k+1
            f.get(d).get(t[2]).get(t[3]).shuffle32(0, 1, 4, 5).v128Store(128 + 16 * g); // k+2
            f.get(d).get(t[2]).get(t[3]).shuffle32(2, 3, 6, 7).v128Store(192 + 16 * g); // k+3
            if (g < 3) f.get(s).get(rows4).i32Add().set(s);
          }
          f.get(d).i32(256).i32Add().set(d);
          f.get(kb).i32(16).i32Add().tee(kb).get(kEnd4).i32LtU().brIf(0);
        });
      });
      // the last K mod 4 values of the 16 rows, one by one
      f.block(() => {
        f.get(kb).get(kEnd).i32GeU().brIf(0);
        f.loop(() => {
          f.get(panel).get(kb).i32Add().set(s);
          for (let c = 0; c < 16; c++) {
            f.get(d).get(s).f32Load().f32Store(4 * c);
            if (c < 15) f.get(s).get(rowBytes).i32Add().set(s);
          }
          f.get(d).i32(64).i32Add().set(d);
          f.get(kb).i32(4).i32Add().tee(kb).get(kEnd).i32LtU().brIf(0);
        });
      });
      f.get(panel).get(rows4).i32(2).i32Shl().i32Add().tee(panel).get(panelEnd).i32LtU().brIf(0);
    });
  });
  return f;
}
