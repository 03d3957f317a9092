// Fused storage: where each role's out_in row is stored, worked out by hand for gpt_neox's
// per-head query_key_value and phi3's qkv_proj and gate_up_proj, and the splitter against it.
import * as assert from 'node:assert/strict';
import { fusedParts, fusedRole, fusedRow, fusedRows, fusedStoredRows, splitFused, type FusedDims, type FusedKind } from './fused';

const NEOX: FusedDims = { NH: 2, KVH: 2, HS: 8, F: 48 };
const PHI3: FusedDims = { NH: 4, KVH: 2, HS: 4, F: 6 };

describe('fusedRow', () => {
  it('gpt_neox query_key_value: rows [h][q,k,v][HS]; Wk row 5 (head 0, dim 5) is stored row 13, Wq row 9 (head 1, dim 1) row 25, bv 6 row 22', () => {
    assert.equal(fusedRow('qkv_per_head', 'k', 5, NEOX), 13);
    assert.equal(fusedRow('qkv_per_head', 'q', 9, NEOX), 25);
    assert.equal(fusedRow('qkv_per_head', 'v', 6, NEOX), 22);
    assert.deepEqual(Array.from(fusedRows('qkv_per_head', 'q', NEOX)), [0, 1, 2, 3, 4, 5, 6, 7, 24, 25, 26, 27, 28, 29, 30, 31]);
    assert.deepEqual(Array.from(fusedRows('qkv_per_head', 'v', NEOX)), [16, 17, 18, 19, 20, 21, 22, 23, 40, 41, 42, 43, 44, 45, 46, 47]);
    assert.equal(fusedStoredRows('qkv_per_head', NEOX), 48);
  });
  it('phi3 qkv_proj: q rows (NH·HS = 16), then k (KVH·HS = 8), then v (8); Wv row 2 is stored row 26', () => {
    assert.equal(fusedRow('qkv', 'q', 15, PHI3), 15);
    assert.equal(fusedRow('qkv', 'k', 0, PHI3), 16);
    assert.equal(fusedRow('qkv', 'v', 2, PHI3), 26);
    assert.equal(fusedStoredRows('qkv', PHI3), 32);
  });
  it('phi3 gate_up_proj: gate rows, then up; W1 (up) row 3 is stored row F + 3', () => {
    assert.equal(fusedRow('gate_up', 'gate', 5, PHI3), 5);
    assert.equal(fusedRow('gate_up', 'up', 3, PHI3), 9);
    assert.equal(fusedStoredRows('gate_up', PHI3), 12);
  });
  it('every stored row belongs to exactly one row of one part', () => {
    for (const [kind, d] of [['qkv_per_head', NEOX], ['qkv', PHI3], ['gate_up', PHI3]] as Array<[FusedKind, FusedDims]>) {
      const seen = new Set<number>();
      for (const p of fusedParts(kind)) for (const r of fusedRows(kind, p, d)) seen.add(r);
      assert.equal(seen.size, fusedStoredRows(kind, d));
      assert.equal(Math.max(...seen), fusedStoredRows(kind, d) - 1);
    }
  });
  it('the roles of v1: q → attn.Wq / attn.bq, gate → ffn.Wg, up → ffn.W1 / ffn.b1', () => {
    assert.equal(fusedRole('q'), 'attn.Wq');
    assert.equal(fusedRole('v', true), 'attn.bv');
    assert.equal(fusedRole('gate'), 'ffn.Wg');
    assert.equal(fusedRole('up'), 'ffn.W1');
    assert.equal(fusedRole('up', true), 'ffn.b1');
  });
  it('refuses a part the kind does not hold, a row out of range, a per-head qkv with grouped keys', () => {
    assert.throws(() => fusedRow('gate_up', 'q', 0, PHI3), /a gate_up tensor has no q rows \(it holds gate, up\)/);
    assert.throws(() => fusedRow('qkv', 'k', 8, PHI3), /row 8 of k: it has rows 0 to 7/);
    assert.throws(() => fusedRow('qkv_per_head', 'q', 0, PHI3), /as many key\/value heads as heads \(4\), not 2/);
  });
});

describe('splitFused', () => {
  for (const [kind, d, cols] of [['qkv_per_head', NEOX, 3], ['qkv_per_head', NEOX, 1], ['qkv', PHI3, 5], ['gate_up', PHI3, 16]] as Array<[FusedKind, FusedDims, number]>) {
    it(`${kind}, ${cols} column${cols === 1 ? ' (a bias)' : 's'}: each part's row j is the stored row fusedRow gives`, () => {
      const rows = fusedStoredRows(kind, d);
      const data = Float32Array.from({ length: rows * cols }, (_, i) => i + 0.5);
      const parts = splitFused(kind, data, cols, d);
      assert.deepEqual([...parts.keys()], fusedParts(kind));
      for (const [p, m] of parts) {
        const map = fusedRows(kind, p, d);
        assert.equal(m.length, map.length * cols);
        for (let j = 0; j < map.length; j++) for (let c = 0; c < cols; c++) assert.equal(m[j * cols + c], data[map[j] * cols + c], `${p}[${j}][${c}]`);
      }
    });
  }
  it('into the memory alloc gives; refuses data of the wrong length', () => {
    const given: Float32Array[] = [];
    const parts = splitFused('gate_up', new Float32Array(12 * 2), 2, PHI3, (n) => { const a = new Float32Array(n); given.push(a); return a; });
    assert.deepEqual([...parts.values()], given);
    assert.throws(() => splitFused('gate_up', new Float32Array(23), 2, PHI3), /a gate_up tensor of 12 rows of 2 has 24 numbers, not 23/);
  });
});
