// A minimal WebAssembly binary encoder: just the sections, value types and instructions the
// kernels in this folder need (i32 control flow, scalar f32 and f64, simd128). Emitting bytes from
// TypeScript keeps the extension free of native binaries, downloads and .wasm files on disk
// (everything lives in the esbuild bundle).

export const I32 = 0x7f;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;
export type ValType = typeof I32 | typeof F32 | typeof F64 | typeof V128;

const SECTION = { type: 1, import: 2, function: 3, export: 7, code: 10 } as const;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    const done = (n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function name(s: string): number[] {
  const bytes = [...s].map((ch) => ch.charCodeAt(0) & 0x7f);
  return [...uleb(bytes.length), ...bytes];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

/** A local variable (parameters come first, numbered from 0). */
export type Local = number & { readonly __local?: never };

/**
 * The body of one function. Instructions are appended in order; structured control takes a
 * callback for its inner instructions so nesting in the generator mirrors nesting in the code.
 */
export class FuncBuilder {
  readonly bytes: number[] = [];
  private readonly extraLocals: ValType[] = [];

  constructor(readonly params: readonly ValType[], readonly results: readonly ValType[] = []) {}

  param(i: number): Local {
    return i as Local;
  }

  local(type: ValType): Local {
    this.extraLocals.push(type);
    return (this.params.length + this.extraLocals.length - 1) as Local;
  }

  /** Encoded body: locals then code then `end`. */
  body(): number[] {
    const groups = this.extraLocals.map((t) => [...uleb(1), t]);
    const code = [...vec(groups), ...this.bytes, 0x0b];
    return [...uleb(code.length), ...code];
  }

  private op(...b: number[]): this {
    this.bytes.push(...b);
    return this;
  }

  private simd(opcode: number, ...imm: number[]): this {
    return this.op(0xfd, ...uleb(opcode), ...imm);
  }

  // control
  block(inner: () => void): this { this.op(0x02, 0x40); inner(); return this.op(0x0b); }
  loop(inner: () => void): this { this.op(0x03, 0x40); inner(); return this.op(0x0b); }
  if(inner: () => void): this { this.op(0x04, 0x40); inner(); return this.op(0x0b); }
  br(depth: number): this { return this.op(0x0c, ...uleb(depth)); }
  drop(): this { return this.op(0x1a); }
  /** Calls function `index` of the module (its place in ModuleSpec.functions: nothing is imported but memory). */
  call(index: number): this { return this.op(0x10, ...uleb(index)); }
  /** [x, y, cond] → cond ? x : y */
  select(): this { return this.op(0x1b); }
  brIf(depth: number): this { return this.op(0x0d, ...uleb(depth)); }

  // variables
  get(l: Local): this { return this.op(0x20, ...uleb(l)); }
  set(l: Local): this { return this.op(0x21, ...uleb(l)); }
  tee(l: Local): this { return this.op(0x22, ...uleb(l)); }

  // i32
  i32(n: number): this { return this.op(0x41, ...sleb(n | 0)); }
  i32Eqz(): this { return this.op(0x45); }
  i32Eq(): this { return this.op(0x46); }
  i32Ne(): this { return this.op(0x47); }
  i32LtU(): this { return this.op(0x49); }
  i32GtU(): this { return this.op(0x4b); }
  i32GeU(): this { return this.op(0x4f); }
  i32Add(): this { return this.op(0x6a); }
  i32Sub(): this { return this.op(0x6b); }
  i32Mul(): this { return this.op(0x6c); }
  i32RemU(): this { return this.op(0x70); }
  i32And(): this { return this.op(0x71); }
  i32Shl(): this { return this.op(0x74); }
  i32ShrU(): this { return this.op(0x76); }

  // scalar f32 (memarg: log2 alignment, byte offset)
  f32Load(offset = 0): this { return this.op(0x2a, 2, ...uleb(offset)); }
  f32Store(offset = 0): this { return this.op(0x38, 2, ...uleb(offset)); }
  /** memory.copy (bulk memory): [dst, src, n] → n bytes copied, overlapping or not. */
  memoryCopy(): this { return this.op(0xfc, ...uleb(10), 0x00, 0x00); }
  f32Const0(): this { return this.op(0x43, 0, 0, 0, 0); }
  /** f32.const v (v rounded to float32). */
  f32Const(v: number): this { return this.op(0x43, ...new Uint8Array(Float32Array.of(v).buffer)); }
  f32Add(): this { return this.op(0x92); }
  f32Mul(): this { return this.op(0x94); }

  // scalar f64
  f64Const(v: number): this { return this.op(0x44, ...new Uint8Array(Float64Array.of(v).buffer)); }
  f64Add(): this { return this.op(0xa0); }
  f64Div(): this { return this.op(0xa3); }
  f64Sqrt(): this { return this.op(0x9f); }
  /** f64.convert_i32_u */
  f64ConvertI32U(): this { return this.op(0xb8); }
  f64Eq(): this { return this.op(0x61); }
  f64Ne(): this { return this.op(0x62); }
  f64Gt(): this { return this.op(0x64); }

  // simd128 (alignment hints are hints only: unaligned access is valid)
  v128Load(offset = 0): this { return this.simd(0x00, 4, ...uleb(offset)); }
  v128Load32Splat(offset = 0): this { return this.simd(0x09, 2, ...uleb(offset)); }
  v128Store(offset = 0): this { return this.simd(0x0b, 4, ...uleb(offset)); }
  v128Zero(): this { return this.simd(0x0c, ...new Array<number>(16).fill(0)); }
  f32x4Splat(): this { return this.simd(0x13); }
  /** i8x16.shuffle of two f32x4 by 32-bit lanes: 0-3 pick from the first operand, 4-7 from the second. */
  shuffle32(l0: number, l1: number, l2: number, l3: number): this {
    return this.simd(0x0d, ...[l0, l1, l2, l3].flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3]));
  }
  f64x2Splat(): this { return this.simd(0x14); }
  f64x2ExtractLane(lane: number): this { return this.simd(0x21, lane); }
  /** f64x2.promote_low_f32x4: lanes 0, 1 of an f32x4 as f64 (exactly). */
  f64x2PromoteLow(): this { return this.simd(0x5f); }
  /** f32x4.demote_f64x2_zero: the two f64 lanes rounded to f32 in lanes 0, 1; lanes 2, 3 zero. */
  f32x4DemoteZero(): this { return this.simd(0x5e); }
  f64x2Add(): this { return this.simd(0xf0); }
  f64x2Sub(): this { return this.simd(0xf1); }
  f64x2Mul(): this { return this.simd(0xf2); }
  f64x2Div(): this { return this.simd(0xf3); }
  f64x2Gt(): this { return this.simd(0x4a); }
  /** v128.bitselect: [a, b, mask] → bits of a where mask is 1, of b where 0. */
  v128Bitselect(): this { return this.simd(0x52); }
  f32x4Neg(): this { return this.simd(0xe1); }
  f32x4Add(): this { return this.simd(0xe4); }
  f32x4Sub(): this { return this.simd(0xe5); }
  f32x4Mul(): this { return this.simd(0xe6); }
  /** relaxed-simd f32x4.relaxed_madd: [a, b, c] → a·b + c, fused (one rounding) where the CPU has FMA. */
  f32x4RelaxedMadd(): this { return this.simd(0x105); }
  f32x4Min(): this { return this.simd(0xe8); }
  f32x4Max(): this { return this.simd(0xe9); }
  f32x4Nearest(): this { return this.simd(0x6a); }
  f32x4Lt(): this { return this.simd(0x43); }
  f32x4Gt(): this { return this.simd(0x44); }
  i32x4TruncSatF32x4S(): this { return this.simd(0xf8); }
  i32x4Add(): this { return this.simd(0xae); }
  i32x4Sub(): this { return this.simd(0xb1); }
  i32x4Shl(): this { return this.simd(0xab); }
  i32x4Splat(): this { return this.simd(0x11); }
  /** i32x4.gt_s */
  i32x4GtS(): this { return this.simd(0x3b); }
  /** i32x4.extend_low_i16x8_u: 16-bit lanes 0-3 zero-extended to 32 bits. */
  i32x4ExtendLowU16(): this { return this.simd(0xa9); }
  /** i32x4.extend_high_i16x8_u: 16-bit lanes 4-7 zero-extended to 32 bits. */
  i32x4ExtendHighU16(): this { return this.simd(0xaa); }
  v128And(): this { return this.simd(0x4e); }
  v128Or(): this { return this.simd(0x50); }
  v128AndNot(): this { return this.simd(0x4f); }
  // (exact GELU's table lookup: geluModule.ts)
  f64x2Neg(): this { return this.simd(0xed); }
  f64x2Abs(): this { return this.simd(0xec); }
  f64x2Lt(): this { return this.simd(0x49); }
  f64x2Floor(): this { return this.simd(0x75); }
  /** [a, b] → b < a ? b : a, lane by lane (NaN in a stays) */
  f64x2Pmin(): this { return this.simd(0xf6); }
  i32x4TruncSatF64x2SZero(): this { return this.simd(0xfc); }
  i32x4ExtractLane(lane: number): this { return this.simd(0x1b, lane); }
  v128Load64Splat(offset = 0): this { return this.simd(0x0a, 3, ...uleb(offset)); }
  /** [addr, v] → v with lane `lane` loaded from addr + offset */
  v128Load64Lane(offset: number, lane: number): this { return this.simd(0x57, 3, ...uleb(offset), lane); }
}

