// Fused storage: one stored matrix (or bias) holding the rows of several of v1's roles. The core
// computes with the roles' own out_in matrices (attn.Wq, Wk, Wv; ffn.Wg, W1), and a `weights`
// override names a role's row whatever the storage; these say where each of a role's rows is
// stored, and cut a fused tensor into the roles' matrices (the checkpoint reader's job).
//
//   qkv_per_head  gpt_neox `query_key_value` (3·NH·HS rows): per head h, its q rows, then its k,
//                 then its v: role row j (head j / HS, dim j % HS) of part p (q 0, k 1, v 2) is
//                 stored at (j / HS)·3·HS + p·HS + j % HS (the view [T, NH, 3·HS] split in three)
//   qkv           phi3 `qkv_proj` ((NH + 2·KVH)·HS rows): all q rows, then k, then v
//   gate_up       phi3 `gate_up_proj` (2·F rows): all gate rows, then up (transformers' chunk(2))
//
// Dimension key (spec.ts): NH, KVH heads, HS head size, F d_ff; `cols` is C for a matrix, 1 for a bias.

import { PARAM, type ParamKind } from './ids';

export type FusedKind = 'qkv_per_head' | 'qkv' | 'gate_up';
export type FusedPart = 'q' | 'k' | 'v' | 'gate' | 'up';

export interface FusedDims {
  readonly NH: number;
  readonly KVH: number;
  readonly HS: number;
  readonly F: number;
}

const PARTS: Readonly<Record<FusedKind, readonly FusedPart[]>> = {
  qkv_per_head: ['q', 'k', 'v'],
  qkv: ['q', 'k', 'v'],
  gate_up: ['gate', 'up'],
};

/** The parts a fused tensor holds, in storage order. */
export function fusedParts(kind: FusedKind): readonly FusedPart[] {
  return PARTS[kind];
}

/** v1's role (param kind) of a part: its matrix, or with `bias` its bias (q → attn.Wq / attn.bq, gate → ffn.Wg, up → ffn.W1). */
export function fusedRole(part: FusedPart, bias = false): ParamKind {
  switch (part) {
    case 'q': return bias ? PARAM.bq : PARAM.Wq;
    case 'k': return bias ? PARAM.bk : PARAM.Wk;
    case 'v': return bias ? PARAM.bv : PARAM.Wv;
    case 'gate': return bias ? PARAM.bg : PARAM.Wg;
    case 'up': return bias ? PARAM.b1 : PARAM.W1;
  }
}

function checkPart(kind: FusedKind, part: FusedPart, d: FusedDims): void {
  if (!PARTS[kind].includes(part)) throw new RangeError(`a ${kind} tensor has no ${part} rows (it holds ${PARTS[kind].join(', ')})`);
  if (kind === 'qkv_per_head' && d.KVH !== d.NH) throw new RangeError(`a per-head fused qkv has as many key/value heads as heads (${d.NH}), not ${d.KVH}`);
}

/** How many rows a part (a role's out_in matrix) has: q NH·HS, k and v KVH·HS, gate and up F. */
export function fusedPartRows(part: FusedPart, d: FusedDims): number {
  switch (part) {
    case 'q': return d.NH * d.HS;
    case 'k': case 'v': return d.KVH * d.HS;
    case 'gate': case 'up': return d.F;
  }
}

/** The stored tensor's rows: the sum of its parts'. */
export function fusedStoredRows(kind: FusedKind, d: FusedDims): number {
  return PARTS[kind].reduce((n, p) => n + fusedPartRows(p, d), 0);
}

/** The stored row of row j of a part's out_in matrix (0 ≤ j < fusedPartRows). */
export function fusedRow(kind: FusedKind, part: FusedPart, j: number, d: FusedDims): number {
  checkPart(kind, part, d);
  const n = fusedPartRows(part, d);
  if (!(Number.isInteger(j) && j >= 0 && j < n)) throw new RangeError(`row ${j} of ${part}: it has rows 0 to ${n - 1}`);
  if (kind === 'qkv_per_head') {
    const p = PARTS[kind].indexOf(part);
    return Math.floor(j / d.HS) * 3 * d.HS + p * d.HS + (j % d.HS);
  }
  // blocks one after another: the rows of the parts before this one, then j
  let before = 0;
  for (const q of PARTS[kind]) {
    if (q === part) break;
    before += fusedPartRows(q, d);
  }
  return before + j;
}

/** fusedRow of every row of a part, in order: map[j] = the stored row. */
export function fusedRows(kind: FusedKind, part: FusedPart, d: FusedDims): Int32Array {
  const n = fusedPartRows(part, d);
  const map = new Int32Array(n);
  for (let j = 0; j < n; j++) map[j] = fusedRow(kind, part, j, d);
  return map;
}

/**
 * A fused tensor [stored rows][cols] (row-major, out_in) cut into its parts' out_in matrices
 * [part rows][cols], each in `alloc(n)` when given (the kernel's memory), in storage order.
 */
export function splitFused(kind: FusedKind, data: Float32Array, cols: number, d: FusedDims, alloc: (n: number) => Float32Array = (n) => new Float32Array(n)): Map<FusedPart, Float32Array> {
  const rows = fusedStoredRows(kind, d);
  if (data.length !== rows * cols) throw new RangeError(`a ${kind} tensor of ${rows} rows of ${cols} has ${rows * cols} numbers, not ${data.length}`);
  const out = new Map<FusedPart, Float32Array>();
  for (const part of PARTS[kind]) {
    const n = fusedPartRows(part, d);
    const m = alloc(n * cols);
    // runs of consecutive stored rows: HS at a time per head, or the whole block
    const run = kind === 'qkv_per_head' ? d.HS : n;
    for (let j = 0; j < n; j += run) {
      const s = fusedRow(kind, part, j, d);
      m.set(data.subarray(s * cols, (s + run) * cols), j * cols);
    }
    out.set(part, m);
  }
  return out;
}
