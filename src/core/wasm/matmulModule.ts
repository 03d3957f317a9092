// Generates the WebAssembly module of the SIMD matmul kernel (simd128, f32x4 lanes).
//
// B is read in one of three forms, all giving out (M, NP·16) with row stride NP·64 bytes:
// - packed panels: ceil(N/16) panels, each K rows × 16 columns of f32, contiguous (64 bytes per
//   row), zero-padded past N (what pack() makes of weights held elsewhere);
// - (K,N) row-major where it lies (GPT-2's Conv1D weights, allocated in this memory): each panel
//   copied into a scratch panel of the thread's own, then multiplied as packed (read in place
//   with row stride N·4, the panel's rows fall into a few cache sets and every row pair of a
//   misses on them: 13-19 GFLOPS against 25-33);
// - (N,K) row-major where it lies (torch.nn.Linear weights): dot products along k.
// The last two are how a checkpoint's weights are multiplied without a packed copy of them.
//
// mm's inner block: 2 rows × 16 columns = 8 f32x4 accumulators. Per k: 4 v128.load of B, one
// load32_splat of A per row, then acc = acc + a·b, with one accumulator per output element in
// the order k = 0…K-1. mm_nk's: 2 rows × 4 columns, each output summed in 4 lanes (lane l takes
// k ≡ l mod 4, in order), then (l0 + l2) + (l1 + l3).
// acc + a·b is f32x4.mul then f32x4.add, or, in the module built `fused` (mm and mm_kn), relaxed-
// simd's f32x4.relaxed_madd: one instruction where the CPU has FMA (1.2-1.3× the GFLOPS on an
// FMA3 x64 with 128-bit lanes: the loop is bound by instructions issued, not by memory). Its
// rounding is the CPU's (fused or not), the same for every call on one machine, and JavaScript
// has no fused multiply-add to imitate it: matmulColumns reproduces a column's bits by calling
// the same function again on that column's panel. mm_nk stays mul then add: against the PyTorch
// checkpoint cases, fused lane sums took the in-place Llama cases further from the reference (17
// values past half the tolerance, one past it, against 12 and none), while fused mm and mm_kn
// took every case closer (8 past half, worst 0.86 of the tolerance).
//
// Exports (all pointers are byte offsets into the imported memory; the same signature, so the
// threads of matmulThreads.ts share either by panels of 16 output columns):
//   mm(a, b, out, M, K, NP, p0, p1, panelStride, rowStride)
//                                  out (M, NP·16) = a (M,K) · B, panels p0 … p1−1 only; panel p
//                                  row k at b + p·panelStride + k·rowStride (packed: K·64, 64;
//                                  (K,N) in place: 64, N·4)
//   mm_nk(a, b, out, M, K, NP, p0, p1, N, _)
//                                  the same from b (N,K) in place; K a multiple of 4
//   mm_kn(a, b, out, M, K, NP, p0, p1, N, tmp)
//                                  the same from b (K,N) in place (read up to 60 bytes past its
//                                  end); tmp: K·64 bytes of this thread's
//   mm_bf16(a, b, out, M, K, NP, p0, p1, _, tmp), mm_f16(…)
//                                  the same from 16-bit panels (K rows of 32 bytes each), each
//                                  widened into tmp (K·64 bytes of this thread's), then mm there
//                                  (matmulHalves.ts)
//   pack_kn(src, dst, K, N)        full panels from src (K,N); columns ≥ 16·floor(N/16) are left to the caller
//   pack_nk(src, dst, K, N)        full panels from src (N,K), the transposed layout
//   add_rows(src, bias, dst, M, rowBytes)
//                                  dst = src + bias by row: M rows of rowBytes (a multiple of 16),
//                                  f32x4.add (the sum a float32 add gives, as biasAdd's)
//   copy(dst, src, n)              memory.copy of n bytes (a shared memory's typed arrays copy
//                                  element by element: copyWithin ran at ~2 GB/s)

import { matmulHalfFunction } from './matmulHalves';
import { matmulFunction, matmulKnFunction, matmulNkFunction } from './matmulProducts';
import { packKnFunction, packNkFunction } from './matmulPacking';
import { encodeModule, FuncBuilder, I32 } from './wasmBytes';

/** Pages a shared memory may grow to (4 GiB, all wasm32 can address; reserved, not committed). */
export const SHARED_MAX_PAGES = 65536;

/**
 * `shared`: the module imports a shared memory (threads), else an ordinary one. `fused`: acc + a·b
 * as relaxed_madd (validates only where relaxed-simd is enabled: see wasmFeatures.ts).
 */
export function matmulModuleBytes(shared = false, fused = false): Uint8Array {
  return encodeModule({
    memoryImport: shared ? { minPages: 1, maxPages: SHARED_MAX_PAGES, shared: true } : { minPages: 1 },
    functions: [
      { name: 'mm', fn: matmulFunction(fused) },
      { name: 'mm_nk', fn: matmulNkFunction() },
      { name: 'mm_kn', fn: matmulKnFunction(fused) },
      { name: 'mm_bf16', fn: matmulHalfFunction('BF16', fused) },
      { name: 'mm_f16', fn: matmulHalfFunction('F16', fused) },
      { name: 'pack_kn', fn: packKnFunction() },
      { name: 'pack_nk', fn: packNkFunction() },
      { name: 'copy', fn: copyFunction() },
      { name: 'add_rows', fn: addRowsFunction() },
    ],
  });
}

// copy(dst, src, n): n bytes from src to dst.
function copyFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32]);
  const [dst, src, n] = [0, 1, 2].map((i) => f.param(i));
  f.get(dst).get(src).get(n).memoryCopy();
  return f;
}

// add_rows(src, bias, dst, M, rowBytes): row i of dst = row i of src + bias, 16 bytes at a time.
function addRowsFunction(): FuncBuilder {
  const f = new FuncBuilder([I32, I32, I32, I32, I32]);
  const [src, bias, dst, M, rowBytes] = [0, 1, 2, 3, 4].map((i) => f.param(i));
  const end = f.local(I32);
  const j = f.local(I32);
  f.get(src).get(M).get(rowBytes).i32Mul().i32Add().set(end);
  f.block(() => {
    f.get(src).get(end).i32GeU().brIf(0);
    f.get(rowBytes).i32Eqz().brIf(0);
    f.loop(() => {
      f.i32(0).set(j);
      f.loop(() => {
        f.get(dst).get(j).i32Add();
        f.get(src).get(j).i32Add().v128Load().get(bias).get(j).i32Add().v128Load().f32x4Add();
        f.v128Store();
        f.get(j).i32(16).i32Add().tee(j).get(rowBytes).i32LtU().brIf(0);
      });
      f.get(dst).get(rowBytes).i32Add().set(dst);
      f.get(src).get(rowBytes).i32Add().tee(src).get(end).i32LtU().brIf(0);
    });
  });
  return f;
}