export interface ModuleSpec {
  /** Imported as env.memory; min pages. */
  memoryImport?: { minPages: number; maxPages?: number; shared?: boolean };
  functions: { name: string; fn: FuncBuilder }[];
}

/** The bytes of a module: one type per function, all exported by name. */
export function encodeModule(spec: ModuleSpec): Uint8Array {
  const fns = spec.functions;
  const types = fns.map(({ fn }) => [0x60, ...vec(fn.params.map((t) => [t])), ...vec(fn.results.map((t) => [t]))]);
  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  out.push(...section(SECTION.type, vec(types)));
  if (spec.memoryImport) {
    const { minPages, maxPages, shared } = spec.memoryImport;
    if (shared && maxPages === undefined) throw new Error('a shared memory needs maxPages');
    // limits: 0x00 min, 0x01 min max, 0x03 min max shared (the threads proposal)
    const limits = maxPages === undefined ? [0x00, ...uleb(minPages)] : [shared ? 0x03 : 0x01, ...uleb(minPages), ...uleb(maxPages)];
    const mem = [...name('env'), ...name('memory'), 0x02, ...limits];
    out.push(...section(SECTION.import, vec([mem])));
  }
  out.push(...section(SECTION.function, vec(fns.map((_, i) => uleb(i)))));
  out.push(...section(SECTION.export, vec(fns.map(({ name: n }, i) => [...name(n), 0x00, ...uleb(i)]))));
  out.push(...section(SECTION.code, vec(fns.map(({ fn }) => fn.body()))));
  return Uint8Array.from(out);
}
