import * as assert from 'node:assert/strict';
import { csvText, npyBytes } from './npy';

describe('npy and csv', () => {
  it('npy: the header numpy reads (magic, version, dict, 64-byte aligned), then little-endian float32', () => {
    const b = npyBytes(new Float32Array([1, -2.5, 3, 0.1]), [2, 2]);
    assert.deepEqual([...b.subarray(0, 8)], [0x93, 78, 85, 77, 80, 89, 1, 0]);
    const len = b[8] + 256 * b[9];
    const header = String.fromCharCode(...b.subarray(10, 10 + len));
    assert.match(header, /^\{'descr': '<f4', 'fortran_order': False, 'shape': \(2, 2\), \} *\n$/);
    assert.equal((10 + len) % 64, 0);
    const dv = new DataView(b.buffer, 10 + len);
    assert.deepEqual([0, 1, 2, 3].map((i) => dv.getFloat32(i * 4, true)), [1, -2.5, 3, Math.fround(0.1)]);
    // a vector's shape is a one-element tuple
    const v = npyBytes(new Float32Array(3), [3]);
    assert.match(String.fromCharCode(...v.subarray(10, 10 + v[8])), /'shape': \(3,\)/);
    assert.throws(() => npyBytes(new Float32Array(3), [2, 2]), /holds 4 values, the data 3/);
  });

  it('csv: a header of column indices, a label per row, heads first for a per-head stage; labels quoted when needed', () => {
    assert.equal(csvText(new Float32Array([1, 2, 3, 4]), [2, 2], ['a', 'b,c'], String), 'row,0,1\na,1,2\n"b,c",3,4\n');
    assert.equal(csvText(new Float32Array([1, 2, 3, 4]), [2, 1, 2], ['x'], String), 'head,row,0,1\n0,x,1,2\n1,x,3,4\n');
  });
});
