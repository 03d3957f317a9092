// The .npz reader against hostile files (numpy's own files are read in test/unit/saeCases.test.ts):
// a descr that names Object's prototype is no dtype, a deflated entry that inflates past what its
// zip entry says (a bomb) is stopped there, shapes in messages bounded.
import * as assert from 'node:assert/strict';
import { npy, writeMembers } from '../../test/helpers/checkpointFuzz/mutateNpz';
import { npzEntries, readNpy } from './npz';
import { folderOf } from './testing';

const header = (descr: string, shape: string): string => `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape}), }`;

async function readOne(bytes: Uint8Array, expect?: number[]): Promise<unknown> {
  const { files } = folderOf({ 'params.npz': bytes });
  const entries = await npzEntries(files, '/m/params.npz', 'params.npz');
  return readNpy(files, '/m/params.npz', [...entries.values()][0], 'params.npz', expect);
}

describe('npz: hostile files', () => {
  it('a descr "toString" (or any name of Object\'s prototype) is an unknown type, not a width', async () => {
    for (const descr of ['toString', '__proto__', 'constructor']) {
      await assert.rejects(readOne(writeMembers([{ name: 'b_enc.npy', data: npy(header(descr, '4,'), new Uint8Array(16)) }])), (e: Error) => {
        assert.match(e.message, new RegExp(`params\\.npz: array b_enc holds ${descr}; FFN Lens reads float32`));
        assert.doesNotMatch(e.message, /NaN|undefined/);
        return true;
      });
    }
  });

  it('a deflated entry that inflates past its zip entry\'s size is stopped there (64 MB of zeros said as 100 bytes)', async () => {
    const bomb = npy(header('<f4', '16, 1000000'), new Uint8Array(64_000_000));
    const before = process.memoryUsage().arrayBuffers;
    await assert.rejects(readOne(writeMembers([{ name: 'W_enc.npy', data: bomb, deflate: true, size: 100 }])), /params\.npz: array W_enc inflates to more than the 100 bytes its zip entry says/);
    assert.ok(process.memoryUsage().arrayBuffers - before < 32e6, 'not inflated whole');
    await assert.rejects(readOne(writeMembers([{ name: 'W_enc.npy', data: npy(header('<f4', '4,'), new Uint8Array(16)), deflate: true, size: 90 }])), /inflates to 90 bytes|inflates to \d+ bytes, where its zip entry says 90/);
  });

  it('a shape of thousands of dimensions is said bounded', async () => {
    const dims = new Array<string>(1000).fill('1').join(', ');
    await assert.rejects(readOne(writeMembers([{ name: 'W_dec.npy', data: npy(header('<f4', dims), new Uint8Array(8)) }]), [4, 16]), (e: Error) => {
      assert.ok(e.message.length < 300, e.message);
      assert.match(e.message, /array W_dec is \[1, 1, .*…; expected \[4, 16\]/);
      return true;
    });
  });
});
